// SPDX-License-Identifier: MIT
// [lab] tests of tests/lab/scenarios/monitor.sh: -E -j while rping starts and
// stops, -w without a terminal during rping traffic, and export beside -a -j.
#include "evidence.h"
#include "support.h"

#include "catch_compat.hpp"
#include <map>
#include <regex>
#include <set>
#include <sstream>

using namespace rdmastat::test;
using nlohmann::json;

namespace {

const Evidence ev{"monitor"};

struct Seen {
    std::set<std::string> kinds;
    bool active_end = false, passive_end = false;
};

} // namespace

TEST_CASE("lab: -E -j sees both ends of each rping appear and close", "[lab]") {
    // Per cm_id (device/number): its event kinds, and which end of a connection
    // to port P it was in any event: the active end has peer port P, the
    // passive end local port P and a peer.
    for (unsigned port : {7174u, 7175u}) {
        INFO("rping port " << port);
        std::map<std::string, Seen> ids;
        std::istringstream lines(ev.text("events.jsonl"));
        std::string line;
        std::size_t n = 0;
        while (std::getline(lines, line)) {
            json e = json::parse(line);
            ++n;
            REQUIRE(e["time"].is_string());
            const json& c = e["connection"];
            Seen& s =
                ids[c["device"].get<std::string>() + "/" + std::to_string(c["cm_id"].get<int>())];
            s.kinds.insert(e["event"].get<std::string>());
            auto port_of = [&](const char* key) {
                return c.contains(key) ? c[key]["port"].get<unsigned>() : 0u;
            };
            if (port_of("peer") == port && port_of("local") != port) s.active_end = true;
            if (port_of("local") == port && port_of("peer") != 0) s.passive_end = true;
        }
        REQUIRE(n > 0);
        auto both = [&](bool Seen::*end) {
            for (const auto& [id, s] : ids)
                if (s.*end && s.kinds.count("appeared") && s.kinds.count("closed")) return true;
            return false;
        };
        CHECK(both(&Seen::active_end));
        CHECK(both(&Seen::passive_end));
    }
    // Unprivileged, it polls, and says so once.
    std::string err = ev.text("events.err");
    CHECK(err.rfind("rdmastat: -E: tracepoints need root (or CAP_SYS_ADMIN); polling every 0.2 s",
                    0) == 0);
    // And, on a kernel without RDMA netlink's monitor (6.1), that it sends no
    // device events, once (eventsedge judges when).
    const auto lines = std::count(err.begin(), err.end(), '\n');
    const auto no_devices =
        lines_starting(err, "rdmastat: -E: this kernel sends no RDMA device events").size();
    CHECK(no_devices <= 1);
    CHECK(lines == 1 + static_cast<long>(no_devices));
}

TEST_CASE("lab: -w without a terminal shows a rate of an rxe port counter", "[lab]") {
    REQUIRE(ev.rc("watch.txt") == 0);
    std::string text = ev.text("watch.txt");
    // Three blocks, each with the listing and the port counters.
    std::regex header(R"(rdmastat -w 1 at \S+: \d+ shown)");
    CHECK(std::distance(std::sregex_iterator(text.begin(), text.end(), header),
                        std::sregex_iterator()) == 3);
    // "rxe0  1  sent_pkts  1234  56.0/s": a positive rate in a later round.
    std::regex rate(R"(\nrxe0 +1 +(\w+) +\d+ +([0-9.]+)/s)");
    double best = 0;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), rate);
         it != std::sregex_iterator(); ++it)
        best = std::max(best, std::stod((*it)[2]));
    CHECK(best > 0);
    CHECK_THAT(text, Catch::Contains("\nsiw0    1     n/a"));
}

TEST_CASE("lab: export counts the connections -a -j lists", "[lab]") {
    REQUIRE(ev.rc("export.prom") == 0);
    REQUIRE(ev.rc("snapshot.json") == 0);
    std::map<std::string, double> listed, exported;
    json doc = ev.json("snapshot.json");
    for (const json& c : doc["connections"])
        listed[c["device"].get<std::string>() + "/" + c["state"].get<std::string>()] += 1;
    std::string text = ev.text("export.prom");
    std::regex series(R"re(\nrdmastat_connections\{device="(\w+)",[^}]*state="(\w+)"\} (\d+))re");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), series);
         it != std::sregex_iterator(); ++it)
        exported[(*it)[1].str() + "/" + (*it)[2].str()] += std::stod((*it)[3]);
    REQUIRE_FALSE(listed.empty());
    CHECK(exported == listed);
    CHECK_THAT(text, Catch::Contains("rdmastat_port_counters_available{device=\"rxe0\",port=\"1\","
                                     "source=\"nldev\"} 1"));
    CHECK_THAT(text, Catch::Contains("rdmastat_process_connections{"));
}
