// SPDX-License-Identifier: MIT
// The streaming snapshot writer against nlohmann's own dump of the same
// document: compact and indented output must match it byte for byte.
#include "catch_compat.hpp"
#include "render/json.h"
#include "render/json_writer.h"
#include "support.h"

#include <cmath>
#include <cstring>
#include <limits>
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
        // A string longer than a key's or a number's room.
        s.connections.at(2).owner.cgroup = "/kubepods.slice/" + std::string(80, 'p') + ".scope";
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

TEST_CASE("values longer than the writer's buffer grow it, and pieces reach the sink in order",
          "[render]") {
    // The buffer starts at 4 KiB: a 300 KB string (plain, then escaped) grows
    // it, and 5000 closed objects make the writer pass pieces to the sink.
    const std::string plain(300000, 'x'), escaped(300000, '\n');
    for (bool pretty : {false, true}) {
        INFO((pretty ? "indented" : "compact"));
        std::ostringstream o;
        JsonWriter w(o, pretty);
        w.begin_array();
        w.string(plain);
        w.string(escaped);
        for (std::uint64_t i = 0; i < 5000; ++i) {
            w.begin_object();
            w.schema_key("n");
            w.number(i);
            w.end_object();
        }
        w.end_array();
        w.end();
        const std::string text = o.str();
        ordered doc = ordered::parse(text);
        REQUIRE(doc.size() == 5002);
        CHECK(doc[0] == plain);
        CHECK(doc[1] == escaped);
        CHECK(doc[4999 + 2]["n"] == 4999);
        CHECK(text == doc.dump(pretty ? 2 : -1) + "\n");
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
        std::ostringstream o;
        JsonWriter w(o, false);
        w.string(s);
        w.flush();
        const std::string ours = o.str();
        const std::string theirs =
            ordered(s).dump(-1, ' ', false, ordered::error_handler_t::replace);
        INFO("round " << round);
        REQUIRE(ours == theirs);
        replaced += ours.find("\xef\xbf\xbd") != std::string::npos;
    }
    CHECK(replaced > 10000); // the rounds did reach the replacement path
}

TEST_CASE("doubles are the shortest digits that read back, laid out as nlohmann lays them out",
          "[render]") {
    auto text = [](double d) {
        std::ostringstream out;
        JsonWriter w(out, false);
        w.real(d);
        w.flush();
        return out.str();
    };
    CHECK(text(2.0) == "2.0");
    CHECK(text(0.25) == "0.25");
    CHECK(text(0.0) == "0.0");
    CHECK(text(-0.0) == "-0.0");
    CHECK(text(1e16) == "1e+16");
    CHECK(text(1.5e-5) == "1.5e-05");
    CHECK(text(123456789012345.0) == "123456789012345.0");
    CHECK(text(0.001) == "0.001");
    CHECK(text(std::numeric_limits<double>::infinity()) == "null");
    // A handshake of 59477146976 ns in ms: nlohmann's Grisu2 writes
    // 59477.146976000004 for the same double.
    CHECK(text(59477146976 / 1e6) == "59477.146976");

    std::uint64_t seed = 42;
    std::size_t shorter = 0, same = 0, rounds = 0;
    for (int round = 0; round < 300000; ++round) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        double d = 0;
        switch (round % 3) {
        case 0: // any finite double
            std::memcpy(&d, &seed, sizeof(d));
            if (!std::isfinite(d)) continue;
            break;
        case 1: // nanoseconds as milliseconds, as -E writes them
            d = static_cast<double>(seed >> 24) / 1e6;
            break;
        default: // a count over seconds, as ping's rates are
            d = static_cast<double>(seed >> 44) / static_cast<double>((seed & 0xffff) + 1);
        }
        const std::string ours = text(d);
        const std::string theirs = ordered(d).dump();
        INFO(theirs << " written as " << ours);
        REQUIRE(ordered::parse(ours).get<double>() == d);
        REQUIRE(ours.size() <= theirs.size());
        ++rounds;
        shorter += ours.size() < theirs.size();
        same += ours == theirs;
    }
    // Grisu2 is not always shortest (ours then is), and among digits of one
    // length it may pick another that reads back the same; otherwise the text
    // is the same.
    CHECK(shorter > 0);
    CHECK(same > rounds * 99 / 100);
}
