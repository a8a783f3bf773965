// SPDX-License-Identifier: MIT
// The QP programs' records (trace/bpf/qp.bpf.c) without a kernel: decoded,
// then followed by QpTracker through a raw-verbs QP's life and an rdma_cm
// QP's, which makes no line. Records are built here from record.h, with the
// fields the lab's rxe runs give (tests/lab/judges/events.cpp judges those).
#include "analysis/cm_trace.h"
#include "analysis/event_metrics.h"
#include "analysis/qp_trace.h"
#include "catch_compat.hpp"
#include "render/monitor.h"
#include "render/output.h"
#include "render/prometheus.h"
#include "support.h"
#include "trace/bpf/record.h"
#include "trace/decode.h"

#include <arpa/inet.h>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace rdmastat;
using rdmastat::test::json_writer;

namespace {

constexpr std::uint32_t rc = 2, ud = 4;

rdmastat_trace_record qp_record(std::uint16_t kind, std::uint64_t ms, std::uint32_t qpn,
                                std::uint32_t type = rc) {
    rdmastat_trace_record r;
    std::memset(&r, 0, sizeof(r));
    r.time_ns = ms * 1'000'000;
    r.kind = kind;
    r.flags = RDMASTAT_TRACE_F_USER | RDMASTAT_TRACE_F_DEVICE;
    r.node_type = 1; // RDMA_NODE_IB_CA
    r.qp_num = qpn;
    r.qp_type = type;
    r.port_num = 1;
    r.pid = 777;
    r.uid = 1000;
    std::strcpy(r.name, "ibv_rc_pingpong");
    std::strcpy(r.device, "rxe0");
    return r;
}

// A move to state; to RTR, with the peer's QP number and a RoCE path.
rdmastat_trace_record modify(std::uint64_t ms, std::uint32_t qpn, std::uint32_t state,
                             std::uint32_t rqpn = 0) {
    rdmastat_trace_record r = qp_record(RDMASTAT_TRACE_QP_MODIFIED, ms, qpn);
    r.qp_state = state;
    r.attr_mask = 0x1; // IB_QP_STATE
    if (rqpn) {
        r.attr_mask |= 0x80 | 0x100000; // IB_QP_AV, IB_QP_DEST_QPN
        r.remote_qpn = rqpn;
        r.flags |= RDMASTAT_TRACE_F_AV;
        const std::uint8_t peer[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 9, 0, 1};
        const std::uint8_t self[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 9, 0, 2};
        std::memcpy(r.gid, peer, 16);
        std::memcpy(r.sgid, self, 16);
    }
    return r;
}

TraceEvent decode(const rdmastat_trace_record& r) {
    return decode_trace_record(&r, sizeof(r)).take();
}

std::vector<ConnectionEvent> feed(QpTracker& t, const rdmastat_trace_record& r) {
    return t.add(decode(r), Transport::roce, {});
}

} // namespace

TEST_CASE("QP records decode to a verbs QP and what its change asks", "[trace][verbs]") {
    TraceEvent e = decode(modify(3, 17, 2, 18));
    CHECK(e.kind == TraceKind::qp_modified);
    const Connection& c = e.connection;
    CHECK(c.via == Via::verbs);
    CHECK(!c.cm_id);
    CHECK(!c.state);
    CHECK(!c.port_space);
    CHECK(c.device == "rxe0");
    CHECK(c.port == 1u);
    REQUIRE(c.qp);
    CHECK(c.qp->number == 17u);
    CHECK(c.qp->type == QpType::rc);
    CHECK(c.owner.pid == 777u);
    CHECK(c.owner.comm == "ibv_rc_pingpong");
    REQUIRE(e.qp_change);
    CHECK(e.qp_change->state == QpState::rtr);
    CHECK(e.qp_change->remote_number == 18u);
    REQUIRE(e.qp_change->dgid);
    CHECK(unmapped(*e.qp_change->dgid).to_string() == "10.9.0.1");
    REQUIRE(e.qp_change->sgid);
    CHECK(unmapped(*e.qp_change->sgid).to_string() == "10.9.0.2");
    CHECK(!e.qp_change->cm);

    // A state past ERR and an async event's number are kept as they are.
    rdmastat_trace_record odd = modify(1, 5, 9);
    CHECK(!decode(odd).qp_change->state);
    rdmastat_trace_record async = qp_record(RDMASTAT_TRACE_QP_ASYNC_EVENT, 1, 5);
    async.event = 1;
    CHECK(decode(async).qp_change->async_event == 1u);
    CHECK(ib_event_name(1) == "QP_FATAL");
    CHECK(ib_event_name(99) == "99");
}

TEST_CASE("a raw-verbs QP's life: created, each move, the peer at RTR, closed", "[trace][verbs]") {
    QpTracker t;
    CHECK(feed(t, qp_record(RDMASTAT_TRACE_QP_CREATED, 100, 17)).empty()); // waits for a move
    auto init = feed(t, modify(101, 17, 1));
    REQUIRE(init.size() == 2);
    CHECK(init[0].kind == EventKind::qp_created);
    CHECK(init[0].connection.qp->state == QpState::reset);
    CHECK(init[0].time == trace_wall_time(100'000'000, {})); // when it was made
    CHECK(init[1].kind == EventKind::changed);
    CHECK(init[1].old_qp_state == QpState::reset);
    CHECK(init[1].connection.qp->state == QpState::init);
    CHECK(!init[1].connection.peer);

    auto rtr = feed(t, modify(150, 17, 2, 18));
    REQUIRE(rtr.size() == 1);
    const Connection& c = rtr[0].connection;
    CHECK(rtr[0].old_qp_state == QpState::init);
    CHECK(c.qp->state == QpState::rtr);
    CHECK(c.qp->remote_number == 18u);
    REQUIRE(c.peer);
    CHECK(c.peer->address.to_string() == "10.9.0.1");
    CHECK(c.peer->port == 0);
    REQUIRE(c.local);
    CHECK(c.local->address.to_string() == "10.9.0.2");
    CHECK(c.transport == Transport::roce);
    std::ostringstream text;
    render_events(text, rtr, {});
    CHECK(text.str().find(" changed rxe0/1 roce 10.9.0.2:qp17 10.9.0.1:qp18 INIT->RTR qpn=17 "
                          "rqpn=18 ") != std::string::npos);

    auto rts = feed(t, modify(151, 17, 3));
    REQUIRE(rts.size() == 1);
    CHECK(rts[0].connection.peer == c.peer); // the path stays
    // A refused change changes nothing.
    rdmastat_trace_record refused = modify(152, 17, 4);
    refused.status = -22;
    CHECK(feed(t, refused).empty());

    auto closed = feed(t, qp_record(RDMASTAT_TRACE_QP_DESTROYED, 1600, 17));
    REQUIRE(closed.size() == 1);
    CHECK(closed[0].kind == EventKind::closed);
    CHECK(closed[0].ending == Ending::closed);
    REQUIRE(closed[0].lifetime);
    CHECK(closed[0].lifetime->count() == 1'500'000'000);
    CHECK(closed[0].connection.qp->remote_number == 18u);
    std::ostringstream js;
    json_writer()->events(js, closed, {}, EventSource::tracepoints);
    auto j = nlohmann::json::parse(js.str());
    CHECK(j["event"] == "closed");
    CHECK(j["connection"]["via"] == "verbs");
    CHECK(j["connection"]["qp"]["remote_number"] == 18);
    CHECK(j["connection"]["peer"]["address"] == "10.9.0.1");
    CHECK(j["lifetime_ms"] == 1500.0);
    CHECK(t.live() == 0);
}

TEST_CASE("a QP that breaks: ERR, the driver's event named, the ending", "[trace][verbs]") {
    QpTracker t;
    feed(t, qp_record(RDMASTAT_TRACE_QP_CREATED, 1, 30));
    feed(t, modify(2, 30, 1));
    feed(t, modify(3, 30, 2, 31));
    feed(t, modify(4, 30, 3));
    rdmastat_trace_record fatal = qp_record(RDMASTAT_TRACE_QP_ASYNC_EVENT, 5, 30);
    fatal.event = 1;
    auto ev = feed(t, fatal);
    REQUIRE(ev.size() == 1);
    CHECK(ev[0].kind == EventKind::qp_event);
    CHECK(ev[0].reason == "QP_FATAL");
    // A news event is shown, and is no failure.
    rdmastat_trace_record est = qp_record(RDMASTAT_TRACE_QP_ASYNC_EVENT, 5, 30);
    est.event = 4;
    REQUIRE(feed(t, est).size() == 1);
    auto err = feed(t, modify(6, 30, 6));
    REQUIRE(err.size() == 1);
    CHECK(err[0].old_qp_state == QpState::rts);
    CHECK(err[0].connection.qp->state == QpState::err);
    auto closed = feed(t, qp_record(RDMASTAT_TRACE_QP_DESTROYED, 7, 30));
    REQUIRE(closed.size() == 1);
    CHECK(closed[0].ending == Ending::error);
    CHECK(closed[0].reason == "QP_FATAL");

    // serve --events counts each move by its new state, and the event.
    EventMetrics m;
    for (const auto& e : {ev[0], err[0], closed[0]})
        m.add(e);
    std::ostringstream prom;
    write_prometheus(prom, m.families());
    CHECK(prom.str().find("rdmastat_qp_transitions_total{device=\"rxe0\",state=\"ERR\"} 1\n") !=
          std::string::npos);
    CHECK(
        prom.str().find("rdmastat_qp_async_events_total{device=\"rxe0\",event=\"QP_FATAL\"} 1\n") !=
        std::string::npos);
    CHECK(prom.str().find("rdmastat_connections_closed_total{device=\"rxe0\"} 1\n") !=
          std::string::npos);
}

TEST_CASE("rdma_cm's QPs make no verbs lines", "[trace][verbs]") {
    QpTracker t;
    // librdmacm: made, then moved to INIT with rdma_init_qp_attr()'s attributes.
    feed(t, qp_record(RDMASTAT_TRACE_QP_CREATED, 1, 40));
    rdmastat_trace_record init = modify(2, 40, 1);
    init.flags |= RDMASTAT_TRACE_F_CM | RDMASTAT_TRACE_F_TRACKED;
    init.cm_id = 3;
    CHECK(decode(init).qp_change->cm_id == 3u);
    CHECK(feed(t, init).empty());
    // Later moves without them (librdmacm's move to ERR at disconnect) too.
    CHECK(feed(t, modify(3, 40, 6)).empty());
    CHECK(feed(t, qp_record(RDMASTAT_TRACE_QP_DESTROYED, 4, 40)).empty());
    // iw_cm moves the destroyed id's QP to ERR while siw's destroy waits for
    // it: after the destroy's record, and still no line.
    CHECK(feed(t, modify(4, 40, 6)).empty());
    // The number comes back for a raw-verbs QP: that one is followed.
    feed(t, qp_record(RDMASTAT_TRACE_QP_CREATED, 5, 40));
    CHECK(feed(t, modify(6, 40, 1)).size() == 2);

    // A kernel id's QP, made by rdma_create_qp() in rdma_cm's name.
    rdmastat_trace_record k = qp_record(RDMASTAT_TRACE_QP_CREATED, 7, 41);
    k.flags = RDMASTAT_TRACE_F_DEVICE;
    std::memset(k.name, 0, sizeof(k.name));
    std::strcpy(k.name, "rdma_cm");
    feed(t, k);
    rdmastat_trace_record km = modify(8, 41, 1);
    km.flags = RDMASTAT_TRACE_F_DEVICE;
    CHECK(feed(t, km).empty());

    // A QP an id named before its first move (claim()), and one in the
    // seed's cm connections.
    feed(t, qp_record(RDMASTAT_TRACE_QP_CREATED, 9, 42));
    t.claim("rxe0", 42);
    CHECK(feed(t, modify(10, 42, 1)).empty());
    // An application's QP, shown, then named by an id (or moved with
    // rdma_cm's attributes) stays followed.
    feed(t, qp_record(RDMASTAT_TRACE_QP_CREATED, 9, 44));
    CHECK(feed(t, modify(10, 44, 1)).size() == 2);
    t.claim("rxe0", 44);
    rdmastat_trace_record cm_rtr = modify(11, 44, 2, 45);
    cm_rtr.flags |= RDMASTAT_TRACE_F_CM;
    CHECK(feed(t, cm_rtr).size() == 1);
    CHECK(feed(t, qp_record(RDMASTAT_TRACE_QP_DESTROYED, 12, 44)).size() == 1);
    Snapshot seed;
    Connection cm;
    cm.device = "rxe0";
    cm.cm_id = 9;
    cm.qp.emplace().number = 43;
    seed.connections.push_back(cm);
    t.seed(seed);
    CHECK(feed(t, modify(11, 43, 6)).empty());
}

TEST_CASE("QPs older than the run, and those the listing leaves out", "[trace][verbs]") {
    QpTracker t;
    Snapshot seed;
    Connection v;
    v.device = "rxe0";
    v.via = Via::verbs;
    Qp& q = v.qp.emplace();
    q.number = 50;
    q.type = QpType::rc;
    q.state = QpState::rts;
    q.remote_number = 51;
    seed.connections.push_back(v);
    t.seed(seed);
    auto err = feed(t, modify(1, 50, 6));
    REQUIRE(err.size() == 1); // no qp_created: it was listed before
    CHECK(err[0].old_qp_state == QpState::rts);
    CHECK(err[0].connection.qp->remote_number == 51u);
    auto closed = feed(t, qp_record(RDMASTAT_TRACE_QP_DESTROYED, 2, 50));
    REQUIRE(closed.size() == 1);
    CHECK(!closed[0].lifetime); // born before the run
    // A move to ERR is the application's (a flush): no fatal event, no error.
    CHECK(closed[0].ending == Ending::closed);
    CHECK(!closed[0].reason);

    // Unknown to the seed (then in RESET or INIT): its move comes, without
    // the state before, and no creation it did not see.
    auto old = feed(t, modify(3, 60, 2, 61));
    REQUIRE(old.size() == 1);
    CHECK(old[0].kind == EventKind::changed);
    CHECK(!old[0].old_qp_state);

    // Records queued before the seed's dump began are already in it.
    QpTracker s;
    Snapshot at;
    Connection rts = v;
    rts.qp->number = 90;
    at.connections.push_back(rts);
    s.seed(at, 50'000'000);
    CHECK(feed(s, modify(49, 90, 2, 91)).empty()); // RTR, before the seed's RTS
    CHECK(feed(s, modify(51, 90, 6)).size() == 1);

    // An id naming a number no QP here has leaves no claim behind.
    s.claim("rxe0", 99);
    CHECK(feed(s, modify(52, 99, 1)).size() == 1);

    // A GSI QP is no connection; a UD QP is (as -l lists it); a QP made and
    // destroyed without a move makes no line.
    feed(t, qp_record(RDMASTAT_TRACE_QP_CREATED, 4, 1, 1));
    rdmastat_trace_record gsi = modify(5, 1, 1);
    gsi.qp_type = 1;
    CHECK(feed(t, gsi).empty());
    feed(t, qp_record(RDMASTAT_TRACE_QP_CREATED, 5, 70, ud));
    rdmastat_trace_record u = modify(6, 70, 1);
    u.qp_type = ud;
    CHECK(feed(t, u).size() == 2);
    feed(t, qp_record(RDMASTAT_TRACE_QP_CREATED, 7, 80));
    CHECK(feed(t, qp_record(RDMASTAT_TRACE_QP_DESTROYED, 8, 80)).empty());
}
