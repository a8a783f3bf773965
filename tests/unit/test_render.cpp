// SPDX-License-Identifier: MIT
// Renderers against golden output, driven through the CLI on the lab snapshot
// (tests/fixtures/snapshot.json, written by rdmastat -j -a in the lab).
#include "cli/app.h"
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
