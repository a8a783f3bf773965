// SPDX-License-Identifier: MIT
// Resource kinds: one enum, one table of names, one NLDEV table. A kind missing
// from either table, out of order or named twice fails here.
#include "catch_compat.hpp"
#include "collect/nldev_parse.h"
#include "collect/snapshot_file.h"
#include "model/names.h"
#include "model/schema.h"
#include "support.h"

#include <rdma/rdma_netlink.h>
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
        CHECK(enum_from_name<ResourceKind>(name) == kind);
        CHECK(names.insert(name).second); // no two kinds share a name
        CHECK(schema::to_text(kind) == name); // as every JSON writer names it
    }
    // The names JSON and snapshots have always used, in lsof's order.
    CHECK(name_of(ResourceKind::qp) == "qp");
    CHECK(name_of(ResourceKind::cq) == "cq");
    CHECK(name_of(ResourceKind::mr) == "mr");
    CHECK(name_of(ResourceKind::pd) == "pd");
    CHECK(name_of(ResourceKind::ctx) == "ctx");
    CHECK(name_of(ResourceKind::srq) == "srq");
    CHECK(ResourceKind::qp < ResourceKind::cq);
    CHECK(ResourceKind::pd < ResourceKind::ctx);
    CHECK_FALSE(enum_from_name<ResourceKind>("QP"));      // exact, as the writer wrote it
    CHECK_FALSE(enum_from_name<ResourceKind>("counter")); // NLDEV tracks it; rdmastat lists none
    CHECK_FALSE(enum_from_name<ResourceKind>(""));
}

TEST_CASE("resource kinds: the NLDEV table has one row per kind, in order", "[resources]") {
    auto rows = nldev_resource_kinds();
    REQUIRE(rows.size() == resource_kind_count);
    std::set<unsigned> commands;
    std::set<int> lists, entries, numbers;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const NldevResourceKind& k = rows[i];
        INFO(name_of(k.kind));
        CHECK(k.kind == static_cast<ResourceKind>(i));
        CHECK(&nldev_resource_kind(k.kind) == &k);
        CHECK(commands.insert(k.command).second);
        CHECK(lists.insert(k.list_attr).second);
        CHECK(entries.insert(k.entry_attr).second);
        CHECK(numbers.insert(k.number_attr).second);
        CHECK_THAT(std::string(k.number_name), Catch::Contains("number"));
        // Only qp's dump goes through parse_qp_dump (QPs are joined with cm_ids).
        CHECK((k.details == nullptr) == (k.kind == ResourceKind::qp));
        // Only SRQs are newer than kernels rdmastat still meets (Linux 5.19).
        CHECK((k.since != nullptr) == (k.kind == ResourceKind::srq));
    }
    CHECK(nldev_resource_kind(ResourceKind::qp).command == RDMA_NLDEV_CMD_RES_QP_GET);
    CHECK(nldev_resource_kind(ResourceKind::ctx).command == RDMA_NLDEV_CMD_RES_CTX_GET);
    CHECK(nldev_resource_kind(ResourceKind::srq).command == RDMA_NLDEV_CMD_RES_SRQ_GET);
}

TEST_CASE("resource kinds: every kind's captured dump parses as that kind", "[resources]") {
    for (const NldevResourceKind& k : nldev_resource_kinds()) {
        INFO(name_of(k.kind));
        auto records = parse_resource_dump(k.kind, fixture_bytes(name_of(k.kind) + "-rxe0.bin"));
        REQUIRE(records.ok());
        CHECK_FALSE(records.value().empty());
        // The numbers are those `rdma res show KIND` gave for rxe0 at the same moment.
        const std::string key = k.kind == ResourceKind::qp ? "lqpn" : name_of(k.kind) + "n";
        std::multiset<std::uint32_t> ours, referee;
        for (const ResourceRecord& r : records.value())
            ours.insert(r.number);
        for (const auto& e :
             nlohmann::json::parse(fixture_text("rdma-" + name_of(k.kind) + ".json")))
            if (e.at("ifname") == "rxe0") referee.insert(e.at(key).get<std::uint32_t>());
        CHECK(ours == referee);
    }
}

TEST_CASE("resource kinds: a snapshot naming an unknown kind is refused where it says so",
          "[snapshot]") {
    auto doc = nlohmann::json::parse(fixture_text("snapshot-host.json"));
    REQUIRE(doc.at("resources").size() > 1);
    CHECK(snapshot_from_text(doc.dump()).ok());
    doc["resources"][1]["kind"] = "counter";
    auto snap = snapshot_from_text(doc.dump());
    REQUIRE_FALSE(snap.ok());
    CHECK_THAT(snap.error(),
               Catch::StartsWith("test.json: ") &&
                   Catch::Contains("resources[1].kind: unknown resource kind 'counter'"));
}
