// SPDX-License-Identifier: MIT
// Resource kinds: one enum and one table of names. A kind without a name, or
// named twice, fails here.
#include "catch_compat.hpp"
#include "collect/snapshot_file.h"
#include "model/names.h"
#include "render/json_common.h"
#include "support.h"

#include <set>

using namespace rdmastat;
using namespace rdmastat::test;

TEST_CASE("resource kinds: every kind survives its name", "[names]") {
    std::set<std::string> names;
    for (std::size_t i = 0; i < resource_kind_count; ++i) {
        auto kind = static_cast<ResourceKind>(i);
        std::string name = name_of(kind);
        INFO(i << " " << name);
        CHECK_FALSE(name.empty());
        CHECK(resource_kind_from_name(name) == kind);
        CHECK(names.insert(name).second); // no two kinds share a name
        CHECK(nlohmann::ordered_json(kind) == name);
    }
    // The names JSON and snapshots have always used, in lsof's order.
    CHECK(resource_kind_name(ResourceKind::qp) == "qp");
    CHECK(resource_kind_name(ResourceKind::cq) == "cq");
    CHECK(resource_kind_name(ResourceKind::mr) == "mr");
    CHECK(resource_kind_name(ResourceKind::pd) == "pd");
    CHECK(resource_kind_name(ResourceKind::ctx) == "ctx");
    CHECK(ResourceKind::qp < ResourceKind::cq);
    CHECK(ResourceKind::pd < ResourceKind::ctx);
    CHECK_FALSE(resource_kind_from_name("QP")); // exact, as the writer wrote it
    CHECK_FALSE(resource_kind_from_name("srq"));
    CHECK_FALSE(resource_kind_from_name(""));
}

TEST_CASE("resource kinds: a snapshot naming an unknown kind is refused where it says so",
          "[snapshot]") {
    auto doc = nlohmann::json::parse(fixture_text("snapshot-host.json"));
    REQUIRE(doc.at("resources").size() > 1);
    CHECK(snapshot_from_text(doc.dump()).ok());
    doc["resources"][1]["kind"] = "srq";
    auto snap = snapshot_from_text(doc.dump());
    REQUIRE_FALSE(snap.ok());
    CHECK_THAT(snap.error(), Catch::StartsWith("test.json: ") &&
                                 Catch::Contains("resources[1].kind: unknown resource kind 'srq'"));
}
