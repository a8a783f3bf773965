// SPDX-License-Identifier: MIT
// Snapshot loading has a fast path for connections of the usual shape and the
// general one (a document per element, which names errors). An unknown key
// sends a connection down the general path: both must read the same thing.
#include "catch_compat.hpp"
#include "collect/json_stream.h"
#include "collect/snapshot_fast.h"
#include "render/json.h"
#include "support.h"

#include <sstream>

using namespace rdmastat;
using namespace rdmastat::test;

TEST_CASE("connections read by the fast and the general path agree", "[snapshot]") {
    for (const char* name : {"snapshot.json", "snapshot-host-user.json"}) {
        INFO(name);
        nlohmann::ordered_json doc = nlohmann::ordered_json::parse(fixture_text(name));
        // Every optional field somewhere, and nulls where absent is allowed.
        auto& conns = doc["connections"];
        REQUIRE(conns.size() >= 3);
        conns[0]["mapped"] = true;
        conns[0]["mapped_local"] = conns[0]["local"];
        conns[0]["netns"] = 4026531840u;
        conns[1]["internal"] = true;
        conns[1]["port_space"] = nullptr;
        conns[1]["owner"] = {{"kernel", "nvme_rdma"}};
        conns[2]["qp"] = nullptr;
        conns[2]["qp_unjoined"] = {{"number", 17}, {"reason", "other_owner"}};
        conns[2]["owner"]["tid"] = 7;
        // The keys added above come last, out of schema order: the fast path
        // declines those connections, and the general one reads them.
        const std::string shuffled = doc.dump();
        // Written back, every connection is in the writers' order.
        doc = nlohmann::ordered_json::parse(
            snapshot_to_text(snapshot_from_text(shuffled).take()));
        auto& written = doc["connections"];
        Snapshot fast = snapshot_from_text(doc.dump()).take();
        CHECK(snapshot_to_text(snapshot_from_text(shuffled).take()) == snapshot_to_text(fast));
        for (auto& c : written)
            c["unknown_key"] = {1, 2};
        Snapshot general = snapshot_from_text(doc.dump()).take();
        REQUIRE(fast.connections.size() == written.size());
        CHECK(snapshot_to_text(fast) == snapshot_to_text(general));
        CHECK(fast.connections[0].netns == 4026531840u);
        CHECK(fast.connections[1].internal);
        CHECK(fast.connections[2].owner.tid == 7u);
        CHECK(fast.connections[2].qp_unjoined == UnjoinedQp{17, QpUnjoined::other_owner});
        CHECK_FALSE(fast.connections[2].qp);
        // The fast path did read the first document: each of its connections has
        // the usual shape, and each of the second's does not (unknown_key).
        std::size_t taken = 0, declined = 0;
        for (const bool with_unknown : {false, true}) {
            nlohmann::ordered_json d = doc;
            for (auto& c : d["connections"])
                if (!with_unknown) c.erase("unknown_key");
            std::istringstream in(d.dump());
            JsonStreamHandlers on;
            on.element = [&](const std::string& list, std::size_t, const JsonElement&) {
                declined += list == "connections";
            };
            on.fast = [&](const std::string& list, std::size_t, JsonPull& pull) {
                Connection c;
                if (list != "connections" || !fast_connection(pull, c)) return false;
                ++taken;
                return true;
            };
            auto parsed = parse_json_stream(in, 64, 1024, on);
            REQUIRE_FALSE(parsed.error);
        }
        CHECK(taken == written.size());
        CHECK(declined == written.size());
    }
}

TEST_CASE("a root list given twice is refused, not merged", "[snapshot]") {
    // Each list is read as it streams by: a second one would add to the first.
    auto r = snapshot_from_text(
        R"({"version": 1, "source": "nldev", "connections": [], "connections": []})");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error() == "test.json: connections: given twice");
    CHECK(snapshot_from_text(R"({"version": 1, "version": 1})").error() ==
          "test.json: version: given twice");
}
