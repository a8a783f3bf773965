// SPDX-License-Identifier: MIT
// [lab] tests: judge what tests/lab/scenarios/crosscheck.sh and capture.sh wrote in
// the QEMU guest (real kernel, siw and rxe, rping traffic). Run by tests/lab/check.sh
// with RDMASTAT_LAB_OUT set; excluded from the plain unit run.
#include "analysis/join.h"
#include "catch_compat.hpp"
#include "collect/snapshot_file.h"
#include "evidence.h"
#include "support.h"

#include <cstdlib>
#include <sstream>

using namespace rdmastat;
using namespace rdmastat::test;
using nlohmann::json;

namespace {

const Evidence ev{"crosscheck"};

std::string lab_dir() {
    const char* d = std::getenv("RDMASTAT_LAB_OUT");
    if (!d) FAIL("RDMASTAT_LAB_OUT is not set: run through tests/lab/check.sh");
    return d;
}

std::size_t count_if_json(const json& list, const std::function<bool(const json&)>& pred) {
    return static_cast<std::size_t>(std::count_if(list.begin(), list.end(), pred));
}

} // namespace

TEST_CASE("lab: without the RDMA stack rdmastat says so and exits 0", "[lab]") {
    REQUIRE(ev.text("ib_core-before") == "absent\n");
    // Asking for the RDMA netlink lets the kernel load ib_core on demand; then
    // there is a stack but no device. Either way: one clear line, exit 0.
    bool autoloaded = ev.text("ib_core-after") == "loaded\n";
    CHECK(ev.rc("none.txt") == 0);
    CHECK(ev.text("none.txt") ==
          (autoloaded ? "no RDMA devices\n"
                      : "no RDMA devices (the kernel has no RDMA netlink: is ib_core loaded?)\n"));
    CHECK(ev.rc("none.json") == 0);
    auto doc = ev.json("none.json");
    CHECK(doc["connections"].empty());
    CHECK(doc["devices"].empty());
    CHECK_THAT(ev.text("none.json.err"), Catch::StartsWith("rdmastat: no RDMA devices"));
    // ib_core loaded, no device registered yet.
    CHECK(ev.rc("nodev.txt") == 0);
    CHECK(ev.text("nodev.txt") == "no RDMA devices\n");
    CHECK(ev.rc("nodev-devices.txt") == 0);
    CHECK(ev.text("nodev-devices.txt") == "no RDMA devices\n");
}

TEST_CASE("lab: rdmastat -j -a describes exactly the cm_ids rdma reports", "[lab]") {
    REQUIRE(ev.rc("rdmastat.json") == 0);
    Snapshot snap = ev.snapshot("rdmastat.json");
    json rdma_cm = ev.json("rdma-cm_id.json");
    json rdma_qp = ev.json("rdma-qp.json");
    // Four rping pairs (siw and rxe, IPv4 and IPv6): a listener and two ends each.
    REQUIRE(rdma_cm.size() == 12);
    auto diffs = compare_with_referee(snap.connections, rdma_cm, rdma_qp);
    INFO(Catch::Detail::stringify(diffs));
    CHECK(diffs.empty());
    // Owners as /proc in the guest had them.
    OwnerMap owners = fixture_owners(lab_dir() + "/crosscheck/owners.txt");
    for (const auto& c : snap.connections) {
        REQUIRE(c.owner.pid);
        auto it = owners.find(*c.owner.pid);
        REQUIRE(it != owners.end());
        CHECK(c.owner.comm == it->second.comm);
        CHECK(c.owner.uid == it->second.uid);
        CHECK(c.owner.user == "root");
    }
}

TEST_CASE("lab: an unprivileged user sees the same cm_ids as rdma shows it", "[lab]") {
    REQUIRE(ev.rc("rdmastat-lab.json") == 0);
    REQUIRE(ev.rc("rdma-cm_id-lab.json") == 0);
    Snapshot snap = ev.snapshot("rdmastat-lab.json");
    auto diffs =
        compare_with_referee(snap.connections, ev.json("rdma-cm_id-lab.json"),
                             ev.json("rdma-qp.json"));
    INFO(Catch::Detail::stringify(diffs));
    CHECK(diffs.empty());
    CHECK(snap.connections.size() == 12);
    for (const auto& c : snap.connections)
        CHECK(c.owner.comm == "rping");
}

TEST_CASE("lab: devices agree with rdma link", "[lab]") {
    REQUIRE(ev.rc("devices.json") == 0);
    auto devices = ev.json("devices.json")["devices"];
    auto links = ev.json("rdma-link.json");
    REQUIRE(devices.size() == links.size());
    for (const auto& l : links) {
        auto d = std::find_if(devices.begin(), devices.end(),
                              [&](const json& x) { return x["name"] == l["ifname"]; });
        REQUIRE(d != devices.end());
        CHECK((*d)["index"] == l["ifindex"]);
        CHECK((*d)["ports"][0]["netdev"] == l["netdev"]);
        CHECK((*d)["ports"][0]["state"] == l["state"]);
        CHECK((*d)["driver"] == (l["ifname"] == "siw0" ? "siw" : "rxe"));
        CHECK((*d)["transport"] == (l["ifname"] == "siw0" ? "iwarp" : "roce"));
    }
}

TEST_CASE("lab: filters and summary count what rdma lists", "[lab]") {
    json rdma_cm = ev.json("rdma-cm_id.json");
    auto siw = ev.json("filter-siw.json")["connections"];
    CHECK(siw.size() == count_if_json(rdma_cm, [](const json& e) {
              return e["ifname"] == "siw0" && e["state"] == "CONNECT";
          }));
    // IPv6 addresses are the ones with a colon before the port's.
    auto is_v6 = [](const json& e) {
        std::string a = e["src-addr"];
        return a.substr(0, a.rfind(':')).find(':') != std::string::npos;
    };
    auto v6 = ev.json("filter-v6.json")["connections"];
    CHECK(v6.size() == count_if_json(rdma_cm, is_v6));
    CHECK(v6.size() < rdma_cm.size());
    auto v6_port = ev.json("filter-v6-port.json")["connections"];
    CHECK(v6_port.size() == count_if_json(rdma_cm, [&](const json& e) {
              auto port = [](const std::string& a) { return a.substr(a.rfind(':') + 1); };
              return is_v6(e) && (port(e["src-addr"]) == "7176" || port(e["dst-addr"]) == "7176");
          }));
    auto summary = ev.json("summary.json")["summary"];
    CHECK(summary["total"] == rdma_cm.size());
    CHECK(summary["listening"] ==
          count_if_json(rdma_cm, [](const json& e) { return e["state"] == "LISTEN"; }));
    CHECK(summary["by_device"]["siw0"] ==
          count_if_json(rdma_cm, [](const json& e) { return e["ifname"] == "siw0"; }));
    CHECK(ev.rc("badfilter.txt") == 2);
    CHECK_THAT(ev.text("badfilter.txt.err"), Catch::StartsWith("rdmastat: filter: "));
}

TEST_CASE("lab: the text listing has one row per id", "[lab]") {
    std::istringstream in(ev.text("listing.txt"));
    std::string line;
    std::getline(in, line);
    CHECK_THAT(line, Catch::StartsWith("Transport") && Catch::EndsWith("PID/Program"));
    std::size_t rows = 0;
    while (std::getline(in, line))
        ++rows;
    CHECK(rows == ev.json("rdma-cm_id.json").size());
}

TEST_CASE("lab: a fresh capture parses and agrees with rdma", "[lab]") {
    std::string dir = lab_dir() + "/fixtures";
    NldevData data = fixture_nldev(dir);
    Snapshot snap = join(data, fixture_owners(dir + "/owners.txt"));
    auto diffs =
        compare_with_referee(snap.connections, json::parse(read_file(dir + "/rdma-cm_id.json")),
                             json::parse(read_file(dir + "/rdma-qp.json")));
    INFO(Catch::Detail::stringify(diffs));
    CHECK(diffs.empty());
}
