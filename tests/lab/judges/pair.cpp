// SPDX-License-Identifier: MIT
// [pair] tests of the two-host lab (tests/lab/pair): two guests joined by a
// siw link and an rxe link, connections across them, and the fabric view the
// host took of them through a real Prometheus and from the guests' snapshots,
// before and after b's side went away without telling a. One of them is made
// with raw verbs (ibv_rc_pingpong on rxe), and both guests have rdmastat.ko:
// its ends carry their paths, and the views join them by GID and QP number.
#include "catch_compat.hpp"
#include "collect/snapshot_file.h"
#include "evidence.h"
#include "support.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

using namespace rdmastat;
using namespace rdmastat::test;
using nlohmann::json;

namespace {

// Guest a serves, guest b connects: the ports of the cross-host pairs, the
// device each runs on, and a's address on it.
struct Pair {
    unsigned port;
    const char* device;
    const char* server;
    const char* client;
};
constexpr Pair rping_pairs[] = {
    {7400, "siw0", "10.8.1.1", "10.8.1.2"},
    {7401, "rxe0", "10.8.2.1", "10.8.2.2"},
    {7402, "rxe0", "fd00:8:2::1", "fd00:8:2::2"},
};

// "10.8.1.1:7400", "[fd00:8:2::1]:7402": as the text outputs write an endpoint.
std::string endpoint_str(const char* address, unsigned port) {
    const std::string a(address);
    return (a.find(':') == std::string::npos ? a : "[" + a + "]") + ":" + std::to_string(port);
}

const Evidence on_host{"host"};
const Evidence on_a{"a/fabric"};
const Evidence on_b{"b/fabric"};

// The Prometheus instance of guest a or b, as the driver recorded it.
std::string instance(char host) {
    std::istringstream in(on_host.text("instances"));
    std::string line;
    while (std::getline(in, line))
        if (line.size() > 2 && line[0] == host && line[1] == '=') return line.substr(2);
    FAIL("no instance for guest " << host);
    return {};
}

bool is_verbs(const json& c) {
    return c.value("via", "cm") == "verbs";
}

// The ids of a snapshot on PORT (local or peer) that are not listeners.
std::vector<json> ids_on(const json& snapshot, unsigned port) {
    std::vector<json> out;
    for (const json& c : snapshot["connections"])
        if (!is_verbs(c) && c["state"] != "LISTEN" &&
            (c["local"]["port"] == port || c["peer"]["port"] == port))
            out.push_back(c);
    return out;
}

// The ibv_rc_pingpong verbs connections of a snapshot.
std::vector<json> pingpong_of(const json& snapshot) {
    std::vector<json> out;
    for (const json& c : snapshot["connections"])
        if (is_verbs(c) && c["owner"].value("comm", "") == "ibv_rc_pingpong") out.push_back(c);
    return out;
}

// The view's rows of verbs connections.
std::vector<json> verbs_rows(const json& view) {
    std::vector<json> out;
    for (const json& row : view["connections"])
        if (is_verbs(row["ends"][0]["connection"])) out.push_back(row);
    return out;
}

// The view's rows whose first end (a cm id) is bound to PORT.
std::vector<json> rows_on(const json& view, unsigned port) {
    std::vector<json> out;
    for (const json& row : view["connections"])
        if (!is_verbs(row["ends"][0]["connection"]) &&
            row["ends"][0]["connection"]["local"]["port"] == port)
            out.push_back(row);
    return out;
}

std::string owner_comm(const json& c) {
    const json& o = c["owner"];
    if (o.contains("kernel")) return o["kernel"].get<std::string>();
    return o.value("comm", "");
}

// A connection's identity on its host: device and cm id, or (verbs) QP number.
std::string identity(const std::string& host, const json& c) {
    return host + "/" + c["device"].get<std::string>() + "/" +
           (is_verbs(c) ? "qp" + std::to_string(c["qp"]["number"].get<unsigned>())
                        : std::to_string(c["cm_id"].get<unsigned>()));
}

// Every non-listening id of the two snapshots, and every connected verbs QP,
// appears in exactly one row of the view, on its own host.
void require_every_id_once(const json& view, const json& snap_a, const json& snap_b,
                           const std::string& name_a, const std::string& name_b) {
    std::map<std::string, int> seen;
    for (const json& row : view["connections"])
        for (const json& end : row["ends"]) {
            const json& c = end["connection"];
            if (c.value("state", "") == "LISTEN") continue;
            ++seen[identity(end["host"].get<std::string>(), c)];
        }
    for (const auto& [snap, name] : {std::pair{&snap_a, name_a}, std::pair{&snap_b, name_b}})
        for (const json& c : (*snap)["connections"]) {
            if (c.value("state", "") == "LISTEN") continue;
            if (is_verbs(c) && c["qp"]["type"] != "RC") continue; // UD: no end
            const std::string key = identity(name, c);
            INFO(key);
            CHECK(seen[key] == 1);
        }
}

} // namespace

TEST_CASE("pair: rping, rdmastat ping, kping and NVMe over Fabrics cross hosts on siw and rxe",
          "[lab][pair]") {
    const json a = on_a.json("snapshot-1.json");
    const json b = on_b.json("snapshot-1.json");
    for (const Pair& p : rping_pairs) {
        INFO(p.port);
        auto server = ids_on(a, p.port);
        auto client = ids_on(b, p.port);
        REQUIRE(server.size() == 1);
        REQUIRE(client.size() == 1);
        CHECK(server[0]["device"] == p.device);
        CHECK(client[0]["device"] == p.device);
        CHECK(server[0]["local"]["address"] == p.server);
        CHECK(server[0]["peer"]["address"] == p.client);
        CHECK(server[0]["local"] == client[0]["peer"]);
        CHECK(server[0]["peer"] == client[0]["local"]);
        CHECK(server[0]["state"] == "CONNECT");
        CHECK(client[0]["state"] == "CONNECT");
        CHECK(owner_comm(server[0]) == "rping");
        CHECK(owner_comm(client[0]) == "rping");
        // rxe's QPs reach RTS; siw's too, where its driver reports a
        // state at all (6.8 and later): before, unknown, never RESET.
        for (auto [end, host] : {std::pair{&server[0], &a}, std::pair{&client[0], &b}}) {
            bool unreported = false;
            for (const json& d : (*host)["devices"])
                if (d["name"] == p.device) unreported = d.value("qp_states_unreported", false);
            CHECK((*end)["qp"].contains("state") == !unreported);
            if (!unreported) CHECK((*end)["qp"]["state"] == "RTS");
            if (std::string(p.device) == "rxe0") CHECK_FALSE(unreported);
        }
    }
    // The kernel's NVMe host on b, the target on a: an admin and an I/O
    // queue over each link, each one connection.
    for (const char* device : {"siw0", "rxe0"}) {
        INFO(device);
        unsigned target = 0, host = 0;
        for (const json& c : ids_on(a, 4420))
            if (c["device"] == device && owner_comm(c) == "nvmet_rdma" && c["state"] == "CONNECT")
                ++target;
        for (const json& c : ids_on(b, 4420))
            if (c["device"] == device && owner_comm(c) == "nvme_rdma" && c["state"] == "CONNECT")
                ++host;
        CHECK(host == 2);
        CHECK(target == host);
    }
    CHECK_THAT(on_b.text("nvme-state-1"), Catch::Contains("live"));
    // rping against rdmastat ping on siw, and rdmastat ping against rping on
    // rxe: 20 pings each way, the payloads verified. When siw stranded the
    // rping client's first message (it printed no ping; our server completed
    // none), b ran it once more against a's second server, which is judged.
    const bool again = on_b.has("rping-to-ping.stranded");
    const char* server = again ? "ping-server-again.json" : "ping-server.json";
    if (again) {
        CHECK(on_b.text("rping-to-ping.stranded").find("ping data") == std::string::npos);
        CHECK(on_a.json("ping-server.json")["completed"] == 0);
    }
    WARN((again ? 1 : 0) << " of 1 rping runs against rdmastat ping on siw ran again after siw "
                            "stranded a first message");
    CHECK(rping_ended_ok(on_b.rc("rping-to-ping.out"),
                         on_b.text("rping-to-ping.out")));
    CHECK(on_a.rc(server) == 0);
    CHECK(on_b.rc("ping-to-rping.json") == 0);
    for (const auto& [dir, name, device] : {std::tuple{"b/fabric", "ping-to-rping.json", "rxe0"},
                                            std::tuple{"a/fabric", server, "siw0"}}) {
        INFO(name);
        const json ping = Evidence{dir}.json(name);
        CHECK(ping["device"] == device);
        CHECK(ping["completed"] == 20);
        CHECK(ping["interrupted"] == false);
        // Across hosts: the peer is the other guest's address on the link.
        CHECK(ping["peer"]["address"] ==
              (std::string(dir) == "b/fabric" ? "10.8.2.1" : "10.8.1.2"));
    }
    CHECK(on_b.json("ping-to-rping.json")["validated"] == true);
    // rdmastat_kping to rdmastat_kping on siw: 20 iterations, validated by the
    // client, seen from the server as coming from b. When siw left a message
    // unread (a's server connected to b and got its first message, then no
    // iteration; --wait stopped b's run), b ran it once more against a's
    // second server, which is judged.
    const bool kagain = on_b.has("kping-client.stranded");
    if (kagain) {
        const json first = on_a.json("kping-server.json");
        INFO(first.dump());
        CHECK(first.value("peer", json::object()).value("address", "") == "10.8.1.2");
        CHECK(first.value("recv", json::object()).value("ops", 0) >= 1);
        CHECK(first.value("iters", -1) == 0);
    }
    WARN((kagain ? 1 : 0) << " of 1 kping runs on siw ran again after siw left a message unread");
    const json kserver = on_a.json(kagain ? "kping-server-again.json" : "kping-server.json");
    const json kclient = on_b.json("kping-client.json");
    CHECK(on_b.rc("kping-client.json") == 0);
    // A failed run lacks the members of a done one: value(), not [], on them.
    for (const json* k : {&kserver, &kclient}) {
        INFO(k->dump());
        CHECK(k->value("state", "") == "done");
        CHECK(k->value("device", "") == "siw0");
        CHECK(k->value("iters", 0) == 20);
        CHECK(k->value("send", json::object()).value("ops", 0) == 40);
    }
    CHECK(kserver.value("role", "") == "server");
    CHECK(kserver.value("peer", json::object()).value("address", "") == "10.8.1.2");
    CHECK(kclient.value("validate", false) == true);
    CHECK(kclient.value("peer", json()) ==
          json{{"address", "10.8.1.1"}, {"port", kagain ? 7407 : 7405}});
}

TEST_CASE("pair: each host's listing describes exactly the cm_ids rdma reports there",
          "[lab][pair]") {
    for (const char* dir : {"a/fabric", "b/fabric"})
        for (const char* phase : {"1", "2"}) {
            INFO(dir << " phase " << phase);
            const std::string name = std::string("snapshot-") + phase + ".json";
            REQUIRE(Evidence{dir}.rc(name) == 0);
            Snapshot snap = Evidence{dir}.snapshot(name);
            const json cm_id = Evidence{dir}.json(std::string("cm_id-") + phase + ".json");
            // b holds nothing once its clients were killed and its NVMe
            // controllers deleted.
            CHECK(cm_id.empty() == (std::string(dir) == "b/fabric" && std::string(phase) == "2"));
            auto diffs = compare_with_referee(
                snap.connections, cm_id, Evidence{dir}.json(std::string("qp-") + phase + ".json"));
            INFO(Catch::Detail::stringify(diffs));
            CHECK(diffs.empty());
        }
}

TEST_CASE("pair: the fabric view shows each connection once, with both ends", "[lab][pair]") {
    const json a = on_a.json("snapshot-1.json");
    const json b = on_b.json("snapshot-1.json");
    for (const char* name : {"fabric-1.json", "files-1.json"}) {
        INFO(name);
        const bool prom = std::string(name) == "fabric-1.json";
        const std::string ha = prom ? instance('a') : "a", hb = prom ? instance('b') : "b";
        CHECK(on_host.text(std::string(name) + ".err").empty());
        CHECK(on_host.rc(name) == 0);
        const json view = on_host.json(name);
        CHECK(view["source"] == (prom ? "prometheus" : "files"));
        REQUIRE(view["hosts"].size() == 2);
        CHECK(view["summary"]["half_open"] == 0);
        CHECK(view["summary"]["disagree"] == 0);
        CHECK(view["summary"]["unobserved"] == 0);
        require_every_id_once(view, a, b, ha, hb);
        for (const Pair& p : rping_pairs) {
            INFO(p.port);
            auto rows = rows_on(view, p.port);
            REQUIRE(rows.size() == 1);
            const json& row = rows[0];
            CHECK(row["status"] == "established");
            REQUIRE(row["ends"].size() == 2);
            // The accepting end first: a's server, then b's client.
            CHECK(row["ends"][0]["host"] == ha);
            CHECK(row["ends"][1]["host"] == hb);
            const json& server = row["ends"][0]["connection"];
            const json& client = row["ends"][1]["connection"];
            CHECK(server == ids_on(a, p.port)[0]);
            CHECK(client == ids_on(b, p.port)[0]);
        }
        // Each NVMe queue is one row: the target on a, the host on b.
        unsigned nvme = 0;
        for (const json& row : rows_on(view, 4420)) {
            CHECK(row["status"] == "established");
            REQUIRE(row["ends"].size() == 2);
            CHECK(row["ends"][0]["host"] == ha);
            CHECK(owner_comm(row["ends"][0]["connection"]) == "nvmet_rdma");
            CHECK(owner_comm(row["ends"][1]["connection"]) == "nvme_rdma");
            ++nvme;
        }
        CHECK(nvme == 4);
        // The verbs pair: one row, joined by GID and QP number, a's end first.
        auto verbs = verbs_rows(view);
        REQUIRE(verbs.size() == 1);
        CHECK(verbs[0]["status"] == "established");
        CHECK_FALSE(verbs[0].contains("probable"));
        REQUIRE(verbs[0]["ends"].size() == 2);
        std::set<std::string> hosts;
        for (const json& end : verbs[0]["ends"])
            hosts.insert(end["host"].get<std::string>());
        CHECK(hosts == std::set<std::string>{ha, hb});
    }
    // Both guests were being scraped when the view was taken.
    CHECK(on_host.json("up-1.json")["data"]["result"].size() == 2);
    // The text, and who holds port 7401 anywhere.
    const std::string text = on_host.text("fabric-1.txt");
    for (const Pair& p : rping_pairs)
        CHECK_THAT(text, Catch::Contains(endpoint_str(p.server, p.port)));
    const std::string port = on_host.text("fabric-1-7401.txt");
    CHECK(on_host.rc("fabric-1-7401.txt") == 0);
    CHECK(lines_starting(port, "established").size() == 1);
    CHECK(lines_starting(port, "listening").size() == 1);
    CHECK_THAT(port, Catch::Contains("10.8.2.1:7401") && Catch::Contains(instance('a')));
    CHECK_THAT(text, Catch::Contains("10.8.2.1:qp") && Catch::Contains("10.8.2.2:qp"));
}

TEST_CASE("pair: a verbs connection across hosts, as each host and the referee see it",
          "[lab][pair]") {
    // Each host's ibv_rc_pingpong QP: its path names the other host's GID,
    // and its numbers cross the other end's, as `rdma res show qp` has them.
    const json a = on_a.json("snapshot-1.json");
    const json b = on_b.json("snapshot-1.json");
    const auto ends_a = pingpong_of(a), ends_b = pingpong_of(b);
    REQUIRE(ends_a.size() == 1);
    REQUIRE(ends_b.size() == 1);
    const json& qa = ends_a[0];
    const json& qb = ends_b[0];
    CHECK(qa["qp"]["state"] == "RTS");
    CHECK(qb["qp"]["state"] == "RTS");
    CHECK(qa["qp"]["remote_number"] == qb["qp"]["number"]);
    CHECK(qb["qp"]["remote_number"] == qa["qp"]["number"]);
    CHECK(qa["local"]["address"] == "10.8.2.1");
    CHECK(qa["peer"]["address"] == "10.8.2.2");
    CHECK(qb["local"]["address"] == "10.8.2.2");
    CHECK(qb["peer"]["address"] == "10.8.2.1");
    CHECK(qa["qp"]["path"]["dgid"] == "::ffff:10.8.2.2");
    CHECK(qb["qp"]["path"]["dgid"] == "::ffff:10.8.2.1");
    CHECK(qa["qp"]["path"]["sgid"] == qb["qp"]["path"]["dgid"]);
    for (const auto& [dir, q] : {std::pair{"a/fabric", &qa}, std::pair{"b/fabric", &qb}}) {
        INFO(dir);
        bool found = false;
        for (const json& r : Evidence{dir}.json("qp-1.json"))
            if (r["lqpn"] == (*q)["qp"]["number"]) {
                found = true;
                CHECK(r["rqpn"] == (*q)["qp"]["remote_number"]);
                CHECK(r["pid"] == (*q)["owner"]["pid"]);
                CHECK(r["state"] == "RTS");
            }
        CHECK(found);
    }
}

TEST_CASE("pair: after b's clients die unseen, a's ends are half-open", "[lab][pair]") {
    const json a = on_a.json("snapshot-2.json");
    const json b = on_b.json("snapshot-2.json");
    for (const Pair& p : rping_pairs) {
        INFO(p.port);
        // b's ends are gone; a's stay up: the disconnect never reached it.
        CHECK(ids_on(b, p.port).empty());
        REQUIRE(ids_on(a, p.port).size() == 1);
        CHECK(ids_on(a, p.port)[0]["state"] == "CONNECT");
    }
    for (const char* name : {"fabric-2.json", "files-2.json"}) {
        INFO(name);
        const bool prom = std::string(name) == "fabric-2.json";
        const std::string ha = prom ? instance('a') : "a", hb = prom ? instance('b') : "b";
        CHECK(on_host.text(std::string(name) + ".err").empty());
        // Exit 1: a row is half-open.
        CHECK(on_host.rc(name) == 1);
        const json view = on_host.json(name);
        REQUIRE(view["hosts"].size() == 2);
        // The rping servers' ends and the pingpong server's QP.
        CHECK(view["summary"]["half_open"] == std::size(rping_pairs) + 1);
        require_every_id_once(view, a, b, ha, hb);
        for (const Pair& p : rping_pairs) {
            INFO(p.port);
            auto rows = rows_on(view, p.port);
            REQUIRE(rows.size() == 1);
            CHECK(rows[0]["status"] == "half_open");
            REQUIRE(rows[0]["ends"].size() == 1);
            CHECK(rows[0]["ends"][0]["host"] == ha);
            CHECK(rows[0]["peer_host"] == hb);
            CHECK(rows[0]["ends"][0]["connection"]["peer"]["address"] == p.client);
        }
        // The NVMe queues were torn down on both sides.
        CHECK(rows_on(view, 4420).empty());
        // The pingpong server's QP stays in RTS, its peer b's GID.
        auto verbs = verbs_rows(view);
        REQUIRE(verbs.size() == 1);
        CHECK(verbs[0]["status"] == "half_open");
        REQUIRE(verbs[0]["ends"].size() == 1);
        CHECK(verbs[0]["ends"][0]["host"] == ha);
        CHECK(verbs[0]["peer_host"] == hb);
        CHECK(verbs[0]["ends"][0]["connection"]["peer"]["address"] == "10.8.2.2");
        CHECK(verbs[0]["ends"][0]["connection"]["qp"]["state"] == "RTS");
    }
    CHECK(pingpong_of(b).empty());
    REQUIRE(pingpong_of(a).size() == 1);
    // b is still scraped: its ends are gone, not its host.
    CHECK(on_host.json("up-2.json")["data"]["result"].size() == 2);
    const std::string text = on_host.text("fabric-2.txt");
    CHECK(lines_starting(text, "half_open").size() == std::size(rping_pairs) + 1);
}

TEST_CASE("pair: lsof -i on each host agrees with the fabric view", "[lab][pair]") {
    for (int phase : {1, 2}) {
        INFO("phase " << phase);
        const json view = on_host.json("fabric-" + std::to_string(phase) + ".json");
        std::map<std::string, std::set<std::string>> from_view; // host -> pid/local/peer
        for (const json& row : view["connections"])
            for (const json& end : row["ends"]) {
                const json& c = end["connection"];
                if (!c["owner"].contains("pid") || is_verbs(c)) continue;
                from_view[end["host"].get<std::string>()].insert(
                    std::to_string(c["owner"]["pid"].get<int>()) + " " + c["local"].dump() + " " +
                    c["peer"].dump());
            }
        for (char host : {'a', 'b'}) {
            INFO("guest " << host);
            const std::string dir = std::string(1, host) + "/fabric";
            const std::string name = "lsof-" + std::to_string(phase) + ".json";
            CHECK(Evidence{dir}.rc(name) == 0);
            std::set<std::string> from_lsof;
            const json lsof = Evidence{dir}.json(name);
            for (const json& proc : lsof["processes"]) {
                if (!proc.contains("pid")) continue;
                for (const json& f : proc["files"])
                    if (f["type"] == "RDMA_CM" && f["state"] != "LISTEN")
                        from_lsof.insert(std::to_string(proc["pid"].get<int>()) + " " +
                                         f["local"].dump() + " " + f["peer"].dump());
            }
            CHECK(from_lsof == from_view[instance(host)]);
            // The text names the same connections: a's servers throughout,
            // b's clients until they were killed.
            const std::string text = Evidence{dir}.text("lsof-" + std::to_string(phase) + ".txt");
            for (const Pair& p : rping_pairs) {
                INFO(p.port);
                const std::string ep = endpoint_str(p.server, p.port);
                const std::string file_name = host == 'a' ? ep + "->" : "->" + ep + " (CONNECT)";
                CHECK((text.find(file_name) != std::string::npos) == (host == 'a' || phase == 1));
            }
        }
    }
}

TEST_CASE("pair: the half-open alert rule names the ends the fabric view flags", "[lab][pair]") {
    // monitoring/rdmastat.rules.yml, loaded into the host's Prometheus: quiet
    // while every connection had both ends, then one alert per half-open end.
    CHECK(on_host.json("alerts-1.json")["data"]["result"].empty());
    const json alerts = on_host.json("alerts-2.json")["data"]["result"];
    std::set<std::string> ports;
    std::size_t verbs = 0;
    for (const json& a : alerts) {
        const json& m = a["metric"];
        CHECK(m["instance"] == instance('a'));
        CHECK((m["alertstate"] == "pending" || m["alertstate"] == "firing"));
        if (m.value("via", "") == "verbs") {
            // The pingpong server's QP, its peer b's GID and QP number.
            ++verbs;
            CHECK(m["owner_comm"] == "ibv_rc_pingpong");
            CHECK(m["qp_state"] == "RTS");
            CHECK(m["peer_address"] == "10.8.2.2");
            const json end = pingpong_of(on_a.json("snapshot-2.json")).at(0);
            CHECK(m["qp_number"] == std::to_string(end["qp"]["number"].get<unsigned>()));
            CHECK(m["qp_remote_number"] ==
                  std::to_string(end["qp"]["remote_number"].get<unsigned>()));
            continue;
        }
        CHECK(m["state"] == "CONNECT");
        CHECK(m["owner_comm"] == "rping");
        ports.insert(m["local_port"].get<std::string>());
    }
    CHECK(ports == std::set<std::string>{"7400", "7401", "7402"});
    CHECK(verbs == 1);
    CHECK(alerts.size() == std::size(rping_pairs) + 1);
}
