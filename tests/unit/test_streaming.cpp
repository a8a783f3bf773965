// SPDX-License-Identifier: MIT
// The listing streams: a saved snapshot's connections go from the parser through
// the selection to the writer one at a time, so that a listing of any length
// needs bounded memory. What streams must be what the whole snapshot holds.
#include "catch_compat.hpp"
#include "cli/app.h"
#include "collect/snapshot_file.h"
#include "render/json.h"
#include "render/text.h"
#include "support.h"

#include <nlohmann/json.hpp>
#include <sstream>

using namespace rdmastat;
using namespace rdmastat::test;

namespace {

Result<Snapshot> parse_with(const std::string& text, ConnectionSink* sink) {
    std::istringstream in(text);
    return parse_snapshot_json(in, "test.json", sink);
}

nlohmann::ordered_json fixture_doc() {
    return nlohmann::ordered_json::parse(fixture_text("snapshot.json"));
}

} // namespace

TEST_CASE("a snapshot's connections stream to a sink, in order, each once", "[streaming]") {
    nlohmann::ordered_json doc = fixture_doc();
    // One connection the fast path declines: it streams through the general one.
    doc["connections"][1]["unknown_key"] = {1, 2};
    const std::string text = doc.dump();
    const Snapshot whole = parse_with(text, nullptr).take();
    REQUIRE(whole.connections.size() == doc["connections"].size());
    REQUIRE_FALSE(whole.devices.empty());

    RecordingSink sink;
    Snapshot rest = parse_with(text, &sink).take();
    CHECK(sink.begins == 1);
    CHECK(sink.devices_at_begin == whole.devices.size());
    CHECK(sink.connections == whole.connections);
    CHECK(rest.connections.empty());
    CHECK(rest.devices == whole.devices);
}

TEST_CASE("a snapshot streams only when its version and devices come first", "[streaming]") {
    nlohmann::ordered_json doc = fixture_doc();
    const std::size_t n = doc["connections"].size();
    // Devices after the connections: kept, and the sink never called.
    nlohmann::ordered_json late = nlohmann::ordered_json::object();
    late["version"] = doc["version"];
    late["connections"] = doc["connections"];
    late["devices"] = doc["devices"];
    RecordingSink sink;
    Snapshot kept = parse_with(late.dump(), &sink).take();
    CHECK(sink.begins == 0);
    CHECK(kept.connections.size() == n);
    // Devices that are not a list: refused at the end, so nothing streams.
    nlohmann::ordered_json odd = doc;
    odd["devices"] = 5;
    RecordingSink not_list;
    auto bad = parse_with(odd.dump(), &not_list);
    REQUIRE_FALSE(bad.ok());
    CHECK_THAT(bad.error(), Catch::Contains("devices: expected an array"));
    CHECK(not_list.begins == 0);
    // A version this rdmastat does not read: refused, and nothing streamed.
    doc["version"] = 99;
    RecordingSink refused;
    auto r = parse_with(doc.dump(), &refused);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error(), Catch::Contains("schema version 99 is not supported"));
    CHECK(refused.begins == 0);
}

TEST_CASE("a snapshot cut short after streaming began fails with what came before", "[streaming]") {
    nlohmann::ordered_json doc = fixture_doc();
    const std::string text = doc.dump();
    // Cut inside the third connection.
    const std::string third = doc["connections"][2].dump();
    const auto at = text.find(third);
    REQUIRE(at != std::string::npos);
    RecordingSink sink;
    auto r = parse_with(text.substr(0, at + third.size() / 2), &sink);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error(), Catch::StartsWith("test.json: not valid JSON at byte "));
    REQUIRE(sink.connections.size() == 2);
    CHECK(sink.connections[1].cm_id == doc["connections"][1]["cm_id"].get<std::uint32_t>());
}

TEST_CASE("a long text listing is aligned a block at a time, columns only widening",
          "[streaming][render]") {
    Connection c;
    c.device = "siw0";
    c.transport = Transport::iwarp;
    c.state = CmState::listen;
    TextOptions opts;
    std::ostringstream out;
    auto w = text_listing_writer(out, opts);
    w->begin(Snapshot{});
    for (std::size_t i = 0; i < listing_block_rows; ++i)
        w->connection(c);
    c.device = "a-much-longer-device-name";
    for (int i = 0; i < 3; ++i)
        w->connection(c);
    c.device = "x";
    w->connection(c);
    w->finish(Snapshot{});

    std::vector<std::string> lines;
    std::istringstream in(out.str());
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    REQUIRE(lines.size() == listing_block_rows + 5); // one header, every row
    CHECK(lines[0].starts_with("Transport  Device  Dev-Port"));
    // The first block is aligned as the one table it would have been...
    const auto transport = lines[1].find("siw0");
    const auto first_port = lines[1].find(" -", transport + 4);
    CHECK(first_port == lines[0].find("Dev-Port") - 1);
    // ...and the second on its widest device, the short name included.
    const auto later_port = lines[listing_block_rows + 1].find(" -", transport + 25);
    CHECK(later_port > first_port);
    CHECK(lines.back().find(" -", transport + 1) == later_port);
    std::size_t headers = 0;
    for (const std::string& l : lines)
        headers += l.starts_with("Transport");
    CHECK(headers == 1);
}

TEST_CASE("the streamed listing of a snapshot file is the whole snapshot's listing",
          "[streaming][cli]") {
    const std::string path = fixture_path("snapshot.json");
    const Snapshot whole = load_snapshot_file(path).take();
    std::vector<const Connection*> all;
    for (const Connection& c : whole.connections)
        all.push_back(&c);
    std::ostringstream text, json;
    render_listing(text, all, TextOptions{true, false, true, true});
    write_snapshot_json(json, whole, all, false);
    Run r = run({"--input", path, "-a", "-p", "-e"});
    CHECK(r.rc == 0);
    CHECK(r.out == text.str());
    r = run({"--input", path, "-a", "-j"});
    CHECK(r.rc == 0);
    CHECK(r.out == json.str());
}
