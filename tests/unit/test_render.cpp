// SPDX-License-Identifier: MIT
// Renderers against golden output, driven through the CLI on the lab snapshot
// (tests/fixtures/snapshot.json, written by rdmastat -j -a in the lab).
#include "catch_compat.hpp"
#include "cli/app.h"
#include "collect/snapshot_file.h"
#include "model/names.h"
#include "render/json.h"
#include "render/output.h"
#include "render/table.h"
#include "render/text.h"
#include "support.h"

#include <iterator>
#include <set>
#include <sstream>

using namespace rdmastat;
using namespace rdmastat::test;

namespace {
const std::string snapshot = fixtures_dir() + "/snapshot.json";

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
    CHECK(conn == std::set<std::string>{"device", "port", "transport", "port_space", "via", "cm_id",
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
               Catch::Contains(" " + std::to_string(*s.connections[1].cm_id) + "(internal) "));
    CHECK_THAT(plain[1], !Catch::Contains("(") && Catch::Contains(c.local->to_string() + " "));
    CHECK_THAT(plain[2], !Catch::Contains("internal"));
    auto words = [](const std::string& line) {
        std::istringstream in(line);
        return std::vector<std::string>{std::istream_iterator<std::string>(in), {}};
    };
    // -e adds its columns between State and PID/Program, and only there (rdmastat(8)).
    using W = std::vector<std::string>;
    CHECK(words(plain[0]) == W{"Transport", "Device", "Dev-Port", "Local", "Address", "Peer",
                               "Address", "State", "PID/Program"});
    CHECK(words(extended[0]) == W{"Transport", "Device", "Dev-Port", "Local", "Address", "Peer",
                                  "Address", "State", "User", "Via", "CM-ID", "PS", "QPN",
                                  "QP-Type", "QP-State", "Netns", "Container", "Pod",
                                  "PID/Program"});
    // The same columns whatever the source knew.
    std::ostringstream nldev;
    render_listing(nldev, {}, TextOptions{true, false, true, true});
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

namespace {
// Hand-made ids: shapes the lab's rping setup does not produce (wildcard
// listeners, hostile process names, a LISTEN id with a peer).
Connection made(const char* state, std::optional<Endpoint> local, std::optional<Endpoint> peer) {
    Connection c;
    c.device = "siw0";
    c.port = 1;
    c.transport = Transport::iwarp;
    c.state = enum_from_name<CmState>(state).value();
    c.local = local;
    c.peer = peer;
    c.owner.pid = 42;
    c.owner.comm = "rping";
    c.owner.uid = 0;
    c.owner.user = "root";
    return c;
}

Endpoint ep(const char* address, std::uint16_t port) {
    return Endpoint{IpAddress::parse(address).value(), port};
}

std::string listing(const std::vector<Connection>& conns, TextOptions opts) {
    std::vector<const Connection*> list;
    for (const auto& c : conns)
        list.push_back(&c);
    std::ostringstream out;
    render_listing(out, list, opts);
    return out.str();
}
} // namespace

TEST_CASE("JSON output stays valid when a name is not UTF-8", "[render]") {
    // The kernel cuts comm at 15 bytes, which can split a character: "café" → "caf\xc3".
    Snapshot s;
    s.source = SnapshotSource::nldev;
    Connection c = made("CONNECT", ep("10.0.0.1", 7174), ep("10.0.0.2", 40000));
    c.owner.comm = "caf\xc3";
    c.owner.user = "\xff\xfe";
    s.connections = {c};
    std::ostringstream out;
    write_snapshot_json(out, s, {&s.connections[0]}, false);
    auto owner = nlohmann::json::parse(out.str())["connections"][0]["owner"];
    CHECK(owner["comm"] == "caf\xef\xbf\xbd"); // U+FFFD
    CHECK(owner["user"] == "\xef\xbf\xbd\xef\xbf\xbd");
    std::ostringstream summary;
    json_writer(true)->summary(summary, s, summarize({&s.connections[0]}));
    CHECK(nlohmann::json::parse(summary.str())["summary"]["by_process"][0]["owner"]["comm"] ==
          "caf\xef\xbf\xbd");
}

TEST_CASE("text output escapes bytes a terminal could act on", "[render]") {
    Connection c = made("CONNECT", ep("10.0.0.1", 7174), ep("10.0.0.2", 40000));
    c.owner.comm = "\x1b[31mevil";
    c.owner.user = "b\x07z\x7f";
    std::string out = listing({c}, TextOptions{true, false, true, true});
    CHECK_THAT(out, Catch::Contains(" 42/\\x1b[31mevil\n") && Catch::Contains(" b\\x07z\\x7f "));
    CHECK(out.find_first_of("\x1b\x07\x7f") == std::string::npos);
    std::ostringstream summary;
    Connection copy = c;
    render_summary(summary, summarize({&copy}));
    CHECK_THAT(summary.str(), Catch::Contains("42/\\x1b[31mevil"));
    CHECK(summary.str().find('\x1b') == std::string::npos);

    CHECK(printable("rping") == "rping");
    CHECK(printable("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") ==
          "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"); // UTF-8 is kept
    CHECK(printable("a\tb\nc\rd") == "a\\x09b\\x0ac\\x0dd");
    CHECK(printable("caf\xc3") == "caf\\xc3"); // cut inside a character
    CHECK(printable("\x9b"
                    "31m") == "\\x9b31m"); // 8-bit CSI
    CHECK(printable("\xc2\x9b"
                    "31m") == "\\xc2\\x9b31m"); // CSI as UTF-8 (U+009B)
    CHECK(printable("\xc2\xa0") == "\xc2\xa0"); // U+00A0 is printable
    CHECK(printable("\xc0\xaf \xed\xa0\x80") ==
          "\\xc0\\xaf \\xed\\xa0\\x80"); // overlong, surrogate
    CHECK(printable(std::string("a\0b", 3)) == "a\\x00b");
}

TEST_CASE("wildcard addresses print as ss prints them", "[render]") {
    CHECK(ep("0.0.0.0", 7174).to_string() == "0.0.0.0:7174");
    CHECK(ep("::", 7174).to_string() == "[::]:7174");
    CHECK(ep("0.0.0.0", 0).to_string() == "0.0.0.0:*");
    CHECK(ep("::", 0).to_string() == "[::]:*");
    CHECK(ep("10.9.0.1", 0).to_string() == "10.9.0.1:*");
    CHECK(ep("fd00:9::1", 7176).to_string() == "[fd00:9::1]:7176");
    CHECK(Endpoint{}.to_string() == "*:*");

    std::istringstream in(listing({made("LISTEN", ep("0.0.0.0", 7174), ep("0.0.0.0", 0)),
                                   made("LISTEN", ep("::", 7174), ep("::", 0)),
                                   made("ADDR_BOUND", ep("10.9.0.1", 0), std::nullopt)},
                                  TextOptions{}));
    auto words = [&] {
        std::string line;
        std::getline(in, line);
        std::istringstream l(line);
        return std::vector<std::string>{std::istream_iterator<std::string>(l), {}};
    };
    CHECK(words() == std::vector<std::string>{"Transport", "Device", "Dev-Port", "Local", "Address",
                                              "Peer", "Address", "State"});
    CHECK(words() ==
          std::vector<std::string>{"iwarp", "siw0", "1", "0.0.0.0:7174", "0.0.0.0:*", "LISTEN"});
    CHECK(words() ==
          std::vector<std::string>{"iwarp", "siw0", "1", "[::]:7174", "[::]:*", "LISTEN"});
    CHECK(words() ==
          std::vector<std::string>{"iwarp", "siw0", "1", "10.9.0.1:*", "*:*", "ADDR_BOUND"});
}

TEST_CASE("summary counts other ids directly", "[render][summary]") {
    std::vector<Connection> conns = {
        made("LISTEN", ep("10.0.0.1", 7174), ep("10.0.0.2", 1)), // a LISTEN id with a peer
        made("LISTEN", ep("10.0.0.1", 7175), ep("0.0.0.0", 0)),
        made("CONNECT", ep("10.0.0.1", 7174), ep("10.0.0.2", 40000)),
        made("ADDR_BOUND", ep("10.0.0.1", 0), std::nullopt),
        made("IDLE", std::nullopt, std::nullopt),
    };
    std::vector<const Connection*> all;
    for (const auto& c : conns)
        all.push_back(&c);
    Summary s = summarize(all);
    CHECK(s.total == 5);
    CHECK(s.listening == 2);
    CHECK(s.with_peer == 2);
    CHECK(s.other == 2);
    std::ostringstream text;
    render_summary(text, s);
    CHECK_THAT(text.str(),
               Catch::StartsWith("Connections: 5 (with peer 2, listening 2, other 2)\n"));
    std::ostringstream json;
    json_writer()->summary(json, Snapshot{}, s);
    auto j = nlohmann::json::parse(json.str())["summary"];
    CHECK(j["other"] == 2);
    CHECK(j["listening"] == 2);
    CHECK(j["with_peer"] == 2);
}

TEST_CASE("-e shows a QP number that is not the id's QP, with why, and the netns", "[render]") {
    Connection other = made("CONNECT", ep("10.9.0.2", 35595), ep("10.9.0.2", 7999));
    other.qp_unjoined = UnjoinedQp{17, QpUnjoined::other_owner};
    other.netns = 4026531840u;
    Connection gone = made("CONNECT", ep("10.9.0.2", 54533), ep("10.9.0.2", 7999));
    gone.qp_unjoined = UnjoinedQp{21, QpUnjoined::gone};
    TextOptions opts{true, false, true, true};
    const std::string out = listing({other, gone}, opts);
    INFO(out);
    CHECK_THAT(out, Catch::Contains(" QPN ") && Catch::Contains(" Netns "));
    // No type or state is shown for a QP that is not this id's.
    CHECK_THAT(out, Catch::Contains(" 17(other)  -        -         4026531840 "));
    CHECK_THAT(out, Catch::Contains(" 21(gone)   -        -         -          "));
}

TEST_CASE("-e names the owner's container (runtime, short id) and pod", "[render]") {
    Snapshot s = with_module_fields();
    Owner& o = s.connections[0].owner;
    o.container = Container{ContainerRuntime::crio, "0123456789abcdef" + std::string(48, 'e')};
    o.pod = Pod{"0b5ec1d2-3f4a-4b5c-8d6e-7f8091a2b3c4", PodQos::besteffort};
    std::ostringstream out;
    render_listing(out, all_of(s), TextOptions{true, false, true, true});
    std::istringstream in(out.str());
    std::string header, first, second;
    std::getline(in, header);
    std::getline(in, first);
    std::getline(in, second);
    // The id cut to 12 digits, as docker and crictl show it; the pod's UID whole.
    CHECK_THAT(first, Catch::Contains(" crio:0123456789ab ") &&
                          Catch::Contains(" 0b5ec1d2-3f4a-4b5c-8d6e-7f8091a2b3c4 ") &&
                          !Catch::Contains("0123456789abc"));
    CHECK_THAT(second, !Catch::Contains("crio:"));
}
