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
