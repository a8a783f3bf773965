// SPDX-License-Identifier: MIT
// The snapshot schema is described once (model/schema.h) and every writer and
// reader follows the description. A member the description forgets would be
// lost on the way through a file: a snapshot with every member set must come
// back equal, and what the writer wrote must be the documented JSON.
#include "catch_compat.hpp"
#include "common/text.h"
#include "model/schema.h"
#include "support.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

using namespace rdmastat;
using namespace rdmastat::test;

namespace {

Endpoint ep(const char* address, std::uint16_t port) {
    return {IpAddress::parse(address).value(), port};
}

// Every member of every record set to something other than its default.
Snapshot full_snapshot() {
    Snapshot s;
    s.source = SnapshotSource::file;
    Device d;
    d.index = 3;
    d.name = "mlx5_0";
    d.transport = Transport::roce;
    d.node_type = NodeType::ca;
    d.protocol = "roce";
    d.driver = "mlx5_core";
    d.firmware = "16.35.2000";
    d.node_guid = Guid{0x0002c90300001234};
    d.ports.push_back(
        Port{1, PortState::active, PortPhysState::link_up, "enp1s0", 7,
             std::vector<IpAddress>{*IpAddress::parse("10.0.0.1"), *IpAddress::parse("fd00::1")},
             std::vector<Gid>{Gid{3, *IpAddress::parse("::ffff:10.0.0.1"), GidType::roce_v2,
                                  "enp1s0", 100, IpAddress::parse("10.0.0.1")}}});
    s.devices.push_back(d);

    Connection c;
    c.device = "mlx5_0";
    c.port = 1;
    c.transport = Transport::roce;
    c.port_space = PortSpace::udp;
    c.cm_id = 42;
    c.state = CmState::connect;
    c.internal = true;
    c.local = ep("10.0.0.1", 7174);
    c.peer = ep("fe80::1", 40000);
    c.mapped_local = ep("10.0.0.1", 7175);
    c.mapped_peer = ep("10.0.0.2", 40001);
    c.mapped = false;
    c.qp = Qp{0x11, QpType::ud, QpState::rts, std::nullopt, std::nullopt};
    c.owner = Owner{1234, 1235, "rping", 1000, "alice", std::nullopt, {}, {}, {}};
    c.owner.cgroup = "/kubepods.slice/kubepods-besteffort.slice/cri-containerd-0a1b.scope";
    c.owner.container = Container{ContainerRuntime::containerd, std::string(64, 'a')};
    c.owner.pod = Pod{"5f2c0d0e-1111-2222-3333-444455556666", PodQos::besteffort};
    c.netns = 4026531840u;
    s.connections.push_back(c);
    Connection k = c;
    k.cm_id = 43;
    k.internal = false;
    k.qp.reset();
    k.qp_unjoined = UnjoinedQp{0x12, QpUnjoined::other_owner};
    k.owner = Owner{};
    k.owner.kernel = "nvme_rdma";
    k.state = static_cast<CmState>(200); // a state a newer kernel adds
    s.connections.push_back(k);
    // A verbs connection with every member of its QP's path.
    Connection v;
    v.device = "rxe0";
    v.transport = Transport::roce;
    v.via = Via::verbs;
    v.local = ep("10.0.0.1", 0);
    v.peer = ep("10.0.0.2", 0);
    v.qp = Qp{0x13, QpType::rc, QpState::err, 0x14,
              QpPath{1, IpAddress::parse("::ffff:10.0.0.2"), 1, IpAddress::parse("::ffff:10.0.0.1"),
                     0x12345, 96, 64, 7, 3, 1024}};
    s.connections.push_back(v);

    s.host_sockets_collected = s.processes_collected = s.resources_collected = true;
    s.counters_collected = true;
    s.host_sockets.push_back(HostSocket{TcpState::established, ep("10.0.0.1", 7174),
                                        ep("10.0.0.2", 40000), 99, 1000, 1234, 5, "siw0", 42});
    Process p;
    p.pid = 1234;
    p.comm = "rping";
    p.uid = 1000;
    p.user = "alice";
    p.inspected = false;
    p.files.push_back(OpenFile{3, "/dev/infiniband/rdma_cm", 77});
    s.processes.push_back(p);
    Resource r;
    r.kind = ResourceKind::cq;
    r.device = "mlx5_0";
    r.number = 9;
    r.owner = c.owner;
    r.details = {{"cqe", "256"}, {"adaptive", "0"}};
    s.resources.push_back(r);
    s.port_counters.push_back(
        PortCounters{"mlx5_0", 1, CounterSource::sysfs, {{"a_pkts", 1}, {"b_pkts", 2}}});
    s.qp_counters.push_back(QpCounters{"mlx5_0", 1, 4, {0x11, 0x12}, {{"rx", 5}}});
    return s;
}

// Every list of a, checked one by one so that a failure names the record.
void same_records(const Snapshot& a, const Snapshot& b) {
    CHECK(a.devices == b.devices);
    CHECK(a.connections == b.connections);
    CHECK(a.host_sockets == b.host_sockets);
    CHECK(a.processes == b.processes);
    CHECK(a.resources == b.resources);
    CHECK(a.port_counters == b.port_counters);
    CHECK(a.qp_counters == b.qp_counters);
}

} // namespace

TEST_CASE("every member of every record survives a snapshot file", "[snapshot][schema]") {
    const Snapshot s = full_snapshot();
    const std::string text = snapshot_to_text(s);
    Snapshot back = snapshot_from_text(text).take();
    same_records(back, s);
    CHECK(snapshot_to_text(back) == text);

    // What was written is the documented JSON, checked key by key.
    auto j = nlohmann::json::parse(text);
    CHECK(j["version"] == 1);
    CHECK(j["devices"][0]["node_guid"] == "0002:c903:0000:1234");
    CHECK(j["devices"][0]["ports"][0]["port"] == 1);
    const auto& c = j["connections"][0];
    CHECK(c["port_space"] == "udp");
    CHECK(c["state"] == "CONNECT");
    CHECK(c["internal"] == true);
    CHECK(c["peer"]["address"] == "fe80::1");
    CHECK(c["qp"]["type"] == "UD");
    CHECK(c["qp"]["state"] == "RTS");
    CHECK(c["mapped"] == false);
    CHECK(c["owner"]["user"] == "alice");
    const auto& k = j["connections"][1];
    CHECK(k["state"] == "200"); // no name: its number
    CHECK(k["qp"].is_null());   // written, as null
    CHECK(k["qp_unjoined"]["reason"] == "other_owner");
    CHECK(k["owner"] == nlohmann::json{{"kernel", "nvme_rdma"}});
    CHECK_FALSE(k.contains("internal")); // written only when true
    CHECK(j["host_sockets"][0]["inode"] == 99);
    CHECK(j["processes"][0]["inspected"] == false);
    CHECK(j["resources"][0]["details"]["cqe"] == "256");
    CHECK(j["port_counters"][0]["source"] == "sysfs");
    CHECK(j["port_counters"][0]["counters"]["b_pkts"] == 2);
    CHECK(j["qp_counters"][0]["qps"] == nlohmann::json{17, 18});
}

TEST_CASE("keys a newer rdmastat adds are skipped, in every record", "[snapshot][schema]") {
    const Snapshot s = full_snapshot();
    auto j = nlohmann::ordered_json::parse(snapshot_to_text(s));
    j["future"] = 1;
    for (const char* list : {"devices", "connections", "host_sockets", "processes", "resources",
                             "port_counters", "qp_counters"})
        for (auto& item : j[list])
            item["future"] = {{"nested", true}};
    j["devices"][0]["ports"][0]["future"] = 1;
    j["connections"][0]["local"]["future"] = 1;
    j["connections"][0]["qp"]["future"] = 1;
    j["connections"][0]["owner"]["future"] = 1;
    j["processes"][0]["files"][0]["future"] = 1;
    Snapshot back = snapshot_from_text(j.dump()).take();
    same_records(back, s);
}

TEST_CASE("a reader refuses what the schema does not allow, naming the path",
          "[snapshot][schema]") {
    const Snapshot s = full_snapshot();
    const auto doc = nlohmann::ordered_json::parse(snapshot_to_text(s));
    auto error = [&](auto edit) {
        auto d = doc;
        edit(d);
        auto r = snapshot_from_text(d.dump());
        REQUIRE_FALSE(r.ok());
        return r.error();
    };
    using Catch::Contains;
    CHECK_THAT(error([](auto& d) { d["connections"][0]["qp"]["type"] = "RCX"; }),
               Contains("connections[0].qp.type: unknown QP type 'RCX'"));
    CHECK_THAT(error([](auto& d) { d["connections"][0]["port_space"] = "sctp"; }),
               Contains("connections[0].port_space: unknown port space 'sctp'"));
    // Names are exact: the writer never writes another case.
    CHECK_THAT(error([](auto& d) { d["connections"][0]["state"] = "connect"; }),
               Contains("unknown CM state 'connect'"));
    CHECK_THAT(error([](auto& d) { d["connections"][0]["state"] = nullptr; }),
               Contains("connections[0].state"));
    CHECK_THAT(error([](auto& d) { d["port_counters"][0]["source"] = "procfs"; }),
               Contains("port_counters[0].source: unknown counter source 'procfs'"));
    CHECK_THAT(error([](auto& d) { d["port_counters"][0]["counters"]["a_pkts"] = -1; }),
               Contains("port_counters[0].counters.a_pkts: expected a number"));
    CHECK_THAT(error([](auto& d) {
                   d["resources"][0]["details"] = {1, 2};
               }),
               Contains("resources[0].details: expected an object"));
    CHECK_THAT(error([](auto& d) { d["host_sockets"][0].erase("peer"); }),
               Contains("host_sockets[0].peer: missing"));
    CHECK_THAT(error([](auto& d) { d["host_sockets"][0]["state"] = "ESTABLISHED"; }),
               Contains("host_sockets[0].state: unknown TCP state 'ESTABLISHED'"));
    CHECK_THAT(error([](auto& d) { d["devices"][0]["ports"][0]["state"] = "UP"; }),
               Contains("devices[0].ports[0].state: unknown port state 'UP'"));
    CHECK_THAT(error([](auto& d) { d["devices"][0]["node_type"] = "CA"; }),
               Contains("devices[0].node_type: unknown node type 'CA'"));
    CHECK_THAT(error([](auto& d) { d["processes"][0]["files"][0]["fd"] = "3"; }),
               Contains("processes[0].files[0].fd: expected a number"));
}

TEST_CASE("counters are read back sorted by name, whatever order the file has",
          "[snapshot][schema]") {
    Snapshot s = full_snapshot();
    std::swap(s.port_counters[0].counters[0], s.port_counters[0].counters[1]);
    Snapshot back = snapshot_from_text(snapshot_to_text(s)).take();
    REQUIRE(back.port_counters[0].counters.size() == 2);
    CHECK(back.port_counters[0].counters[0].name == "a_pkts");
    CHECK(back.port_counters[0].counters[1].name == "b_pkts");
}

TEST_CASE("a kernel owner is written as the kernel alone, whatever a file gave it",
          "[snapshot][schema]") {
    auto j = nlohmann::ordered_json::parse(snapshot_to_text(full_snapshot()));
    j["connections"][1]["owner"] = {{"pid", 5}, {"comm", "kworker"}, {"kernel", "nvme_rdma"}};
    Snapshot back = snapshot_from_text(j.dump()).take();
    auto again = nlohmann::json::parse(snapshot_to_text(back));
    CHECK(again["connections"][1]["owner"] == nlohmann::json{{"kernel", "nvme_rdma"}});
}

TEST_CASE("every key the schema writes is plain: schema_key() writes it unescaped", "[schema]") {
    // A sink that records the keys schema::write gives as schema keys.
    struct Keys {
        std::set<std::string> seen;
        void begin_object() {}
        void end_object() {}
        void begin_array() {}
        void end_array() {}
        void key(std::string_view) {}
        void schema_key(std::string_view k) { seen.emplace(k); }
        void string(std::string_view) {}
        void number(std::uint64_t) {}
        void boolean(bool) {}
        void null() {}
    } keys;
    const Snapshot s = full_snapshot();
    auto each = [&](const auto& list) {
        for (const auto& item : list)
            schema::write(item, keys);
    };
    each(s.devices);
    each(s.connections);
    each(s.host_sockets);
    each(s.processes);
    each(s.resources);
    each(s.port_counters);
    each(s.qp_counters);
    // Every member of the records full_snapshot() fills, kernel owners included.
    for (const char* k :
         {"device", "cm_id", "mapped_peer", "qp_unjoined", "netns", "kernel", "comm", "cgroup",
          "container", "runtime", "id", "pod", "qos", "ports", "node_guid", "files", "counters"})
        CHECK(keys.seen.count(k));
    for (const std::string& k : keys.seen) {
        INFO(k);
        CHECK(!k.empty());
        CHECK(std::all_of(k.begin(), k.end(),
                          [](char c) { return json_plain[static_cast<unsigned char>(c)]; }));
    }
}
