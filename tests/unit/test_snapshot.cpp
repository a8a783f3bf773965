// SPDX-License-Identifier: MIT
// Snapshots: what -j -a writes, --input reads back, and bad files get clear errors.
#include "analysis/filter.h"
#include "analysis/join.h"
#include "analysis/select.h"
#include "catch_compat.hpp"
#include "collect/module_parse.h"
#include "collect/nldev_parse.h"
#include "collect/snapshot_file.h"
#include "render/json.h"
#include "support.h"

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <functional>
#include <sstream>
#include <sys/socket.h>

using namespace rdmastat;
using namespace rdmastat::test;

namespace {
Snapshot lab_snapshot() {
    std::istringstream in(fixture_text("snapshot.json"));
    return parse_snapshot_json(in, "snapshot.json").take();
}

} // namespace

TEST_CASE("snapshot round trip keeps every field", "[snapshot]") {
    Snapshot a = lab_snapshot();
    CHECK(a.source == SnapshotSource::file);
    REQUIRE(a.connections.size() > 0);
    Snapshot b = snapshot_from_text(snapshot_to_text(a)).take();
    CHECK(b.devices == a.devices);
    CHECK(b.connections == a.connections);
    CHECK(snapshot_to_text(b) == snapshot_to_text(a));
}

TEST_CASE("a snapshot built by join round-trips too", "[snapshot]") {
    // From the captured bytes rather than from rdmastat's own JSON.
    NldevData data = fixture_nldev();
    Snapshot a;
    a.source = SnapshotSource::file;
    a.devices = data.devices;
    Snapshot b = snapshot_from_text(snapshot_to_text(a)).take();
    CHECK(b.devices == a.devices);
}

TEST_CASE("bad snapshots are refused with the JSON path", "[snapshot]") {
    std::string good = fixture_text("snapshot.json");
    auto doc = nlohmann::json::parse(good);
    auto with = [&](auto edit) {
        auto d = doc;
        edit(d);
        return snapshot_from_text(d.dump());
    };
    struct Case {
        std::function<void(nlohmann::json&)> edit;
        std::string message;
    };
    std::vector<Case> cases = {
        {[](auto& d) { d["version"] = 2; }, "version: schema version 2 is not supported"},
        {[](auto& d) { d.erase("version"); }, "version: missing"},
        {[](auto& d) { d["connections"][0]["cm_id"] = "x"; },
         "connections[0].cm_id: expected a number"},
        {[](auto& d) { d["connections"][1]["local"]["address"] = "10.1"; },
         "connections[1].local.address: '10.1' is not an IP address"},
        {[](auto& d) { d["connections"][0]["peer"]["port"] = 70000; },
         "connections[0].peer.port: expected a number from 0 to 65535"},
        {[](auto& d) { d["connections"][2].erase("device"); }, "connections[2].device: missing"},
        {[](auto& d) { d["connections"][0]["transport"] = "carrier-pigeon"; },
         "unknown transport 'carrier-pigeon'"},
        {[](auto& d) { d["devices"][0]["node_guid"] = "xyz"; },
         "devices[0].node_guid: 'xyz' is not a GUID"},
        // 17 hex digits: more than 64 bits, even when the first ones are zeros.
        {[](auto& d) { d["devices"][0]["node_guid"] = "0000:0000:0000:0000:1"; },
         "devices[0].node_guid: '0000:0000:0000:0000:1' is not a GUID"},
        {[](auto& d) { d["devices"] = 5; }, "devices: expected an array"},
        {[](auto& d) { d["connections"][0]["owner"] = "root"; }, "connections[0].owner"},
    };
    for (const auto& c : cases) {
        auto r = with(c.edit);
        INFO(c.message);
        REQUIRE_FALSE(r.ok());
        CHECK_THAT(r.error(), Catch::StartsWith("test.json: ") && Catch::Contains(c.message));
    }
    CHECK_THAT(snapshot_from_text("{\"version\": 1,").error(), Catch::Contains("not valid JSON"));
    CHECK_THAT(snapshot_from_text("[1]").error(), Catch::Contains("expected an object"));
    CHECK_THAT(load_snapshot_file("/nonexistent/snap.json").error(),
               Catch::Equals("/nonexistent/snap.json: No such file or directory"));
}

TEST_CASE("text that is not JSON is refused with its byte position", "[snapshot]") {
    CHECK(snapshot_from_text("{\"version\": 1, x}").error() ==
          "test.json: not valid JSON at byte 16: expected a string as the object's key, found 'x'");
    CHECK_THAT(snapshot_from_text("{\"version\": 1,").error(),
               Catch::StartsWith("test.json: not valid JSON at byte 15: ") &&
                   Catch::Contains("unexpected end of input"));
    CHECK_THAT(snapshot_from_text("").error(),
               Catch::StartsWith("test.json: not valid JSON at byte 1: "));
}

TEST_CASE("deep nesting is refused as soon as it is read", "[snapshot]") {
    auto nested = [](int depth) {
        std::string text;
        for (int i = 0; i < depth; ++i)
            text += "{\"a\":";
        text += "1";
        return text + std::string(static_cast<std::size_t>(depth), '}');
    };
    // At the limit the parse succeeds; the snapshot then lacks its version.
    CHECK(snapshot_from_text(nested(max_snapshot_depth)).error() == "test.json: version: missing");
    // The 65th "{" is byte 5 * 64 + 1.
    CHECK(snapshot_from_text(nested(max_snapshot_depth + 1)).error() ==
          "test.json: JSON nested deeper than 64 levels at byte 321");
    // A file of '[' stops at the first one too deep instead of building all of them.
    CHECK(snapshot_from_text(std::string(1'000'000, '[')).error() ==
          "test.json: JSON nested deeper than 64 levels at byte 65");
}

TEST_CASE("a directory as a snapshot file is an error naming it", "[snapshot]") {
    std::string dir = std::filesystem::temp_directory_path();
    auto r = load_snapshot_file(dir);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error() == dir + ": Is a directory");
    CHECK(r.error_code() == EISDIR);
}

TEST_CASE("unknown keys from a newer writer are ignored", "[snapshot]") {
    auto doc = nlohmann::json::parse(fixture_text("snapshot.json"));
    doc["hostname"] = "node7";
    doc["connections"][0]["rate"] = 5;
    auto r = snapshot_from_text(doc.dump());
    REQUIRE(r.ok());
    CHECK(r.value().connections == lab_snapshot().connections);
}

TEST_CASE("selection scopes on the lab snapshot", "[snapshot]") {
    Snapshot s = lab_snapshot();
    Filter all;
    auto count = [&](Scope scope, std::optional<int> family = {}) {
        return select(s, Selection{scope, family}, all).size();
    };
    std::size_t listeners = 0, peers = 0, v6 = 0;
    for (const auto& c : s.connections) {
        listeners += c.state == CmState::listen;
        peers += has_peer(c);
        v6 += c.local && c.local->address.family == AF_INET6;
    }
    CHECK(listeners == 4);
    CHECK(count(Scope::listening) == listeners);
    CHECK(count(Scope::connected) == peers);
    CHECK(count(Scope::all) == s.connections.size());
    CHECK(count(Scope::all, AF_INET6) == v6);
    CHECK(count(Scope::all, AF_INET) == s.connections.size() - v6);
}

TEST_CASE("module-only keys round-trip and are type-checked", "[snapshot]") {
    Snapshot a = lab_snapshot();
    REQUIRE(a.connections.size() >= 2);
    Connection& c = a.connections[0];
    c.mapped_local = Endpoint{*IpAddress::parse("10.9.0.1"), 20001};
    c.mapped_peer = Endpoint{*IpAddress::parse("fd00:9::2"), 20002};
    c.mapped = false;
    c.netns = 4026531840u;
    a.connections[1].internal = true;
    a.connections[1].qp.reset();
    a.connections[1].qp_unjoined = UnjoinedQp{21, QpUnjoined::gone};
    Snapshot b = snapshot_from_text(snapshot_to_text(a)).take();
    CHECK(b.connections == a.connections);
    auto written = nlohmann::json::parse(snapshot_to_text(a))["connections"][1];
    CHECK(written["qp"].is_null());
    CHECK(written["qp_unjoined"] == nlohmann::json{{"number", 21}, {"reason", "gone"}});
    CHECK_FALSE(
        nlohmann::json::parse(snapshot_to_text(a))["connections"][0].contains("qp_unjoined"));

    auto doc = nlohmann::json::parse(snapshot_to_text(a));
    doc["connections"][1]["internal"] = "yes";
    CHECK_THAT(snapshot_from_text(doc.dump()).error(),
               Catch::Contains("connections[1].internal: expected true or false"));
    doc = nlohmann::json::parse(snapshot_to_text(a));
    doc["connections"][0]["netns"] = -1;
    CHECK_THAT(snapshot_from_text(doc.dump()).error(),
               Catch::Contains("connections[0].netns: expected a number"));
    doc = nlohmann::json::parse(snapshot_to_text(a));
    doc["connections"][1]["qp_unjoined"]["reason"] = "stolen";
    CHECK_THAT(snapshot_from_text(doc.dump()).error(),
               Catch::Contains("connections[1].qp_unjoined.reason: unknown reason 'stolen'"));
    doc = nlohmann::json::parse(snapshot_to_text(a));
    doc["connections"][0]["mapped_local"]["address"] = "nowhere";
    CHECK_THAT(snapshot_from_text(doc.dump()).error(),
               Catch::Contains("connections[0].mapped_local.address: 'nowhere'"));
}

TEST_CASE("a snapshot listing a pid twice is refused", "[snapshot]") {
    auto doc = nlohmann::json::parse(fixture_text("snapshot-host.json"));
    REQUIRE(doc["processes"].size() >= 2);
    doc["processes"][1]["pid"] = doc["processes"][0]["pid"];
    auto r = snapshot_from_text(doc.dump());
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error(),
               Catch::Contains("processes[1].pid: pid ") && Catch::Contains("listed twice"));
}

TEST_CASE("a snapshot read with its size reserves its connections once", "[snapshot]") {
    Snapshot base = lab_snapshot();
    REQUIRE_FALSE(base.connections.empty());
    Snapshot big = base;
    big.connections.clear();
    for (std::uint32_t i = 0; i < 1500; ++i) {
        big.connections.push_back(base.connections[i % base.connections.size()]);
        big.connections.back().cm_id = i;
    }
    const std::string text = snapshot_to_text(big);
    auto read = [&](std::uint64_t size) {
        std::istringstream in(text);
        return parse_snapshot_json(in, "big.json", nullptr, size).take();
    };
    const Snapshot sized = read(text.size());
    REQUIRE(sized.connections.size() == 1500);
    CHECK(sized.connections == big.connections);
    // Doubling leaves room for 2048; the guess is the text left at the size of
    // the first 64, and an eighth more.
    CHECK(sized.connections.capacity() >= 1500);
    CHECK(sized.connections.capacity() < 1800);
    // A size that is wrong only misguides the reserve, which stays bounded.
    CHECK(read(std::uint64_t{1} << 40).connections.capacity() * sizeof(Connection) <=
          (std::size_t{256} << 20) + 64 * sizeof(Connection));
    for (std::uint64_t wrong :
         {std::uint64_t{0}, std::uint64_t{10}, std::uint64_t{text.size() * 3}})
        CHECK(read(wrong).connections == big.connections);
}

TEST_CASE("verbs connections round-trip; a connection lacking what its kind needs is refused",
          "[snapshot]") {
    // The capture of raw-verbs peers on rxe0 (tests/fixtures/verbs).
    NldevData data;
    data.devices = parse_device_dump(fixture_bytes("verbs/devices.bin")).take();
    data.qps = parse_qp_dump(fixture_bytes("verbs/qp-rxe0.bin")).take();
    Snapshot a = join(data, {});
    // The RC and UC ones with their paths, as root sees them with the module.
    CHECK(add_verbs_paths(a, parse_module_qp_dump(fixture_bytes("verbs/module-qp.bin")).take()) ==
          0);
    REQUIRE(a.connections.size() == 14);
    CHECK(std::count_if(a.connections.begin(), a.connections.end(),
                        [](const Connection& c) { return c.qp->path && c.peer; }) == 12);
    a.source = SnapshotSource::file;
    const std::string text = snapshot_to_text(a);
    Snapshot b = snapshot_from_text(text).take();
    CHECK(b.connections == a.connections);
    for (const Connection& c : b.connections)
        CHECK(c.via == Via::verbs);

    auto doc = nlohmann::json::parse(text);
    CHECK_FALSE(doc["connections"][0].contains("cm_id"));
    CHECK_FALSE(doc["connections"][0].contains("state"));
    CHECK(doc["connections"][0]["via"] == "verbs");
    auto refused = [&](auto edit, const std::string& message) {
        auto d = doc;
        edit(d);
        auto r = snapshot_from_text(d.dump());
        INFO(message);
        REQUIRE_FALSE(r.ok());
        CHECK_THAT(r.error(), Catch::Contains(message));
    };
    refused([](auto& d) { d["connections"][3]["qp"] = nullptr; },
            "connections[3].qp: a verbs connection needs its QP");
    refused([](auto& d) { d["connections"][0]["via"] = "cm"; },
            "connections[0].cm_id: missing (required for \"via\": \"cm\")");
    refused([](auto& d) { d["connections"][0]["via"] = "smoke-signals"; }, "connections[0].via");
    // An older file has no "via": its connections are cm ids, as it meant.
    Snapshot old = lab_snapshot();
    auto old_doc = nlohmann::json::parse(fixture_text("snapshot.json"));
    REQUIRE_FALSE(old_doc["connections"][0].contains("via"));
    for (const Connection& c : old.connections) {
        CHECK(c.via == Via::cm);
        CHECK(c.cm_id);
    }
}
