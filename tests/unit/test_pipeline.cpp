// SPDX-License-Identifier: MIT
// The pipeline's decisions, run on a fake System that answers with bytes the
// lab captured from Debian 12's kernel: which source reports the cm_ids, what
// falls back to what, and what each failure costs.
#include "catch_compat.hpp"
#include "collect/module_parse.h"
#include "collect/nldev_parse.h"
#include "collect/sockdiag_parse.h"
#include "pipeline/pipeline.h"
#include "support.h"

#include <algorithm>
#include <cerrno>
#include <map>
#include <set>
#include <sys/socket.h>

using namespace rdmastat;
using namespace rdmastat::test;

namespace {

// Answers as the lab guest did when the fixtures were captured; each field
// below turns one interface off or makes it fail, and every call is counted.
struct FakeSystem final : System {
    bool module_loaded = false;
    bool module_interrupted = false;
    bool rdma_netlink = true;
    std::optional<std::string> module_error, nldev_error, resources_error, sockets_error,
        processes_error, counters_error, sockets_fallback;

    int module_calls = 0, counter_calls = 0, module_qp_calls = 0;
    // The module's QP dump: these records (by default, one for each connected
    // QP of the NLDEV data, its path on rxe0's GID 10.9.0.2), or the kernel's
    // EPERM to the unprivileged.
    std::optional<std::vector<ModuleQpRecord>> module_qp_records;
    bool module_qps_refused = false;
    std::vector<std::pair<bool, bool>> nldev_calls; // (with_cm_ids, with_qps)
    std::vector<bool> resources_calls;              // with_qps
    std::vector<ResourceKind> unreported;           // kinds the kernel refuses

    NldevData data = fixture_nldev();

    Result<std::optional<ModuleDump>> module_ids() override {
        ++module_calls;
        if (module_error) return Failure{*module_error};
        if (!module_loaded) return std::optional<ModuleDump>();
        return std::optional<ModuleDump>(ModuleDump{
            parse_module_dump(fixture_bytes("module-dump.bin")).take(), module_interrupted});
    }
    Result<std::optional<std::vector<ModuleQpRecord>>> module_qps() override {
        ++module_qp_calls;
        if (module_qps_refused) return Failure{"module qp dump: Operation not permitted", EPERM};
        if (!module_loaded) return std::optional<std::vector<ModuleQpRecord>>();
        if (module_qp_records) return module_qp_records;
        std::vector<ModuleQpRecord> out;
        for (const QpRecord& q : data.qps) {
            if (!q.type || !connected_type(static_cast<QpType>(*q.type))) continue;
            ModuleQpRecord r;
            r.device_index = q.device_index;
            r.device_name = q.device_name;
            r.number = q.number;
            r.type = q.type;
            r.remote_number = q.remote_number;
            r.owner.pid = q.owner.pid;
            r.path.emplace();
            r.path->sgid = r.path->dgid = IpAddress::parse("::ffff:10.9.0.2");
            out.push_back(r);
        }
        return std::optional(out);
    }
    Result<std::optional<NldevData>> nldev(bool with_cm_ids, bool with_qps) override {
        nldev_calls.emplace_back(with_cm_ids, with_qps);
        if (nldev_error) return Failure{*nldev_error};
        if (!rdma_netlink) return std::optional<NldevData>();
        NldevData d = data;
        if (!with_cm_ids) d.cm_ids.clear();
        if (!with_qps) d.qps.clear();
        return std::optional<NldevData>(std::move(d));
    }
    Result<ResourceDump> resources(const std::vector<Device>& devices, bool with_qps) override {
        resources_calls.push_back(with_qps);
        if (resources_error) return Failure{*resources_error};
        ResourceDump dump{{}, unreported};
        std::vector<ResourceRecord>& out = dump.records;
        for (const Device& d : devices) {
            if (with_qps)
                for (const QpRecord& q :
                     parse_qp_dump(fixture_bytes("qp-" + d.name + ".bin")).take())
                    out.push_back(resource_from_qp(q));
            for (auto& r :
                 parse_resource_dump(ResourceKind::cq, fixture_bytes("cq-" + d.name + ".bin"))
                     .take())
                out.push_back(std::move(r));
        }
        return dump;
    }
    OwnerMap owners(const std::set<std::uint32_t>& pids) override {
        OwnerMap all = fixture_owners(fixture_path("owners.txt")), out;
        for (std::uint32_t pid : pids)
            if (all.count(pid)) out[pid] = all[pid];
        return out;
    }
    NetnsMap netns(const std::set<std::uint32_t>& pids) override {
        NetnsMap out;
        for (std::uint32_t pid : pids)
            out[pid] = other_netns.count(pid) ? 4026532000u : 4026531840u;
        return out;
    }
    std::set<std::uint32_t> other_netns; ///< pids in another namespace than rdmastat's
    std::optional<std::uint32_t> own_netns() override { return 4026531840u; }
    // Every process in one docker container; cgroups_asked how often each
    // pid was asked about.
    std::map<std::uint32_t, unsigned> cgroups_asked;
    CgroupMap cgroups(const std::set<std::uint32_t>& pids) override {
        for (std::uint32_t pid : pids)
            ++cgroups_asked[pid];
        CgroupMap out;
        for (std::uint32_t pid : pids) {
            std::string path = "/system.slice/docker-" + std::string(64, 'a') + ".scope";
            out[pid] = ProcessCgroup{path, workload_of(path)};
        }
        return out;
    }
    // The docker container's cgroup, at its QP limit on rxe0.
    std::vector<std::set<std::string>> rdma_cgroups_asked;
    std::vector<CgroupRdma> rdma_cgroups(const std::set<std::string>& paths) override {
        rdma_cgroups_asked.push_back(paths);
        std::vector<CgroupRdma> out;
        for (const std::string& path : paths)
            out.push_back(CgroupRdma{path,
                                     workload_of(path).container,
                                     std::nullopt,
                                     {CgroupRdmaDevice{"rxe0", 1, 4, std::nullopt, 4}}});
        return out;
    }
    UserMap users(const std::set<std::uint32_t>& uids) override {
        UserMap out;
        for (std::uint32_t uid : uids)
            out[uid] = uid == 0 ? std::optional<std::string>("root") : std::nullopt;
        return out;
    }
    Result<HostSockets> host_sockets() override {
        if (sockets_error) return Failure{*sockets_error};
        return HostSockets{parse_inet_diag_dump(fixture_bytes("sockdiag-ipv4.bin")).take(),
                           sockets_fallback};
    }
    Result<std::vector<Process>> processes() override {
        if (processes_error) return Failure{*processes_error};
        return std::vector<Process>{Process{225, "rping", 0, "root", true, {}}};
    }
    Status counters(Snapshot& snap) override {
        ++counter_calls;
        if (counters_error) { // after reading part of them
            snap.port_counters.push_back(PortCounters{"siw0", 1, std::nullopt, {}});
            snap.counters_collected = true;
            return Failure{*counters_error};
        }
        snap.counters_collected = true;
        return Ok{};
    }
    std::optional<std::string> addresses_error;
    NetdevAddresses netdev_addresses;
    Result<NetdevAddresses> addresses() override {
        if (addresses_error) return Failure{*addresses_error};
        return netdev_addresses;
    }
    std::optional<std::string> gids_error;
    int gid_calls = 0;
    Status gid_tables(std::vector<Device>& devices) override {
        ++gid_calls;
        if (gids_error) return Failure{*gids_error};
        for (Device& d : devices)
            for (Port& p : d.ports)
                p.gids = std::vector<Gid>{};
        return Ok{};
    }
};

Collection run_on(FakeSystem& sys, SourceChoice choice, Needs needs = {}) {
    return run_pipeline(Request{std::nullopt, choice, needs}, sys);
}

std::vector<std::string> messages(const Collection& c) {
    std::vector<std::string> out;
    for (const PartError& e : c.errors)
        out.push_back(std::string(name_of(e.part)) + ": " + e.message);
    return out;
}

} // namespace

TEST_CASE("pipeline: auto takes NLDEV's ids when the module is not registered", "[pipeline]") {
    FakeSystem sys;
    Collection c = run_on(sys, SourceChoice::automatic);
    CHECK(messages(c).empty());
    CHECK(sys.module_calls == 1);
    CHECK(sys.nldev_calls == std::vector<std::pair<bool, bool>>{{true, true}});
    CHECK(c.snapshot.source == SnapshotSource::nldev);
    CHECK_FALSE(c.no_devices);
    // One connection per cm_id NLDEV reported, owners from /proc (owners.txt).
    REQUIRE(c.snapshot.connections.size() == sys.data.cm_ids.size());
    REQUIRE_FALSE(sys.data.cm_ids.empty());
    std::size_t named = 0;
    for (const Connection& conn : c.snapshot.connections)
        if (conn.owner.pid && conn.owner.comm) {
            CHECK(*conn.owner.comm == "rping");
            CHECK(conn.netns == std::optional<std::uint32_t>(4026531840u));
            // The process's cgroup, and the container it names.
            CHECK(sys.cgroups_asked[*conn.owner.pid] == 1);
            REQUIRE(conn.owner.container);
            CHECK(conn.owner.container->runtime == ContainerRuntime::docker);
            CHECK(conn.owner.container->id == std::string(64, 'a'));
            CHECK_FALSE(conn.owner.pod);
            ++named;
        } else if (!conn.owner.pid) {
            CHECK_FALSE(conn.owner.cgroup); // kernel-owned: no process, no cgroup
        }
    CHECK(named > 0);
    CHECK(c.snapshot.devices.size() == sys.data.devices.size());
    // The rdma controller was asked once, about the owners' one cgroup.
    CHECK(c.snapshot.rdma_cgroups_collected);
    CHECK(sys.rdma_cgroups_asked ==
          std::vector<std::set<std::string>>{
              {"/system.slice/docker-" + std::string(64, 'a') + ".scope"}});
    REQUIRE(c.snapshot.rdma_cgroups.size() == 1);
    CHECK(c.snapshot.rdma_cgroups[0].container == c.snapshot.connections[0].owner.container);
}

TEST_CASE("pipeline: auto takes the module's ids, NLDEV's devices and QP states", "[pipeline]") {
    FakeSystem sys;
    sys.module_loaded = true;
    Collection c = run_on(sys, SourceChoice::automatic);
    CHECK(messages(c).empty());
    CHECK(c.snapshot.source == SnapshotSource::module);
    // NLDEV is asked for devices and QPs only: the module reports the ids.
    CHECK(sys.nldev_calls == std::vector<std::pair<bool, bool>>{{false, true}});
    auto records = parse_module_dump(fixture_bytes("module-dump.bin")).take();
    // One connection per id, then the QPs past INIT that no id of the module
    // joined (the NLDEV and module fixtures are captures of two runs, so the
    // rping QPs of the NLDEV one are no id's here).
    std::set<std::pair<std::uint32_t, std::uint32_t>> joined;
    for (const ModuleRecord& r : records)
        if (r.qp && !r.qp->unjoined) joined.insert({r.device_index, r.qp->number});
    std::vector<std::uint32_t> loose;
    for (const QpRecord& q : sys.data.qps)
        if (!joined.count({q.device_index, q.number}) && q.state &&
            *q.state >= static_cast<std::uint8_t>(QpState::rtr) && q.type &&
            *q.type == static_cast<std::uint8_t>(QpType::rc))
            loose.push_back(q.number);
    REQUIRE(c.snapshot.connections.size() == records.size() + loose.size());
    for (std::size_t i = 0; i < records.size(); ++i)
        CHECK(c.snapshot.connections[i].via == Via::cm);
    for (std::size_t i = 0; i < loose.size(); ++i) {
        const Connection& v = c.snapshot.connections[records.size() + i];
        CHECK(v.via == Via::verbs);
        CHECK(v.qp->number == loose[i]);
        CHECK_FALSE(v.cm_id);
    }
    CHECK(c.snapshot.devices.size() == sys.data.devices.size());
    CHECK(c.warnings.empty());
}

TEST_CASE("pipeline: an interrupted module dump is a warning", "[pipeline]") {
    FakeSystem sys;
    sys.module_loaded = sys.module_interrupted = true;
    Collection c = run_on(sys, SourceChoice::module);
    CHECK(messages(c).empty());
    REQUIRE(c.warnings.size() == 1);
    CHECK_THAT(c.warnings[0], Catch::Contains("ids may be missing"));
}

TEST_CASE("pipeline: --source module without the module fails the connections only", "[pipeline]") {
    FakeSystem sys;
    Collection c = run_on(sys, SourceChoice::module, Needs{.host_sockets = true});
    REQUIRE(c.errors.size() == 1);
    CHECK(c.errors[0].part == Part::connections);
    CHECK(c.errors[0].message == "module source: the rdmastat generic netlink family is not "
                                 "registered (load it as root: modprobe rdmastat)");
    CHECK(sys.nldev_calls.empty()); // no fallback when the module was asked for
    CHECK(c.snapshot.connections.empty());
    // Each part fails on its own: the host sockets are there.
    CHECK(c.snapshot.host_sockets_collected);
    CHECK_FALSE(c.snapshot.host_sockets.empty());
    CHECK_THROWS_WITH(require_all(c), c.errors[0].message);
    CHECK_THROWS_WITH(require(c, Part::connections), c.errors[0].message);
    CHECK_NOTHROW(require(c, Part::host_sockets));
}

TEST_CASE("pipeline: --source nldev never asks the module", "[pipeline]") {
    FakeSystem sys;
    sys.module_loaded = true;
    Collection c = run_on(sys, SourceChoice::nldev);
    CHECK(sys.module_calls == 0);
    CHECK(c.snapshot.source == SnapshotSource::nldev);
    CHECK(c.snapshot.connections.size() == sys.data.cm_ids.size());
}

TEST_CASE("pipeline: a module that cannot be asked is an error, not a fallback", "[pipeline]") {
    FakeSystem sys;
    sys.module_error = "module conn dump: Permission denied";
    Collection c = run_on(sys, SourceChoice::automatic);
    CHECK(messages(c) ==
          std::vector<std::string>{"connections: module conn dump: Permission denied"});
    CHECK(sys.nldev_calls.empty());
}

TEST_CASE("pipeline: without RDMA netlink there are no devices, and no error", "[pipeline]") {
    FakeSystem sys;
    sys.rdma_netlink = false;
    Collection c = run_on(sys, SourceChoice::automatic, Needs{.resources = true});
    CHECK(messages(c).empty());
    REQUIRE(c.no_devices);
    CHECK_THAT(*c.no_devices, Catch::Contains("is ib_core loaded?"));
    CHECK(c.snapshot.source == SnapshotSource::nldev);
    CHECK(c.snapshot.devices.empty());
    CHECK(c.snapshot.resources_collected);
    CHECK(c.snapshot.resources.empty());

    sys.module_loaded = true; // the module without NLDEV: its ids, no devices
    c = run_on(sys, SourceChoice::automatic);
    CHECK(c.no_devices == std::optional<std::string>("no RDMA devices"));
}

TEST_CASE("pipeline: an NLDEV failure is the connections' error, as the kernel said",
          "[pipeline]") {
    FakeSystem sys;
    sys.nldev_error = "NLDEV device dump: Operation not permitted";
    for (bool module : {false, true}) {
        sys.module_loaded = module;
        Collection c = run_on(sys, SourceChoice::automatic, Needs{.counters = true});
        CHECK(messages(c) ==
              std::vector<std::string>{"connections: NLDEV device dump: Operation not permitted"});
        CHECK(sys.counter_calls > 0); // the exporter still counts what it can
    }
}

TEST_CASE("pipeline: resources reuse the QPs the ids were joined with", "[pipeline]") {
    for (bool module : {false, true}) {
        FakeSystem sys;
        sys.module_loaded = module;
        Collection c = run_on(sys, SourceChoice::automatic, Needs{.resources = true});
        CHECK(messages(c).empty());
        CHECK(sys.resources_calls == std::vector<bool>{false}); // no second QP dump
        REQUIRE(c.snapshot.resources_collected);
        std::size_t qps = 0, cqs = 0, expected_cqs = 0;
        for (const Resource& r : c.snapshot.resources)
            (r.kind == ResourceKind::qp ? qps : cqs) += 1;
        for (const Device& d : sys.data.devices)
            expected_cqs +=
                parse_resource_dump(ResourceKind::cq, fixture_bytes("cq-" + d.name + ".bin"))
                    .take()
                    .size();
        CHECK(qps == sys.data.qps.size());
        CHECK(cqs == expected_cqs);
        // Owners resolved once per pid, the QPs' and the CQs' alike, with
        // their processes' cgroups (lsof's holders take them from there).
        std::size_t contained = 0;
        for (const Resource& r : c.snapshot.resources) {
            if (r.owner.pid && fixture_owners(fixture_path("owners.txt")).count(*r.owner.pid))
                CHECK(r.owner.comm == std::optional<std::string>("rping"));
            if (!r.owner.pid) {
                CHECK_FALSE(r.owner.cgroup);
                continue;
            }
            CHECK(sys.cgroups_asked[*r.owner.pid] == 1); // with the ids', in one ask
            REQUIRE(r.owner.container);
            CHECK(r.owner.container->id == std::string(64, 'a'));
            ++contained;
        }
        CHECK(contained > 0);
    }
}

TEST_CASE("pipeline: a kind the kernel does not report is a warning, not a failure", "[pipeline]") {
    FakeSystem sys;
    sys.unreported = {ResourceKind::srq};
    Collection c = run_on(sys, SourceChoice::automatic, Needs{.resources = true});
    CHECK(c.errors.empty());
    REQUIRE(c.snapshot.resources_collected);
    CHECK_FALSE(c.snapshot.resources.empty()); // the other kinds are kept
    CHECK(c.warnings == std::vector<std::string>{"NLDEV: this kernel does not report srq "
                                                 "resources (Linux 5.19 and later do); none are "
                                                 "listed"});
}

TEST_CASE("pipeline: a failed part is reported and the others are kept", "[pipeline]") {
    FakeSystem sys;
    sys.resources_error = "NLDEV cq dump of rxe0: Invalid argument";
    sys.sockets_error = "sock_diag: Permission denied";
    sys.processes_error = "/proc: No such file or directory";
    sys.counters_error = "RDMA netlink: Permission denied";
    Needs all{true, true, true, true};
    Collection c = run_on(sys, SourceChoice::automatic, all);
    CHECK(messages(c) ==
          std::vector<std::string>{"resources: NLDEV cq dump of rxe0: Invalid argument",
                                   "host_sockets: host TCP sockets: sock_diag: Permission denied",
                                   "processes: processes: /proc: No such file or directory",
                                   "counters: counters: RDMA netlink: Permission denied"});
    CHECK(c.snapshot.connections.size() == sys.data.cm_ids.size());
    CHECK_FALSE(c.snapshot.resources_collected);
    CHECK_FALSE(c.snapshot.counters_collected); // empty, never half read
    CHECK(c.snapshot.port_counters.empty());
    CHECK_FALSE(c.snapshot.host_sockets_collected);
    CHECK_FALSE(c.snapshot.processes_collected);
    CHECK(c.failed(Part::counters));
    CHECK_FALSE(c.failed(Part::connections));
    CHECK_NOTHROW(require(c, Part::connections));
    CHECK_THROWS_WITH(require_all(c), "NLDEV cq dump of rxe0: Invalid argument");
}

TEST_CASE("pipeline: the /proc/net fallback for host sockets is a warning", "[pipeline]") {
    FakeSystem sys;
    sys.sockets_fallback = "no sock_diag for TCP: read /proc/net/tcp";
    Collection c = run_on(sys, SourceChoice::automatic, Needs{.host_sockets = true});
    CHECK(messages(c).empty());
    CHECK(c.warnings == std::vector<std::string>{*sys.sockets_fallback});
    CHECK(c.snapshot.host_sockets_collected);
    CHECK_FALSE(c.snapshot.processes_collected);
}

TEST_CASE("pipeline: a snapshot file holds what it holds, the system is not asked", "[pipeline]") {
    FakeSystem sys;
    Needs all{true, true, true, true};
    Collection c =
        run_pipeline(Request{fixture_path("snapshot.json"), SourceChoice::module, all}, sys);
    CHECK(messages(c).empty());
    CHECK(c.snapshot.source == SnapshotSource::file);
    CHECK(c.snapshot.connections.size() == 12); // the fixture's "connections" array
    CHECK(sys.module_calls + sys.counter_calls == 0);
    CHECK(sys.nldev_calls.empty());
    CHECK_FALSE(c.snapshot.counters_collected);

    c = run_pipeline(Request{fixture_path("no-such-snapshot.json"), SourceChoice::automatic, {}},
                     sys);
    REQUIRE(c.errors.size() == 1);
    CHECK(c.errors[0].part == Part::connections);
    CHECK_THAT(c.errors[0].message, Catch::Contains("no-such-snapshot.json"));
}

TEST_CASE("pipeline: a sink gets the system's connections once collected", "[pipeline]") {
    FakeSystem sys;
    const Collection whole = run_on(sys, SourceChoice::automatic);
    REQUIRE_FALSE(whole.snapshot.connections.empty());
    RecordingSink sink;
    Collection c = run_pipeline(Request{std::nullopt, SourceChoice::automatic, {}, &sink}, sys);
    CHECK(messages(c).empty());
    CHECK(sink.begins == 1);
    CHECK(sink.devices_at_begin == whole.snapshot.devices.size());
    CHECK(sink.connections == whole.snapshot.connections);
    CHECK(c.snapshot.connections.empty());
    // Failed connections: nothing to pass on, and the error is the caller's.
    RecordingSink none;
    c = run_pipeline(Request{std::nullopt, SourceChoice::module, {}, &none}, sys);
    REQUIRE(c.failed(Part::connections));
    CHECK(none.begins == 0);
}

TEST_CASE("pipeline: a snapshot file streams to the sink as it is read", "[pipeline]") {
    FakeSystem sys;
    RecordingSink sink;
    Collection c = run_pipeline(
        Request{fixture_path("snapshot.json"), SourceChoice::automatic, {}, &sink}, sys);
    CHECK(messages(c).empty());
    CHECK(sink.begins == 1);
    CHECK(sink.connections.size() == 12); // the fixture's "connections" array
    CHECK(c.snapshot.connections.empty());
    CHECK(sink.devices_at_begin == c.snapshot.devices.size());
}

TEST_CASE("pipeline: past the deadline, parts not begun are skipped; the ids are read",
          "[pipeline]") {
    FakeSystem sys;
    Needs needs{.host_sockets = true, .resources = true, .counters = true};
    needs.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    Collection c = run_on(sys, SourceChoice::automatic, needs);
    CHECK(messages(c) == std::vector<std::string>{
                             "resources: resources: skipped: the scrape timeout had passed",
                             "host_sockets: host_sockets: skipped: the scrape timeout had passed",
                             "counters: counters: skipped: the scrape timeout had passed"});
    CHECK_FALSE(c.snapshot.connections.empty());
    CHECK(sys.counter_calls == 0);
    CHECK(sys.resources_calls.empty());
    // A deadline not reached yet changes nothing.
    needs.deadline = std::chrono::steady_clock::now() + std::chrono::hours(1);
    CHECK(messages(run_on(sys, SourceChoice::automatic, needs)).empty());
    CHECK(sys.counter_calls == 1);
}

TEST_CASE("pipeline: ports get their netdev's addresses only when asked", "[pipeline]") {
    FakeSystem sys;
    // The captured devices' own netdev names, each given one address.
    std::map<std::string, IpAddress> given;
    std::uint8_t host = 1;
    for (const Device& d : sys.data.devices)
        for (const Port& p : d.ports)
            if (p.netdev && !given.count(*p.netdev)) {
                IpAddress a = *IpAddress::parse("192.0.2." + std::to_string(host++));
                given[*p.netdev] = a;
                sys.netdev_addresses[*p.netdev] = {a};
            }
    REQUIRE_FALSE(given.empty());

    for (const Device& d : run_on(sys, SourceChoice::nldev).snapshot.devices)
        for (const Port& p : d.ports)
            CHECK_FALSE(p.addresses);

    Needs needs;
    needs.addresses = true;
    std::size_t filled = 0;
    for (const Device& d : run_on(sys, SourceChoice::nldev, needs).snapshot.devices)
        for (const Port& p : d.ports) {
            if (!p.netdev) continue;
            REQUIRE(p.addresses);
            CHECK(*p.addresses == std::vector<IpAddress>{given.at(*p.netdev)});
            ++filled;
        }
    CHECK(filled > 0);

    // No addresses: a warning, and the ports say nothing rather than "none".
    sys.addresses_error = "netdev addresses: getifaddrs: Permission denied";
    Collection c = run_on(sys, SourceChoice::nldev, needs);
    CHECK(messages(c).empty());
    CHECK(std::find(c.warnings.begin(), c.warnings.end(), *sys.addresses_error) !=
          c.warnings.end());
    for (const Device& d : c.snapshot.devices)
        for (const Port& p : d.ports)
            CHECK_FALSE(p.addresses);
}

TEST_CASE("pipeline: GID tables only when asked; a failure is a warning", "[pipeline]") {
    FakeSystem sys;
    Collection plain = run_on(sys, SourceChoice::nldev);
    CHECK(sys.gid_calls == 0);
    for (const Device& d : plain.snapshot.devices)
        for (const Port& p : d.ports)
            CHECK_FALSE(p.gids);
    Collection with = run_on(sys, SourceChoice::nldev, Needs{.gids = true});
    CHECK(sys.gid_calls == 1);
    CHECK(messages(with).empty());
    for (const Device& d : with.snapshot.devices)
        for (const Port& p : d.ports)
            CHECK(p.gids);
    sys.gids_error = "rxe0 port 1: gids/3: 'x' is not a GID";
    Collection failed = run_on(sys, SourceChoice::nldev, Needs{.gids = true});
    CHECK(failed.errors.empty());
    REQUIRE(failed.warnings.size() == 1);
    CHECK(failed.warnings[0] == "GID tables: rxe0 port 1: gids/3: 'x' is not a GID");
}

TEST_CASE("pipeline: with the module, another namespace's QPs are not verbs connections",
          "[pipeline]") {
    // The module lists the caller's namespace's ids only: a QP of another
    // namespace's cm id is no id's here, and must not pass for a verbs one.
    FakeSystem sys;
    sys.module_loaded = true;
    Collection all = run_on(sys, SourceChoice::automatic);
    std::set<std::uint32_t> verbs_pids;
    for (const Connection& c : all.snapshot.connections)
        if (c.via == Via::verbs) verbs_pids.insert(c.owner.pid.value());
    REQUIRE(verbs_pids.size() >= 2);
    const std::uint32_t moved = *verbs_pids.begin();
    std::size_t of_moved = 0, verbs = 0;
    for (const Connection& c : all.snapshot.connections)
        if (c.via == Via::verbs) {
            ++verbs;
            of_moved += c.owner.pid == moved;
        }
    sys.other_netns.insert(moved);
    Collection mine = run_on(sys, SourceChoice::automatic);
    std::size_t left = 0;
    for (const Connection& c : mine.snapshot.connections)
        if (c.via == Via::verbs) {
            CHECK(c.owner.pid != moved);
            ++left;
        }
    CHECK(of_moved > 0);
    CHECK(left == verbs - of_moved);
}

TEST_CASE("pipeline: verbs connections take their peers from the module's QP dump, or say why not",
          "[pipeline]") {
    FakeSystem sys;
    sys.module_loaded = true;
    sys.module_qp_records.emplace(); // the module answers, with no QP
    Collection plain = run_on(sys, SourceChoice::automatic);
    const Connection* loose = nullptr;
    for (const Connection& c : plain.snapshot.connections)
        if (c.via == Via::verbs && c.qp->type && connected_type(*c.qp->type)) loose = &c;
    REQUIRE(loose);
    CHECK(sys.module_qp_calls == 1);
    // The module answered, but not for this QP: no peer, and a warning says so
    // when NLDEV gave it a peer QP number.
    CHECK_FALSE(loose->peer);
    if (loose->qp->remote_number) {
        REQUIRE(plain.warnings.size() == 1);
        CHECK_THAT(plain.warnings[0], Catch::Contains("not in rdmastat.ko's QP dump"));
    } else {
        CHECK(plain.warnings.empty());
    }

    ModuleQpRecord r;
    r.device_name = loose->device;
    r.number = loose->qp->number;
    r.type = static_cast<std::uint8_t>(*loose->qp->type);
    r.remote_number = 99;
    r.path.emplace();
    r.path->sgid = IpAddress::parse("::ffff:10.9.0.2");
    r.path->dgid = IpAddress::parse("::ffff:10.9.0.3");
    r.path->sgid_index = 1;
    r.path->mtu = 1024;
    ModuleQpRecord other_device = r; // the same number on another device: another QP
    other_device.device_name = "other";
    sys.module_qp_records = std::vector<ModuleQpRecord>{r, other_device};
    auto find = [&](const Collection& c) {
        for (const Connection& x : c.snapshot.connections)
            if (x.via == Via::verbs && x.device == loose->device && x.qp->number == r.number)
                return x;
        FAIL("the verbs connection is gone");
        return Connection{};
    };
    Connection joined = find(run_on(sys, SourceChoice::automatic));
    CHECK(joined.qp->path == r.path);
    CHECK(joined.local == Endpoint{*IpAddress::parse("10.9.0.2"), 0});
    CHECK(joined.peer == Endpoint{*IpAddress::parse("10.9.0.3"), 0});
    // NLDEV's rqpn stands; the module's fills in only when NLDEV had none.
    CHECK(joined.qp->remote_number == loose->qp->remote_number.value_or(99));

    // A QP of another type under that number (reused between the dumps) is
    // another QP: not joined; nor is one of another process.
    (*sys.module_qp_records)[0].type = static_cast<std::uint8_t>(QpType::ud);
    CHECK_FALSE(find(run_on(sys, SourceChoice::automatic)).peer);
    (*sys.module_qp_records)[0] = r;
    if (loose->owner.pid) {
        (*sys.module_qp_records)[0].owner.pid = *loose->owner.pid + 1;
        CHECK_FALSE(find(run_on(sys, SourceChoice::automatic)).peer);
        (*sys.module_qp_records)[0] = r;
    }
    // A path whose GIDs are zero (INIT to ERR) names no address.
    (*sys.module_qp_records)[0].path->dgid = IpAddress{AF_INET6, {}};
    (*sys.module_qp_records)[0].path->sgid = IpAddress{AF_INET6, {}};
    Connection zero = find(run_on(sys, SourceChoice::automatic));
    CHECK_FALSE(zero.peer);
    CHECK_FALSE(zero.local);
    (*sys.module_qp_records)[0] = r;

    sys.module_qps_refused = true;
    Collection refused = run_on(sys, SourceChoice::automatic);
    CHECK_FALSE(find(refused).peer);
    REQUIRE(refused.warnings.size() == 1);
    CHECK_THAT(refused.warnings[0],
               Catch::Contains("not their addresses") && Catch::Contains("only to CAP_NET_ADMIN"));
    CHECK(refused.errors.empty());

    sys.module_qps_refused = false;
    sys.module_loaded = false;
    // NLDEV's own ids claim every QP of its capture: one kernel QP more is a
    // verbs connection (as IPoIB's are).
    QpRecord kernel_qp = sys.data.qps.front();
    kernel_qp.number = 0x7777;
    kernel_qp.remote_number = 0x7778;
    kernel_qp.type = static_cast<std::uint8_t>(QpType::rc);
    kernel_qp.state = static_cast<std::uint8_t>(QpState::rts);
    kernel_qp.owner = RawOwner{std::nullopt, "ib_ipoib"};
    sys.data.qps.push_back(kernel_qp);
    Collection unloaded = run_on(sys, SourceChoice::automatic);
    REQUIRE(unloaded.warnings.size() == 1);
    CHECK_THAT(unloaded.warnings[0], Catch::Contains("modprobe rdmastat"));

    const int calls = sys.module_qp_calls;
    Collection nldev = run_on(sys, SourceChoice::nldev);
    REQUIRE(nldev.warnings.size() == 1);
    CHECK_THAT(nldev.warnings[0], Catch::Contains("--source module"));
    // Not asked when NLDEV was chosen, nor when the command needs no peers.
    Collection devices = run_on(sys, SourceChoice::automatic, Needs{.verbs_peers = false});
    CHECK(devices.warnings.empty());
    CHECK(sys.module_qp_calls == calls);
}
