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

namespace {

// How many connections of text the fast path takes, and how many it leaves to
// the general one.
std::pair<std::size_t, std::size_t> fast_and_general(const std::string& text) {
    std::size_t taken = 0, declined = 0;
    std::istringstream in(text);
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
    REQUIRE_FALSE(parse_json_stream(in, 64, 1024, on).error);
    return {taken, declined};
}

} // namespace

TEST_CASE("connections read by the fast and the general path agree", "[snapshot]") {
    for (const char* name : {"snapshot.json", "snapshot-host-user.json"}) {
        INFO(name);
        nlohmann::ordered_json doc = nlohmann::ordered_json::parse(fixture_text(name));
        {
            // Every optional member somewhere. Added keys come last, out of
            // schema order: the fast path declines those connections.
            auto& conns = doc["connections"];
            REQUIRE(conns.size() >= 5);
            conns[0]["mapped"] = true;
            conns[0]["mapped_local"] = conns[0]["local"];
            conns[0]["netns"] = 4026531840u;
            conns[1]["internal"] = true;
            conns[1]["owner"] = {{"kernel", "nvme_rdma"}};
            conns[2]["qp"] = nullptr;
            conns[2]["qp_unjoined"] = {{"number", 17}, {"reason", "other_owner"}};
            conns[2]["owner"]["tid"] = 7;
        }
        const std::string shuffled = doc.dump();
        CHECK(fast_and_general(shuffled).second >= 3);
        // Written back, every connection is in the writers' order; then nulls
        // where a member may be null (set in place, so the order holds).
        doc = nlohmann::ordered_json::parse(snapshot_to_text(snapshot_from_text(shuffled).take()));
        auto& written = doc["connections"];
        written[1]["internal"] = nullptr;   // if_true
        written[3]["port_space"] = nullptr; // optional
        written[3]["peer"] = nullptr;       // optional
        written[4]["owner"] = nullptr;      // defaulted
        // A QP's path (a verbs connection's): the last member of its QP.
        std::size_t with_qp = 0;
        while (with_qp < written.size() && !written[with_qp]["qp"].is_object())
            ++with_qp;
        REQUIRE(with_qp < written.size());
        written[with_qp]["qp"]["path"] = {{"port", 1},       {"dgid", "::ffff:10.9.0.2"},
                                          {"sgid_index", 1}, {"sgid", "::ffff:10.9.0.1"},
                                          {"hop_limit", 64}, {"mtu", 1024}};
        Snapshot fast = snapshot_from_text(doc.dump()).take();
        CHECK(fast_and_general(doc.dump()) ==
              std::pair<std::size_t, std::size_t>{written.size(), 0});
        CHECK_FALSE(fast.connections[1].internal);
        CHECK_FALSE(fast.connections[3].port_space);
        CHECK_FALSE(fast.connections[3].peer);
        CHECK(fast.connections[4].owner == Owner{});
        CHECK(fast.connections[0].netns == 4026531840u);
        REQUIRE(fast.connections[with_qp].qp->path);
        CHECK(fast.connections[with_qp].qp->path->mtu == 1024u);
        CHECK(fast.connections[with_qp].qp->path->dgid == IpAddress::parse("::ffff:10.9.0.2"));
        CHECK(fast.connections[with_qp].qp->path->sgid_index == 1u);
        CHECK(fast.connections[1].owner.kernel == "nvme_rdma");
        CHECK(fast.connections[2].owner.tid == 7u);
        CHECK(fast.connections[2].qp_unjoined == UnjoinedQp{17, QpUnjoined::other_owner});
        CHECK_FALSE(fast.connections[2].qp);
        // The general path reads the same: every connection given an unknown key.
        for (auto& c : written)
            c["unknown_key"] = {1, 2};
        CHECK(fast_and_general(doc.dump()) ==
              std::pair<std::size_t, std::size_t>{0, written.size()});
        Snapshot general = snapshot_from_text(doc.dump()).take();
        REQUIRE(fast.connections.size() == written.size());
        CHECK(snapshot_to_text(fast) == snapshot_to_text(general));
    }
}

TEST_CASE("the fast path declines what is not a plain connection in schema order", "[snapshot]") {
    // One connection as the writer writes it, then variants the fast path must
    // leave to the general one (which reads or refuses them and names why).
    const std::string plain =
        R"({"device":"siw0","transport":"iwarp","cm_id":1,"state":"LISTEN",)"
        R"("local":{"address":"10.0.0.1","port":7174},"owner":{"pid":5,"comm":"x"}})";
    auto taken = [](const std::string& connection) {
        return fast_and_general(R"({"version":1,"connections":[)" + connection + "]}");
    };
    CHECK(taken(plain) == std::pair<std::size_t, std::size_t>{1, 0});
    for (
        const char* variant : {
            R"({"transport":"iwarp","device":"siw0","cm_id":1,"state":"LISTEN"})", // order
            R"({"device":"siw0","device":"siw0","transport":"iwarp","cm_id":1,"state":"LISTEN"})",
            // An escape in a key, and in a value.
            "{\"\\u0064evice\":\"siw0\",\"transport\":\"iwarp\",\"cm_id\":1,\"state\":\"LISTEN\"}",
            "{\"device\":\"siw\\u0030\",\"transport\":\"iwarp\",\"cm_id\":1,\"state\":\"LISTEN\"}",
            R"({"device":"siw0","transport":"iwarp","cm_id":1,"state":"LISTEN","x":1})",
            R"({"device":"siw0","transport":"iwarp","cm_id":1.0,"state":"LISTEN"})",
            R"({"device":"siw0","transport":"iwarp","cm_id":-1,"state":"LISTEN"})",
            R"({"device":"siw0","transport":"iwarp","state":"LISTEN"})", // cm_id required
            R"({"device":"siw0","transport":"warp","cm_id":1,"state":"LISTEN"})",
            R"({"device":"siw0","transport":"iwarp","cm_id":1,"state":"LISTEN","owner":{"kernel":"k","pid":1}})",
        }) {
        INFO(variant);
        CHECK(taken(variant).first == 0);
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
