// SPDX-License-Identifier: MIT
// The streaming snapshot writer against nlohmann's own dump of the same
// document: compact and indented output must match it byte for byte.
#include "catch_compat.hpp"
#include "render/json.h"
#include "render/json_writer.h"
#include "support.h"

#include <sstream>

using namespace rdmastat;
using namespace rdmastat::test;
using ordered = nlohmann::ordered_json;

TEST_CASE("the streamed snapshot is what nlohmann would dump", "[render]") {
    for (const char* name : {"snapshot.json", "snapshot-host-user.json"}) {
        Snapshot s = snapshot_from_text(fixture_text(name)).take();
        // Names any process can choose: control bytes, quotes, bytes that are not UTF-8.
        s.connections.at(0).owner.comm = std::string("a\"b\\c\x01\n\xff\xc3(", 11);
        s.connections.at(1).owner = Owner{};
        s.connections.at(1).owner.kernel = "nvme_rdma";
        s.connections.at(2).internal = true;
        s.connections.at(2).mapped = false;
        s.connections.at(2).mapped_local = s.connections.at(2).local;
        for (bool pretty : {false, true}) {
            INFO(name << (pretty ? " indented" : " compact"));
            std::string text = snapshot_to_text(s, pretty);
            REQUIRE(text.back() == '\n');
            ordered doc = ordered::parse(text);
            CHECK(doc["connections"].size() == s.connections.size());
            CHECK(text ==
                  doc.dump(pretty ? 2 : -1, ' ', false, ordered::error_handler_t::replace) + "\n");
        }
    }
}

TEST_CASE("an empty listing streams as an empty array", "[render]") {
    Snapshot s;
    s.source = SnapshotSource::nldev;
    CHECK(snapshot_to_text(s, false) ==
          "{\"version\":1,\"source\":\"nldev\",\"devices\":[],\"connections\":[]}\n");
    CHECK(snapshot_to_text(s, true) ==
          "{\n  \"version\": 1,\n  \"source\": \"nldev\",\n  \"devices\": [],\n"
          "  \"connections\": []\n}\n");
}

TEST_CASE("strings are escaped as nlohmann's dump escapes them, bad UTF-8 included", "[render]") {
    // Bytes drawn from where UTF-8's rules change: ASCII controls, the
    // continuation range, every lead byte class and the bytes never allowed.
    static constexpr unsigned char pool[] = {
        0x00, 0x01, 0x08, 0x09, 0x0a, 0x0c, 0x0d, 0x1f, 0x20, '"',  '\\', '/',  'a',
        0x7e, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0,
        0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xf8, 0xfe, 0xff};
    std::uint64_t seed = 0x9e3779b97f4a7c15u;
    auto next = [&seed] {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        return seed;
    };
    std::size_t replaced = 0;
    for (int round = 0; round < 200000; ++round) {
        std::string s(next() % 9, '\0');
        for (char& ch : s)
            ch = static_cast<char>(pool[next() % sizeof(pool)]);
        std::string ours;
        JsonWriter w(ours, false);
        w.string(s);
        const std::string theirs =
            ordered(s).dump(-1, ' ', false, ordered::error_handler_t::replace);
        INFO("round " << round);
        REQUIRE(ours == theirs);
        replaced += ours.find("\xef\xbf\xbd") != std::string::npos;
    }
    CHECK(replaced > 10000); // the rounds did reach the replacement path
}
