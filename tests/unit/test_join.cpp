// SPDX-License-Identifier: MIT
// Joining captured cm_ids with captured QPs and /proc owners, judged by the referee.
#include "analysis/join.h"
#include "support.h"

#include <catch2/catch.hpp>

using namespace rdmastat;
using namespace rdmastat::test;
using nlohmann::json;

namespace {
const std::string owners_file = std::string(RDMASTAT_FIXTURES) + "/owners.txt";

const Connection& find(const Snapshot& s, const std::string& dev, std::uint32_t id) {
    for (const auto& c : s.connections)
        if (c.device == dev && c.cm_id == id) return c;
    FAIL("no connection " << dev << "/" << id);
    throw;
}
} // namespace

TEST_CASE("join of captured dumps agrees with rdma cm_id and qp listings", "[join]") {
    NldevData data = fixture_nldev();
    Snapshot snap = join(data, fixture_owners(owners_file), "nldev");
    CHECK(snap.source == "nldev");
    CHECK(snap.devices.size() == 2);
    auto diffs =
        compare_with_referee(snap.connections, json::parse(fixture_text("rdma-cm_id.json")),
                             json::parse(fixture_text("rdma-qp.json")));
    INFO(Catch::Detail::stringify(diffs));
    CHECK(diffs.empty());
    for (const auto& c : snap.connections) {
        CHECK(c.transport == (c.device == "siw0" ? Transport::iwarp : Transport::roce));
        CHECK(c.owner.uid == 0u);
    }
}

TEST_CASE("owner_pids lists each pid once", "[join]") {
    NldevData data = fixture_nldev();
    auto pids = owner_pids(data);
    CHECK(pids.size() == fixture_owners(owners_file).size());
    for (const auto& c : data.cm_ids)
        CHECK(pids.count(*c.owner.pid));
}

TEST_CASE("a QP gone from the QP dump keeps the cm_id's QP number and type", "[join]") {
    NldevData data = fixture_nldev();
    const CmIdRecord* with_qp = nullptr;
    for (const auto& c : data.cm_ids)
        if (c.qp_number) with_qp = &c;
    REQUIRE(with_qp);
    std::erase_if(data.qps, [&](const QpRecord& q) {
        return q.device_index == with_qp->device_index && q.number == *with_qp->qp_number;
    });
    Snapshot snap = join(data, {}, "nldev");
    const Connection& c = find(snap, with_qp->device_name, with_qp->cm_idn);
    REQUIRE(c.qp);
    CHECK(c.qp->number == *with_qp->qp_number);
    CHECK(c.qp->type == "RC");
    CHECK_FALSE(c.qp->state);
}

TEST_CASE("a process that exited keeps its pid and nothing invented", "[join]") {
    NldevData data = fixture_nldev();
    Snapshot snap = join(data, {}, "nldev");
    for (const auto& c : snap.connections) {
        CHECK(c.owner.pid);
        CHECK_FALSE(c.owner.comm);
        CHECK_FALSE(c.owner.uid);
        CHECK_FALSE(c.owner.user);
    }
}

TEST_CASE("a kernel owner is named, without a pid", "[join]") {
    NldevData data = fixture_nldev();
    // The capture has one kernel-owned QP (rxe's GSI QP1, held by ib_core) but no
    // kernel-owned cm_id; give one id that owner the way the kernel reports it.
    auto kernel_qp = std::find_if(data.qps.begin(), data.qps.end(),
                                  [](const QpRecord& q) { return q.owner.kernel.has_value(); });
    REQUIRE(kernel_qp != data.qps.end());
    data.cm_ids.front().owner = kernel_qp->owner;
    Snapshot snap = join(data, fixture_owners(owners_file), "nldev");
    const Connection& c = snap.connections.front();
    CHECK(c.owner.kernel == "ib_core");
    CHECK_FALSE(c.owner.pid);
}
