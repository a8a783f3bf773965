// SPDX-License-Identifier: MIT
// Joining captured cm_ids with captured QPs and /proc owners, judged by the referee.
#include "analysis/join.h"
#include "catch_compat.hpp"
#include "support.h"

#include <linux/rdmastat.h>
#include <set>

using namespace rdmastat;
using namespace rdmastat::test;
using nlohmann::json;

namespace {
const std::string owners_file = fixtures_dir() + "/owners.txt";

const Connection& find(const Snapshot& s, const std::string& dev, std::uint32_t id) {
    for (const auto& c : s.connections)
        if (c.device == dev && c.cm_id == id) return c;
    FAIL("no connection " << dev << "/" << id);
    throw;
}
} // namespace

TEST_CASE("join of each kernel's captured dumps agrees with rdma cm_id and qp listings", "[join]") {
    FOR_EACH_FIXTURE_KERNEL();
    NldevData data = fixture_nldev();
    Snapshot snap = join(data, fixture_owners(fixture_path("owners.txt")));
    CHECK(snap.source == SnapshotSource::nldev);
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

TEST_CASE("a QP gone from the QP dump is not the id's: qp_unjoined says gone", "[join]") {
    NldevData data = fixture_nldev();
    const CmIdRecord* with_qp = nullptr;
    for (const auto& c : data.cm_ids)
        if (c.qp_number) with_qp = &c;
    REQUIRE(with_qp);
    std::erase_if(data.qps, [&](const QpRecord& q) {
        return q.device_index == with_qp->device_index && q.number == *with_qp->qp_number;
    });
    Snapshot snap = join(data, {});
    const Connection& c = find(snap, with_qp->device_name, with_qp->cm_idn);
    CHECK_FALSE(c.qp);
    REQUIRE(c.qp_unjoined);
    CHECK(c.qp_unjoined->number == *with_qp->qp_number);
    CHECK(c.qp_unjoined->reason == QpUnjoined::gone);
}

namespace {

// The captured dumps with every QP joined to its id, and one id whose QP is
// given to owner instead: what a process naming another's QP number looks like.
struct Hostile {
    NldevData data = fixture_nldev();
    CmIdRecord* id = nullptr;
    QpRecord* qp = nullptr;

    Hostile() {
        for (auto& c : data.cm_ids)
            if (c.qp_number && c.owner.pid) id = &c;
        REQUIRE(id);
        for (auto& q : data.qps)
            if (q.device_index == id->device_index && q.number == *id->qp_number) qp = &q;
        REQUIRE(qp);
    }
    const Connection& joined(const OwnerMap& owners = {}) {
        snap = join(data, owners);
        return find(snap, id->device_name, id->cm_idn);
    }
    Snapshot snap;
};

} // namespace

TEST_CASE("a QP of another process is never shown as the id's", "[join]") {
    Hostile h;
    REQUIRE(h.joined().qp); // as captured: the id's own QP
    h.qp->owner.pid = *h.id->owner.pid + 1000;
    const Connection& c = h.joined();
    CHECK_FALSE(c.qp);
    REQUIRE(c.qp_unjoined);
    CHECK(c.qp_unjoined->number == *h.id->qp_number);
    CHECK(c.qp_unjoined->reason == QpUnjoined::other_owner);
    // A kernel QP is not a user id's either.
    h.qp->owner = RawOwner{std::nullopt, std::string("rdma_cm")};
    CHECK(h.joined().qp_unjoined);
}

TEST_CASE("a QP made by another thread of the id's process is the id's", "[join]") {
    Hostile h;
    const std::uint32_t process = *h.id->owner.pid, thread = process + 1000;
    h.qp->owner.pid = thread;
    OwnerMap owners;
    owners[process].pid = process;
    owners[thread].pid = process; // resolve_owners maps a thread to its process
    owners[thread].tid = thread;
    const Connection& c = h.joined(owners);
    REQUIRE(c.qp);
    CHECK(c.qp->number == *h.id->qp_number);
    CHECK(c.qp->state);
    CHECK_FALSE(c.qp_unjoined);
}

TEST_CASE("a kernel id joins a QP of its own name or rdma_cm's, no other", "[join]") {
    Hostile h;
    h.id->owner = RawOwner{std::nullopt, std::string("nvme_rdma")};
    for (const char* owner : {"nvme_rdma", "rdma_cm"}) {
        h.qp->owner = RawOwner{std::nullopt, std::string(owner)};
        INFO(owner);
        CHECK(h.joined().qp);
    }
    h.qp->owner = RawOwner{std::nullopt, std::string("rpcrdma")};
    REQUIRE(h.joined().qp_unjoined);
    CHECK(h.joined().qp_unjoined->reason == QpUnjoined::other_owner);
}

TEST_CASE("the module's reasons become qp_unjoined; unknown ones mean not its QP", "[join]") {
    ModuleRecord r;
    r.device_name = "rxe0";
    r.cm_idn = 6;
    r.qp = ModuleRecord::QpPart{17, std::nullopt, std::nullopt, RDMASTAT_QP_UNJOINED_OTHER_OWNER};
    Snapshot s = join_module({r}, {}, {});
    REQUIRE(s.connections.size() == 1);
    CHECK_FALSE(s.connections[0].qp);
    CHECK(s.connections[0].qp_unjoined == UnjoinedQp{17, QpUnjoined::other_owner});
    r.qp->unjoined = RDMASTAT_QP_UNJOINED_GONE;
    CHECK(join_module({r}, {}, {}).connections[0].qp_unjoined == UnjoinedQp{17, QpUnjoined::gone});
    r.qp->unjoined = 200;
    CHECK(join_module({r}, {}, {}).connections[0].qp_unjoined ==
          UnjoinedQp{17, QpUnjoined::other_owner});
}

TEST_CASE("NLDEV ids take their owner's network namespace", "[join]") {
    NldevData data = fixture_nldev();
    NetnsMap netns;
    for (const auto& c : data.cm_ids)
        if (c.owner.pid) netns[*c.owner.pid] = 4026531840u;
    Snapshot snap = join(data, {}, netns);
    for (const auto& c : snap.connections)
        CHECK(c.netns == (c.owner.pid ? std::optional<std::uint32_t>(4026531840u) : std::nullopt));
}

TEST_CASE("a process that exited keeps its pid and nothing invented", "[join]") {
    NldevData data = fixture_nldev();
    Snapshot snap = join(data, {});
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
    Snapshot snap = join(data, fixture_owners(owners_file));
    const Connection& c = snap.connections.front();
    CHECK(c.owner.kernel == "ib_core");
    CHECK_FALSE(c.owner.pid);
}

namespace {
// A hand-built module record: owners of other users and port-mapped iWARP ids
// are shapes the lab's capture does not have.
ModuleRecord module_record() {
    ModuleRecord r;
    r.device_index = 1;
    r.device_name = "siw0";
    r.cm_idn = 4;
    r.state = 5; // CONNECT
    r.port = 1;
    r.port_space = 0x0106;
    r.local = Endpoint{*IpAddress::parse("10.9.0.1"), 7174};
    r.peer = Endpoint{*IpAddress::parse("10.9.0.1"), 40000};
    return r;
}
} // namespace

TEST_CASE("module owners are taken as sent, with user names looked up", "[join]") {
    auto owner_of = [](const ModuleRecord::OwnerPart& part, const UserMap& users) {
        ModuleRecord r = module_record();
        r.owner = part;
        return join_module({r}, {}, users).connections.at(0).owner;
    };
    ModuleRecord::OwnerPart full{100, 101, 1000, "rping", std::nullopt};
    Owner o = owner_of(full, {{1000, "lab"}});
    CHECK(o == Owner{100u, 101u, "rping", 1000u, "lab", std::nullopt, {}, {}, {}});
    CHECK_FALSE(owner_of(full, {{1000, std::nullopt}}).user);
    // Another user's id without CAP_NET_ADMIN: nothing sent, nothing invented.
    CHECK(owner_of({}, {}) == Owner{});
    ModuleRecord::OwnerPart kernel{std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                                   "rpcrdma"};
    Owner kernel_owner;
    kernel_owner.kernel = "rpcrdma";
    CHECK(owner_of(kernel, {}) == kernel_owner);
}

TEST_CASE("owner_uids lists each uid the module sent once", "[join]") {
    std::vector<ModuleRecord> records(3, module_record());
    records[0].owner.uid = 1000;
    records[1].owner.uid = 1000;
    CHECK(owner_uids(records) == std::set<std::uint32_t>{1000});
}

TEST_CASE("module ids keep mapping, internal, netns, QP and transport", "[join]") {
    Device siw;
    siw.index = 1;
    siw.name = "siw0";
    siw.transport = Transport::iwarp;
    auto join_one = [&](const ModuleRecord& r) {
        return join_module({r}, {siw}, {}).connections.at(0);
    };
    ModuleRecord r = module_record();
    Connection plain = join_one(r);
    CHECK(plain.transport == Transport::iwarp); // the device's, none sent
    CHECK(plain.state == CmState::connect);
    CHECK(plain.port_space == PortSpace::tcp);
    CHECK_FALSE(plain.mapped);
    CHECK_FALSE(plain.internal);
    CHECK_FALSE(plain.qp);

    r.transport = RDMASTAT_TRANSPORT_ROCE;
    r.internal = true;
    r.netns = 4026531840u;
    r.qp = ModuleRecord::QpPart{7, 2, 3, std::nullopt};
    r.mapped_local = Endpoint{*IpAddress::parse("10.9.0.1"), 20001};
    Connection c = join_one(r);
    CHECK(c.transport == Transport::roce);
    CHECK(c.internal);
    CHECK(c.netns == 4026531840u);
    CHECK(c.qp == Qp{7, QpType::rc, QpState::rts});
    CHECK(c.mapped_local == r.mapped_local);
    CHECK_FALSE(c.mapped_peer);
    CHECK(c.mapped == false); // mapping information sent, flag absent

    r.mapped = true;
    r.qp->state.reset();
    c = join_one(r);
    CHECK(c.mapped == true);
    CHECK(c.qp == Qp{7, QpType::rc, std::nullopt});
}
