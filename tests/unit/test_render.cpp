// SPDX-License-Identifier: MIT
// Renderers against golden output, driven through the CLI on the lab snapshot
// (tests/fixtures/snapshot.json, written by rdmastat -j -a in the lab).
#include "cli/app.h"
#include "collect/snapshot_file.h"
#include "render/json.h"
#include "render/text.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <iterator>
#include <set>
#include <sstream>

using namespace rdmastat;
using namespace rdmastat::test;

namespace {
const std::string snapshot = std::string(RDMASTAT_FIXTURES) + "/snapshot.json";

std::string run_ok(std::vector<std::string> args) {
    args.insert(args.begin(), {"--input", snapshot});
    std::ostringstream out, err;
    int rc = run_cli(args, out, err);
    INFO(err.str());
    REQUIRE(rc == 0);
    CHECK(err.str().empty());
    return out.str();
}
} // namespace

TEST_CASE("listing golden output", "[render]") {
    struct Case {
        std::vector<std::string> args;
        const char* golden_file;
    };
    for (const auto& [args, file] : std::vector<Case>{
             {{}, "listing-default.txt"},
             {{"-a", "-p", "-e"}, "listing-all-pe.txt"},
             {{"-l", "-p"}, "listing-listen.txt"},
             {{"-a", "-e", "-n", "-H"}, "listing-numeric-noheader.txt"},
             {{"-a", "-6", "-p"}, "listing-ipv6.txt"},
             {{"-p", "transport", "roce", "and", "sport", ">", "10000"}, "listing-filter.txt"},
             {{"-s"}, "summary.txt"},
             {{"devices"}, "devices.txt"},
             {{"-a", "-j"}, "snapshot-compact.json"},
             {{"-s", "-j", "--pretty"}, "summary.json"},
             {{"devices", "-j"}, "devices.json"},
         }) {
        INFO(file);
        std::string out = run_ok(args);
        CHECK(out == golden(file, out));
    }
}

TEST_CASE("every line of a listing has the header's columns", "[render]") {
    std::istringstream in(run_ok({"-a", "-p", "-e"}));
    std::string line;
    std::getline(in, line);
    std::istringstream h(line);
    std::vector<std::string> header{std::istream_iterator<std::string>(h), {}};
    // "Local Address" and "Peer Address" are two words each.
    std::size_t columns = header.size() - 2;
    std::size_t rows = 0;
    while (std::getline(in, line)) {
        std::istringstream r(line);
        std::vector<std::string> cells{std::istream_iterator<std::string>(r), {}};
        CHECK(cells.size() == columns);
        CHECK(line.back() != ' ');
        ++rows;
    }
    CHECK(rows == nlohmann::json::parse(read_file(snapshot))["connections"].size());
}

TEST_CASE("JSON keys are exactly the schema's", "[render]") {
    auto doc = nlohmann::json::parse(run_ok({"-a", "-j"}));
    std::set<std::string> top, conn, owner;
    for (auto& [k, v] : doc.items())
        top.insert(k);
    CHECK(top == std::set<std::string>{"version", "source", "devices", "connections"});
    CHECK(doc["version"] == 1);
    CHECK(doc["source"] == "file");
    for (const auto& c : doc["connections"]) {
        for (auto& [k, v] : c.items())
            conn.insert(k);
        for (auto& [k, v] : c["owner"].items())
            owner.insert(k);
        CHECK(c["local"].size() == 2);
        CHECK(c["local"].contains("address"));
        CHECK(c["local"].contains("port"));
    }
    CHECK(conn == std::set<std::string>{"device", "port", "transport", "port_space", "cm_id",
                                        "state", "local", "peer", "qp", "owner"});
    CHECK(owner == std::set<std::string>{"pid", "comm", "uid", "user"});
}

namespace {
// The lab snapshot with module-only facts added by hand: the lab has no iWARP
// port mapper and no wildcard listener, so these shapes are not in a capture.
Snapshot with_module_fields() {
    std::istringstream in(read_file(snapshot));
    Snapshot s = parse_snapshot_json(in, "snapshot.json").take();
    REQUIRE(s.connections.size() >= 2);
    Connection& c = s.connections[0];
    REQUIRE(c.local);
    c.mapped_local = Endpoint{c.local->address, 20001};
    c.mapped_peer = c.peer; // unchanged by the mapper: not repeated in text
    c.mapped = true;
    c.netns = 4026531840u;
    s.connections[1].internal = true;
    return s;
}

std::vector<const Connection*> all_of(const Snapshot& s) {
    std::vector<const Connection*> out;
    for (const auto& c : s.connections)
        out.push_back(&c);
    return out;
}
} // namespace

TEST_CASE("-e shows mapped addresses and internal ids without new columns", "[render]") {
    Snapshot s = with_module_fields();
    const Connection& c = s.connections[0];
    auto lines = [&](bool extended) {
        std::ostringstream out;
        render_listing(out, all_of(s), TextOptions{true, false, true, extended});
        std::istringstream in(out.str());
        std::vector<std::string> v;
        for (std::string l; std::getline(in, l);)
            v.push_back(l);
        return v;
    };
    auto plain = lines(false), extended = lines(true);
    std::string mapped = c.local->to_string() + "(" + c.mapped_local->to_string() + ")";
    CHECK_THAT(extended[1], Catch::Contains(" " + mapped + " "));
    CHECK_THAT(extended[1], !Catch::Contains(c.peer->to_string() + "("));
    CHECK_THAT(extended[2],
               Catch::Contains(" " + std::to_string(s.connections[1].cm_id) + "(internal) "));
    CHECK_THAT(plain[1], !Catch::Contains("(") && Catch::Contains(c.local->to_string() + " "));
    CHECK_THAT(plain[2], !Catch::Contains("internal"));
    CHECK(plain[0] == lines(false)[0]);
    // The same columns whatever the source knew.
    std::ostringstream nldev;
    render_listing(nldev, {}, TextOptions{true, false, true, true});
    auto words = [](const std::string& line) {
        std::istringstream in(line);
        return std::vector<std::string>{std::istream_iterator<std::string>(in), {}};
    };
    CHECK(words(extended[0]) == words(nldev.str()));
}

TEST_CASE("module-only JSON keys appear only where known", "[render]") {
    Snapshot s = with_module_fields();
    std::ostringstream out;
    write_snapshot_json(out, s, all_of(s), false);
    auto conns = nlohmann::json::parse(out.str())["connections"];
    const auto& c0 = conns[0];
    CHECK(
        c0["mapped_local"] ==
        nlohmann::json{{"address", s.connections[0].local->address.to_string()}, {"port", 20001}});
    CHECK(c0["mapped_peer"] == c0["peer"]);
    CHECK(c0["mapped"] == true);
    CHECK(c0["netns"] == 4026531840u);
    CHECK_FALSE(c0.contains("internal"));
    CHECK(conns[1]["internal"] == true);
    for (std::size_t i = 1; i < conns.size(); ++i)
        for (const char* key : {"mapped_local", "mapped_peer", "mapped", "netns"})
            CHECK_FALSE(conns[i].contains(key));
}
