// SPDX-License-Identifier: MIT
// RDMA netlink's monitor (collect/nldev_monitor.h): the sys settings that say
// whether a kernel sends device events, and the events themselves, replayed
// from the lab's eventsedge scenario (siw0 deleted, added again and renamed
// while rdmastat-capture --monitor listened), checked against `rdma -j dev show`
// and `rdma -j link show` of the same moments; then -E's text and JSON lines
// and serve's counters for them. The captures are eventsedge's evidence
// (monitor/sys.bin, monitor/monitor.bin, dev-*.json, link-after-readd.json),
// copied here by hand: make fixtures does not refresh them.
#include "analysis/event_metrics.h"
#include "catch_compat.hpp"
#include "collect/nldev.h"
#include "collect/nldev_monitor.h"
#include "render/monitor.h"
#include "render/output.h"
#include "render/prometheus.h"
#include "support.h"

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <nlohmann/json.hpp>
#include <rdma/rdma_netlink.h>
#include <sstream>

using namespace rdmastat;
using namespace rdmastat::test;
using nlohmann::json;

namespace {

std::vector<Result<DeviceEvent>> parse_all(const Bytes& bytes, Status* stream = nullptr) {
    std::vector<Result<DeviceEvent>> out;
    Status st = parse_monitor_messages(bytes.data(), bytes.size(),
                                       [&](Result<DeviceEvent> e) { out.push_back(e); });
    if (stream) *stream = st;
    return out;
}

std::uint32_t index_in(const json& devices, const std::string& name) {
    for (const json& d : devices)
        if (d["ifname"] == name) return d["ifindex"];
    FAIL("no " << name);
    return 0;
}

// A monitor message built here: the kernel's layout, with what fill adds.
Bytes message(unsigned command, const std::function<void(nlmsghdr*)>& fill) {
    Bytes buf(MNL_SOCKET_BUFFER_SIZE);
    nlmsghdr* nlh = mnl_nlmsg_put_header(buf.data());
    nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, command);
    fill(nlh);
    buf.resize(nlh->nlmsg_len);
    return buf;
}

// The value of series in a Prometheus exposition; -1 when absent.
double value_of(const std::string& text, const std::string& series) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (line.starts_with(series + " ")) return std::stod(line.substr(series.size() + 1));
    return -1;
}

} // namespace

TEST_CASE("device events: 6.1 does not advertise the monitor", "[monitor]") {
    CHECK_FALSE(parse_monitor_mode(fixture_bytes("monitor-sys.bin")).take());
}

TEST_CASE("device events: siw0 removed, added again and renamed, as rdma saw it", "[monitor]") {
    // The kernels that send them; 7.2 also names renames.
    const std::string kernel = GENERATE(as<std::string>(), "6.12", "7.2");
    INFO("captures of kernel " << kernel);
    FixtureKernel k(kernel);
    CHECK(parse_monitor_mode(fixture_bytes("monitor-sys.bin")).take());
    const json before = json::parse(fixture_text("monitor-dev-before.json"));
    const json after = json::parse(fixture_text("monitor-dev-after.json"));
    json link;
    for (const json& l : json::parse(fixture_text("monitor-link-after.json")))
        if (l["ifname"] == "siw0") link = l;
    REQUIRE(link.is_object());

    Status stream = Ok{};
    std::vector<DeviceEvent> events;
    for (Result<DeviceEvent>& r : parse_all(fixture_bytes("monitor.bin"), &stream))
        events.push_back(r.take());
    REQUIRE(stream);
    // Gone, then back: registered, then its one port's netdev attached; then,
    // where the kernel tells, renamed and named back.
    REQUIRE(events.size() >= 3);
    CHECK(events[0].type == DeviceEventType::unregistered);
    CHECK(events[0].device_index == index_in(before, "siw0"));
    CHECK_FALSE(events[0].port);
    CHECK(events[1].type == DeviceEventType::registered);
    CHECK(events[1].device_index == index_in(after, "siw0"));
    CHECK(events[2].type == DeviceEventType::netdev_attached);
    CHECK(events[2].device_index == index_in(after, "siw0"));
    CHECK(events[2].port == link["port"].get<std::uint32_t>());
    CHECK(events[2].netdev == link["netdev"].get<std::string>());
    CHECK(events[2].netdev_index == link["netdev_index"].get<std::uint32_t>());
    for (std::size_t i = 0; i < 3; ++i)
        CHECK(events[i].device == "siw0");
    if (kernel == "7.2") {
        REQUIRE(events.size() == 5);
        CHECK(events[3].type == DeviceEventType::renamed);
        CHECK(events[3].device == "siwrenamed");
        CHECK(events[4].type == DeviceEventType::renamed);
        CHECK(events[4].device == "siw0");
        CHECK(events[4].device_index == index_in(after, "siw0"));
    } else {
        CHECK(events.size() == 3);
    }
    // A new device gets a new index: the kernel does not reuse it.
    CHECK(events[1].device_index != events[0].device_index);
}

TEST_CASE("device events: bad messages are named, other commands skipped, new types kept",
          "[monitor]") {
    auto attrs = [](std::optional<unsigned> type, bool with_device) {
        return [type, with_device](nlmsghdr* nlh) {
            if (with_device) {
                mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 7);
                mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "mlx5_0");
            }
            if (type)
                mnl_attr_put_u8(nlh, nldev_monitor::attr_event_type,
                                static_cast<std::uint8_t>(*type));
        };
    };
    Bytes stream = message(nldev_monitor::command, attrs(9, true));
    Bytes untyped = message(nldev_monitor::command, attrs(std::nullopt, true));
    Bytes other = message(RDMA_NLDEV_CMD_GET, attrs(0, true));
    // 7.2's NETDEV_RENAME names only the netdev; an attach of a netdev in
    // another namespace only its type.
    Bytes renamed = message(nldev_monitor::command, [](nlmsghdr* nlh) {
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_NDEV_INDEX, 4);
        mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_NDEV_NAME, "eth9");
        mnl_attr_put_u8(nlh, nldev_monitor::attr_event_type, 5);
    });
    Bytes bare = message(nldev_monitor::command, attrs(2, false));
    for (const Bytes* b : {&other, &untyped, &renamed, &bare})
        stream.insert(stream.end(), b->begin(), b->end());
    auto got = parse_all(stream);
    REQUIRE(got.size() == 4);
    REQUIRE(got[0]);
    CHECK(got[0].value().device == "mlx5_0");
    CHECK(got[0].value().device_index == 7u);
    CHECK(name_of(got[0].value().type) == "9"); // a type newer than the tool
    REQUIRE_FALSE(got[1]);
    CHECK(got[1].error() == "device event message 3: event type: missing");
    REQUIRE(got[2]);
    CHECK(got[2].value().type == DeviceEventType::netdev_renamed);
    CHECK_FALSE(got[2].value().device);
    CHECK_FALSE(got[2].value().device_index);
    CHECK(got[2].value().netdev == "eth9");
    CHECK(got[2].value().netdev_index == 4u);
    REQUIRE(got[3]);
    CHECK(got[3].value().type == DeviceEventType::netdev_attached);
    CHECK_FALSE(got[3].value().device);
    CHECK_FALSE(got[3].value().port);

    // A header that does not fit ends the stream, as a Failure.
    Bytes cut(stream.begin(), stream.begin() + 10);
    Status st = Ok{};
    CHECK(parse_all(cut, &st).empty());
    CHECK_FALSE(st);

    // The settings' reply of another command is refused.
    CHECK_FALSE(parse_monitor_mode(other));
}

TEST_CASE("device events: the sys settings are one request, not a dump", "[monitor]") {
    Bytes buf(MNL_SOCKET_BUFFER_SIZE);
    nlmsghdr* nlh = mnl_nlmsg_put_header(buf.data());
    fill_nldev_request(nlh, {RDMA_NLDEV_CMD_SYS_GET, std::nullopt, std::nullopt});
    CHECK(nlh->nlmsg_type == RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_SYS_GET));
    CHECK((nlh->nlmsg_flags & NLM_F_ACK));
    CHECK_FALSE((nlh->nlmsg_flags & NLM_F_DUMP));
}

TEST_CASE("device events: -E's lines and serve's counters", "[monitor][render]") {
    ConnectionEvent gone, attached, renamed;
    gone.kind = attached.kind = renamed.kind = EventKind::device;
    gone.device_event = DeviceEvent{DeviceEventType::unregistered, 2u, "siw0", {}, {}, {}};
    attached.device_event =
        DeviceEvent{DeviceEventType::netdev_attached, 3u, "siw0", 1u, 4u, std::string("veth0")};
    renamed.device_event =
        DeviceEvent{DeviceEventType::netdev_renamed, {}, {}, {}, 4u, std::string("eth9")};
    WallTime t{std::chrono::milliseconds(1795300874123)};
    gone.time = attached.time = renamed.time = t;
    std::vector<ConnectionEvent> events = {gone, attached, renamed};

    std::ostringstream text, lines;
    render_events(text, events, t);
    CHECK(text.str() == "2026-11-21T22:41:14.123Z UNREGISTER siw0/- index=2\n"
                        "2026-11-21T22:41:14.123Z NETDEV_ATTACH siw0/1 index=3 netdev=veth0 "
                        "netdev_index=4\n"
                        "2026-11-21T22:41:14.123Z NETDEV_RENAME -/- netdev=eth9 netdev_index=4\n");
    // JSON: no connection, the device under the keys devices and ports use;
    // the source is the monitor's whatever the batch's.
    json_writer()->events(lines, events, t, EventSource::tracepoints);
    std::istringstream each(lines.str());
    std::vector<json> js;
    for (std::string line; std::getline(each, line);)
        js.push_back(json::parse(line));
    REQUIRE(js.size() == 3);
    CHECK(js[0] == json::parse(R"({"version":3,"source":"netlink",
        "time":"2026-11-21T22:41:14.123Z","event":"device","device_event":"UNREGISTER",
        "device":{"name":"siw0","index":2}})"));
    CHECK(js[1]["device"] ==
          json::parse(R"({"name":"siw0","index":3,"port":1,"netdev":"veth0","netdev_index":4})"));
    CHECK(js[1]["device_event"] == "NETDEV_ATTACH");
    CHECK(js[2]["device"] == json::parse(R"({"netdev":"eth9","netdev_index":4})"));

    EventMetrics m;
    for (const ConnectionEvent& e : {gone, attached})
        m.add(e);
    m.add(gone);
    m.set_overruns(2);
    m.set_overruns(1); // counts only grow
    std::ostringstream prom;
    write_prometheus(prom, m.families());
    CHECK(value_of(prom.str(),
                   R"(rdmastat_device_events_total{device="siw0",event="UNREGISTER"})") == 2);
    CHECK(value_of(prom.str(),
                   R"(rdmastat_device_events_total{device="siw0",event="NETDEV_ATTACH"})") == 1);
    CHECK(value_of(prom.str(), R"(rdmastat_events_lost_total{cause="netlink_overrun"})") == 2);
    // A device event is nothing else: no CM event, failure or connection.
    CHECK(prom.str().find("rdmastat_cm_events_total{") == std::string::npos);
    CHECK(prom.str().find("rdmastat_connections_closed_total{") == std::string::npos);
}
