// SPDX-License-Identifier: MIT
// -E's tracepoint path without a kernel: ring-buffer records decoded, ids
// followed through their events (handshake, lifetime, reasons), the lines.
// Records are built here from trace/bpf/record.h: the malformed ones the lab
// cannot produce, and one connection's life for the arithmetic; the lab's own
// records are judged in tests/lab/judges/events.cpp.
#include "analysis/cm_trace.h"
#include "analysis/event_metrics.h"
#include "catch_compat.hpp"
#include "render/monitor.h"
#include "render/output.h"
#include "render/prometheus.h"
#include "support.h"
#include "trace/bpf/record.h"
#include "trace/decode.h"

#include <arpa/inet.h>
#include <cstring>
#include <map>
#include <netinet/in.h>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace rdmastat;
using rdmastat::test::json_writer;

namespace {

rdmastat_trace_record record(std::uint16_t kind, std::uint64_t ms, std::uint32_t cm_id,
                             std::uint16_t local_port, std::uint16_t peer_port) {
    rdmastat_trace_record r;
    std::memset(&r, 0, sizeof(r));
    r.time_ns = ms * 1'000'000;
    r.kind = kind;
    r.flags = RDMASTAT_TRACE_F_USER | RDMASTAT_TRACE_F_DEVICE | RDMASTAT_TRACE_F_TRACKED;
    r.node_type = 1; // RDMA_NODE_IB_CA
    r.cm_id = cm_id;
    r.port_space = 0x0106;
    r.port_num = 1;
    r.state = 5; // CONNECT
    r.pid = 4242;
    r.uid = 1000;
    std::strcpy(r.name, "rping");
    std::strcpy(r.device, "rxe0");
    for (auto [bytes, port] : {std::pair{r.src, local_port}, std::pair{r.dst, peer_port}}) {
        sockaddr_in sin{};
        sin.sin_family = AF_INET;
        sin.sin_port = htons(port);
        inet_pton(AF_INET, "10.9.0.2", &sin.sin_addr);
        std::memcpy(bytes, &sin, sizeof(sin));
    }
    return r;
}

rdmastat_trace_record cm_event(std::uint64_t ms, std::uint32_t cm_id, CmEventType type,
                               std::int32_t status = 0) {
    rdmastat_trace_record r = record(RDMASTAT_TRACE_CM_EVENT, ms, cm_id, 40000, 7175);
    r.event = static_cast<std::int32_t>(type);
    r.status = status;
    return r;
}

TraceEvent decode(const rdmastat_trace_record& r) {
    return decode_trace_record(&r, sizeof(r)).take();
}

Snapshot roce_devices() {
    Snapshot s;
    Device d;
    d.name = "rxe0";
    d.transport = Transport::roce;
    s.devices.push_back(d);
    return s;
}

} // namespace

TEST_CASE("trace records decode to the id as the tracepoint saw it", "[trace]") {
    TraceEvent e = decode(cm_event(5, 7, CmEventType::rejected, 28));
    CHECK(e.kind == TraceKind::cm_event);
    CHECK(e.event == CmEventType::rejected);
    CHECK(e.status == 28);
    CHECK(e.tracked);
    CHECK(e.time_ns == 5'000'000);
    const Connection& c = e.connection;
    CHECK(c.device == "rxe0");
    CHECK(c.port == 1u);
    CHECK(c.transport == Transport::infiniband); // a CA: RoCE needs the device list
    CHECK(c.port_space == PortSpace::tcp);
    CHECK(c.cm_id == 7u);
    CHECK(c.state == CmState::connect);
    REQUIRE(c.local);
    CHECK(c.local->to_string() == "10.9.0.2:40000");
    REQUIRE(c.peer);
    CHECK(c.peer->port == 7175);
    CHECK(c.owner.pid == 4242u);
    CHECK(c.owner.uid == 1000u);
    CHECK(c.owner.comm == "rping");
    CHECK(!c.owner.kernel);
    CHECK(!e.other_family);
}

TEST_CASE("trace records: kernel owners, untracked ids, unknown numbers", "[trace]") {
    rdmastat_trace_record r = record(RDMASTAT_TRACE_DESTROY, 1, 3, 4420, 0);
    r.flags = RDMASTAT_TRACE_F_DEVICE | RDMASTAT_TRACE_F_TRACKED;
    std::strcpy(r.name, "nvmet_rdma");
    TraceEvent k = decode(r);
    CHECK(k.connection.owner.kernel == "nvmet_rdma");
    CHECK(!k.connection.owner.pid);

    // Not numbered by restrack: no cm id, whatever the field holds.
    r = record(RDMASTAT_TRACE_DESTROY, 1, 99, 7174, 0);
    r.flags &= ~RDMASTAT_TRACE_F_TRACKED;
    TraceEvent u = decode(r);
    CHECK(!u.tracked);
    CHECK(u.connection.cm_id == 0u);

    // An event number and an address family this tool has no name for are
    // kept, not dropped.
    r = cm_event(1, 4, static_cast<CmEventType>(77));
    std::uint16_t af_ib = 27;
    std::memcpy(r.dst, &af_ib, sizeof(af_ib));
    TraceEvent odd = decode(r);
    CHECK(static_cast<std::uint32_t>(*odd.event) == 77u);
    CHECK(odd.other_family == 27);
    CHECK(!odd.connection.peer);
    CHECK(odd.connection.local);
    std::ostringstream line;
    CmTracker t;
    auto ev = t.add(odd, {});
    REQUIRE(ev);
    render_events(line, {*ev}, {});
    CHECK(line.str().find(" 77 rxe0/1 ") != std::string::npos);
    CHECK(line.str().find(" family=27") != std::string::npos);
}

TEST_CASE("trace records of the wrong size or kind are errors, not events", "[trace]") {
    rdmastat_trace_record r = record(RDMASTAT_TRACE_CM_EVENT, 1, 1, 1, 1);
    auto short_one = decode_trace_record(&r, sizeof(r) - 1);
    REQUIRE(!short_one);
    CHECK(short_one.error() == "trace record: " + std::to_string(sizeof(r) - 1) +
                                   " bytes, expected " + std::to_string(sizeof(r)));
    r.kind = 200;
    auto unknown = decode_trace_record(&r, sizeof(r));
    REQUIRE(!unknown);
    CHECK(unknown.error() == "trace record: unknown kind 200");
}

TEST_CASE("the tracker times an active end's handshake and life, and decodes its reject",
          "[trace]") {
    CmTracker t;
    t.seed(roce_devices());
    auto offset = std::chrono::seconds(1'700'000'000);
    // Active end 7: address resolved at 100 ms, rdma_connect() called at
    // 112 ms, established at 130 ms, destroyed at 150 ms.
    auto a = t.add(decode(cm_event(100, 7, CmEventType::addr_resolved)), offset);
    REQUIRE(a);
    CHECK(a->kind == EventKind::cm_event);
    CHECK(a->connection.transport == Transport::roce); // from the device list
    CHECK(!a->handshake);
    CHECK(!a->connect);
    // A connect that starts is no line of its own: it starts connect_ms.
    TraceEvent sent = decode(record(RDMASTAT_TRACE_CONNECT_START, 112, 7, 40000, 7175));
    CHECK(sent.kind == TraceKind::connect_started);
    CHECK(!t.add(sent, offset));
    auto up = t.add(decode(cm_event(130, 7, CmEventType::established)), offset);
    REQUIRE(up);
    CHECK(up->handshake == std::chrono::milliseconds(30));
    CHECK(up->connect == std::chrono::milliseconds(18));
    std::ostringstream up_text;
    render_events(up_text, {*up}, {});
    CHECK(up_text.str().find(" handshake_ms=30.000 connect_ms=18.000\n") != std::string::npos);
    std::ostringstream up_json;
    json_writer()->events(up_json, {*up}, {}, EventSource::tracepoints);
    CHECK(nlohmann::json::parse(up_json.str())["connect_ms"] == 18.0);
    CHECK(t.live() == 1);
    auto closed = t.add(decode(record(RDMASTAT_TRACE_DESTROY, 150, 7, 40000, 7175)), offset);
    REQUIRE(closed);
    CHECK(closed->kind == EventKind::closed);
    CHECK(closed->lifetime == std::chrono::milliseconds(50));
    CHECK(closed->connect == std::chrono::milliseconds(18));
    CHECK(t.live() == 0);
    CHECK(closed->time->time_since_epoch() ==
          std::chrono::duration_cast<std::chrono::system_clock::duration>(
              offset + std::chrono::milliseconds(150)));

    // Id 8 rejected by the peer's consumer (IB CM reason 28), then destroyed.
    auto rej = t.add(decode(cm_event(200, 8, CmEventType::rejected, 28)), offset);
    REQUIRE(rej);
    CHECK(rej->status == 28);
    CHECK(rej->reason == "CONSUMER_DEFINED");
    std::ostringstream text;
    render_events(text, {*rej}, {});
    CHECK(text.str() == "2023-11-14T22:13:20.200Z REJECTED rxe0/1 roce 10.9.0.2:40000 "
                        "10.9.0.2:7175 CONNECT cm_id=8 4242/rping status=28 "
                        "reason=CONSUMER_DEFINED\n");
    std::ostringstream json_line;
    json_writer()->events(json_line, {*rej}, {}, EventSource::tracepoints);
    auto j = nlohmann::json::parse(json_line.str());
    CHECK(j["version"] == 3);
    CHECK(j["source"] == "tracepoints");
    CHECK(j["event"] == "cm_event");
    CHECK(j["cm_event"] == "REJECTED");
    CHECK(j["reason"] == "CONSUMER_DEFINED");
    CHECK(j["connection"]["cm_id"] == 8);

    // Id 10, a process's active end on RoCE: CONNECT_RESPONSE is not the
    // end of its handshake; the RTU librdmacm has sent after it is.
    REQUIRE(t.add(decode(cm_event(400, 10, CmEventType::addr_resolved)), offset));
    CHECK(!t.add(decode(record(RDMASTAT_TRACE_CONNECT_START, 404, 10, 40002, 7175)), offset));
    auto response = t.add(decode(cm_event(410, 10, CmEventType::connect_response)), offset);
    REQUIRE(response);
    CHECK(!response->handshake);
    auto rtu = t.add(decode(record(RDMASTAT_TRACE_SEND_RTU, 413, 10, 40002, 7175)), offset);
    REQUIRE(rtu);
    CHECK(rtu->kind == EventKind::rtu_sent);
    CHECK(name_of(rtu->kind) == "rtu_sent");
    CHECK(rtu->handshake == std::chrono::milliseconds(13));
    CHECK(rtu->connect == std::chrono::milliseconds(9));

    // Id 9's rdma_connect() failed (siw to a closed port): a line, and the end.
    rdmastat_trace_record refused = record(RDMASTAT_TRACE_CONNECT_FAIL, 300, 9, 40001, 7175);
    refused.status = -111;
    auto failed = t.add(decode(refused), offset);
    REQUIRE(failed);
    CHECK(failed->kind == EventKind::connect_failed);
    CHECK(failed->reason == "ECONNREFUSED");
    CHECK(!failed->connect);
    auto gone = t.add(decode(record(RDMASTAT_TRACE_DESTROY, 301, 9, 40001, 7175)), offset);
    REQUIRE(gone);
    CHECK(gone->ending == Ending::error);
    CHECK(gone->reason == "ECONNREFUSED");
}

TEST_CASE("the tracker: passive ends, listeners, seeded ids and lost owners", "[trace]") {
    Snapshot seed = roce_devices();
    Connection old;
    old.device = "rxe0";
    old.cm_id = 3;
    old.owner.pid = 99;
    old.owner.comm = "old";
    seed.connections.push_back(old);
    CmTracker t;
    t.seed(seed);
    // A passive end: CONNECT_REQUEST at 10 ms, ESTABLISHED at 12.5 ms.
    rdmastat_trace_record req = cm_event(10, 5, CmEventType::connect_request);
    auto a = t.add(decode(req), {});
    REQUIRE(a);
    CHECK(!a->handshake);
    rdmastat_trace_record est = cm_event(10, 5, CmEventType::established);
    est.time_ns = 12'500'000;
    auto b = t.add(decode(est), {});
    REQUIRE(b);
    CHECK(b->handshake == std::chrono::microseconds(2500));
    // A listener seen first at its destruction: lifetime unknown, not zero.
    auto l = t.add(decode(record(RDMASTAT_TRACE_DESTROY, 20, 6, 7175, 0)), {});
    REQUIRE(l);
    CHECK(!l->lifetime);
    // An id older than the tracer: its lifetime is unknown too, and a record
    // without an owner takes the seed's.
    rdmastat_trace_record gone = record(RDMASTAT_TRACE_DESTROY, 30, 3, 1, 1);
    gone.flags &= ~RDMASTAT_TRACE_F_USER;
    gone.name[0] = '\0';
    auto g = t.add(decode(gone), {});
    REQUIRE(g);
    CHECK(!g->lifetime);
    CHECK(g->connection.owner.comm == "old");
    // A listener whose device goes: DEVICE_REMOVAL is its first record, not
    // its birth; its end is the removal's.
    CHECK(t.add(decode(cm_event(50, 11, CmEventType::device_removal)), {}));
    auto removed = t.add(decode(record(RDMASTAT_TRACE_DESTROY, 53, 11, 7175, 0)), {});
    REQUIRE(removed);
    CHECK(!removed->lifetime);
    CHECK(removed->ending == Ending::device_removed);
    // An id made between attach and the seed's dump is in the seed, and born
    // after it: its lifetime is known.
    Snapshot late = roce_devices();
    Connection young;
    young.device = "rxe0";
    young.cm_id = 12;
    late.connections.push_back(young);
    CmTracker t2;
    t2.seed(late);
    REQUIRE(t2.add(decode(cm_event(60, 12, CmEventType::addr_resolved)), {}));
    auto done = t2.add(decode(record(RDMASTAT_TRACE_DESTROY, 64, 12, 1, 1)), {});
    REQUIRE(done);
    CHECK(done->lifetime == std::chrono::milliseconds(4));
    // The destroy of an id never numbered (librdmacm's AF_IB probe) is no
    // line, nor is its event unless it failed: a wildcard listener hears each
    // CONNECT_REQUEST after the numbered per-device listener it made.
    rdmastat_trace_record probe = record(RDMASTAT_TRACE_DESTROY, 40, 0, 1, 0);
    probe.flags &= ~RDMASTAT_TRACE_F_TRACKED;
    CHECK(!t.add(decode(probe), {}));
    rdmastat_trace_record wildcard = cm_event(41, 0, CmEventType::connect_request);
    wildcard.flags &= ~(RDMASTAT_TRACE_F_TRACKED | RDMASTAT_TRACE_F_DEVICE);
    CHECK(!t.add(decode(wildcard), {}));
    rdmastat_trace_record unroutable = cm_event(42, 0, CmEventType::addr_error, -113);
    unroutable.flags &= ~(RDMASTAT_TRACE_F_TRACKED | RDMASTAT_TRACE_F_DEVICE);
    auto failed = t.add(decode(unroutable), {});
    REQUIRE(failed);
    CHECK(failed->reason == "EHOSTUNREACH");
}

TEST_CASE("status reasons: IB CM reject reasons on IB and RoCE, errnos everywhere", "[trace]") {
    TraceEvent e = decode(cm_event(1, 1, CmEventType::rejected, 8));
    CHECK(cm_status_reason(e, Transport::roce) == "INVALID_SERVICE_ID");
    CHECK(cm_status_reason(e, Transport::infiniband) == "INVALID_SERVICE_ID");
    CHECK(!cm_status_reason(e, Transport::iwarp)); // iWARP statuses are errnos
    e.status = 34;
    CHECK(cm_status_reason(e, Transport::roce) == "34"); // unassigned reason
    e.status = -104;
    CHECK(cm_status_reason(e, Transport::iwarp) == "ECONNRESET");
    e.status = 0;
    CHECK(!cm_status_reason(e, Transport::roce));
    e = decode(cm_event(1, 1, CmEventType::unreachable, -110));
    CHECK(cm_status_reason(e, Transport::roce) == "ETIMEDOUT");
}

TEST_CASE("event metrics count events, failures by reason, handshakes and closes", "[trace]") {
    CmTracker t;
    t.seed(roce_devices());
    EventMetrics m;
    auto feed = [&](const rdmastat_trace_record& r) {
        if (auto e = t.add(decode(r), {})) m.add(*e);
    };
    feed(cm_event(100, 7, CmEventType::addr_resolved));
    feed(cm_event(100 + 3, 7, CmEventType::established)); // 3 ms
    feed(record(RDMASTAT_TRACE_DESTROY, 150, 7, 40000, 7175));
    feed(cm_event(200, 8, CmEventType::rejected, 28));
    feed(cm_event(300, 9, CmEventType::unreachable, -110));
    m.set_lost(TraceLost{3, 2});
    m.set_lost(TraceLost{1, 1}); // counts only grow
    std::map<std::string, double> series;
    for (const MetricFamily& f : m.families())
        for (const Sample& s : f.samples) {
            std::string key = f.name + s.suffix;
            for (const auto& [k, val] : s.labels)
                key += "," + k + "=" + val;
            series[key] = s.value;
        }
    auto v = [&](const std::string& key) {
        INFO(key);
        REQUIRE(series.count(key));
        return series.at(key);
    };
    CHECK(v("rdmastat_cm_events_total,device=rxe0,event=ESTABLISHED") == 1);
    CHECK(v("rdmastat_cm_events_total,device=rxe0,event=REJECTED") == 1);
    CHECK(v("rdmastat_connect_failures_total,device=rxe0,reason=CONSUMER_DEFINED") == 1);
    CHECK(v("rdmastat_connect_failures_total,device=rxe0,reason=ETIMEDOUT") == 1);
    CHECK(v("rdmastat_connections_established_total,device=rxe0") == 1);
    CHECK(v("rdmastat_connections_closed_total,device=rxe0") == 1);
    // 3 ms: in the 5 ms bucket and above, not in the 2.5 ms one.
    CHECK(v("rdmastat_handshake_seconds_bucket,device=rxe0,transport=roce,le=0.0025") == 0);
    CHECK(v("rdmastat_handshake_seconds_bucket,device=rxe0,transport=roce,le=0.005") == 1);
    CHECK(v("rdmastat_handshake_seconds_bucket,device=rxe0,transport=roce,le=+Inf") == 1);
    CHECK(v("rdmastat_handshake_seconds_count,device=rxe0,transport=roce") == 1);
    CHECK(v("rdmastat_handshake_seconds_sum,device=rxe0,transport=roce") ==
          Approx(0.003).margin(1e-9));
    CHECK(v("rdmastat_events_lost_total,cause=ring_buffer_full") == 3);
    CHECK(v("rdmastat_events_lost_total,cause=program_busy") == 2);
    std::ostringstream text;
    write_prometheus(text, m.families());
    CHECK(text.str().find("# TYPE rdmastat_handshake_seconds histogram\n") != std::string::npos);
    CHECK(text.str().find("rdmastat_handshake_seconds_bucket{device=\"rxe0\",transport=\"roce\","
                          "le=\"+Inf\"} 1\n") != std::string::npos);
}

TEST_CASE("a connect request nobody listens for: the port and the requester, a failure",
          "[trace]") {
    rdmastat_trace_record r;
    std::memset(&r, 0, sizeof(r));
    r.time_ns = 5'000'000;
    r.kind = RDMASTAT_TRACE_NO_LISTENER;
    r.flags = RDMASTAT_TRACE_F_DEVICE;
    r.node_type = 1;
    std::strcpy(r.device, "rxe0");
    r.service_id = 0x0000000001061ca1ull; // rdma_cm, TCP port space, port 7329
    const std::uint8_t gid[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 9, 0, 2};
    std::memcpy(r.gid, gid, sizeof(gid));
    TraceEvent e = decode(r);
    CHECK(e.kind == TraceKind::no_listener);
    CHECK(!e.tracked);
    CHECK(e.connection.port_space == PortSpace::tcp);
    REQUIRE(e.connection.local);
    CHECK(e.connection.local->to_string() == "0.0.0.0:7329");
    REQUIRE(e.connection.peer);
    CHECK(e.connection.peer->address.to_string() == "10.9.0.2");

    CmTracker t;
    t.seed(roce_devices());
    auto line = t.add(e, {});
    REQUIRE(line); // untracked, but a failure: shown
    CHECK(line->kind == EventKind::no_listener);
    CHECK(name_of(line->kind) == "no_listener");
    CHECK(line->connection.transport == Transport::roce);
    EventMetrics m;
    m.add(*line);
    bool counted = false;
    for (const MetricFamily& f : m.families())
        for (const Sample& s : f.samples)
            if (f.name == "rdmastat_connect_failures_total" && s.value == 1 &&
                s.labels == std::vector<std::pair<std::string, std::string>>{
                                {"device", "rxe0"}, {"reason", "no_listener"}})
                counted = true;
    CHECK(counted);

    // An IPoIB port space is rdma_cm's too; a zero GID (InfiniBand without
    // a GRH) names no requester.
    r.service_id = 0x0000000000021ca1ull;
    std::memset(r.gid, 0, sizeof(r.gid));
    TraceEvent ipoib = decode(r);
    CHECK(ipoib.connection.port_space == PortSpace::ipoib);
    REQUIRE(ipoib.connection.local);
    CHECK(ipoib.connection.local->port == 7329);
    CHECK(!ipoib.connection.peer);
    // A service id not of rdma_cm's form names no port.
    r.service_id = 0x1234567800000001ull;
    std::memcpy(r.gid, gid, sizeof(gid));
    TraceEvent native = decode(r);
    CHECK(!native.connection.local);
    REQUIRE(native.connection.peer);
}

TEST_CASE("the tracker learns a device added after its seed, asking once per name", "[trace]") {
    CmTracker t;
    t.seed({}); // no devices when tracing began
    TraceEvent e = decode(cm_event(10, 1, CmEventType::addr_resolved));
    CHECK(t.new_device("rxe0"));
    CHECK(!t.new_device(""));
    // Unlearned, a RoCE device's CA node type reads as InfiniBand.
    CHECK(t.add(e, {})->connection.transport == Transport::infiniband);
    t.learn(roce_devices(), "rxe0");
    CHECK(!t.new_device("rxe0"));
    CHECK(t.add(decode(cm_event(11, 1, CmEventType::route_resolved)), {})->connection.transport ==
          Transport::roce);
    // A name the fresh list lacks (gone again) is not asked about twice.
    t.learn({}, "ghost0");
    CHECK(!t.new_device("ghost0"));
}

TEST_CASE("the tracker asks for an owner's cgroup once per id, and keeps it to the end",
          "[trace]") {
    // The records name a process by pid; what only /proc knows (its cgroup,
    // container and pod) comes from fill_owner, which a stub stands in for.
    std::vector<std::uint32_t> asked;
    const std::string docker = "/system.slice/docker-" + std::string(64, 'b') + ".scope";
    CmTracker t([&](Owner& o) {
        REQUIRE(o.pid);
        asked.push_back(*o.pid);
        if (*o.pid == 4242) { // alive while it connects, gone when its id goes
            o.cgroup = docker;
            o.container = Container{ContainerRuntime::docker, std::string(64, 'b')};
        }
    });
    Snapshot seed = roce_devices();
    Connection old;
    old.device = "rxe0";
    old.cm_id = 3;
    old.owner.pid = 99;
    old.owner.cgroup = "/seeded";
    seed.connections.push_back(old);
    t.seed(seed);
    auto a = t.add(decode(cm_event(100, 7, CmEventType::addr_resolved)), {});
    REQUIRE(a);
    CHECK(a->connection.owner.cgroup == docker);
    REQUIRE(a->connection.owner.container);
    auto up = t.add(decode(cm_event(130, 7, CmEventType::established)), {});
    REQUIRE(up);
    CHECK(up->connection.owner.container == a->connection.owner.container);
    auto gone = t.add(decode(record(RDMASTAT_TRACE_DESTROY, 150, 7, 40000, 7175)), {});
    REQUIRE(gone);
    CHECK(gone->connection.owner.cgroup == docker);
    CHECK(asked == std::vector<std::uint32_t>{4242}); // once for id 7's three records
    // Another process's records for a seeded id: that one is asked about; an
    // id never numbered is filled record by record.
    rdmastat_trace_record other = cm_event(160, 3, CmEventType::disconnected);
    other.pid = 77;
    auto o = t.add(decode(other), {});
    REQUIRE(o);
    CHECK_FALSE(o->connection.owner.cgroup);
    rdmastat_trace_record unroutable = cm_event(170, 0, CmEventType::addr_error, -113);
    unroutable.flags &= ~(RDMASTAT_TRACE_F_TRACKED | RDMASTAT_TRACE_F_DEVICE);
    auto failed = t.add(decode(unroutable), {});
    REQUIRE(failed);
    CHECK(failed->connection.owner.cgroup == docker);
    CHECK(asked == std::vector<std::uint32_t>{4242, 77, 4242});
}
