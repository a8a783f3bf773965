// SPDX-License-Identifier: MIT
// The two sources of a collection: the running system, whose cm_ids come from
// the rdmastat module or NLDEV, and a saved snapshot.
#include "pipeline/source.h"

#include "analysis/join.h"
#include "analysis/qp_state.h"
#include "analysis/select.h"
#include "collect/netlink.h"
#include "collect/nldev_parse.h"
#include "collect/procfs.h"
#include "collect/snapshot_file.h"
#include "model/names.h"

#include <algorithm>
#include <cerrno>
#include <mutex>
#include <set>

namespace rdmastat {
namespace {

// The processes (thread group ids) of owners.
std::set<std::uint32_t> process_pids(const OwnerMap& owners) {
    std::set<std::uint32_t> pids;
    for (const auto& [pid, o] : owners)
        if (o.pid) pids.insert(*o.pid);
    return pids;
}

class SystemSource final : public Source {
  public:
    SystemSource(System& system, SourceChoice choice) : system_(system), choice_(choice) {}

    Collection collect(const Needs& needs) override {
        Collection c;
        std::optional<NldevData> nldev;
        OwnerMap owners;
        if (!module_ids(c, nldev)) nldev_ids(c, nldev, owners);
        unreported_qp_states(c, nldev);
        if (needs.verbs_peers) verbs_peers(c, needs);
        if (needs.resources && in_time(c, needs, Part::resources))
            resources(c, nldev, std::move(owners));
        workloads(c);
        host(c, needs);
        if (needs.addresses) port_addresses(c);
        // Not a part of its own: the devices are listed without their tables.
        if (needs.gids)
            if (Status st = system_.gid_tables(c.snapshot.devices); !st)
                c.warnings.push_back("GID tables: " + st.error());
        if (needs.counters && in_time(c, needs, Part::counters))
            if (Status st = system_.counters(c.snapshot); !st) {
                // A failed part is empty, never half read.
                c.snapshot.port_counters.clear();
                c.snapshot.qp_counters.clear();
                c.snapshot.counters_collected = false;
                fail(c, Part::counters, "counters: " + st.error());
            }
        return c;
    }

  private:
    static void fail(Collection& c, Part part, std::string message) {
        c.errors.push_back(PartError{part, std::move(message)});
    }

    // False, with the part failed, when the deadline has passed before it began.
    static bool in_time(Collection& c, const Needs& needs, Part part) {
        if (!needs.deadline || std::chrono::steady_clock::now() < *needs.deadline) return true;
        fail(c, part, name_of(part) + ": skipped: the scrape timeout had passed");
        return false;
    }

    // The cm_ids from the module, when the choice allows it and it is loaded;
    // false when NLDEV must report them instead. nldev keeps NLDEV's QPs.
    bool module_ids(Collection& c, std::optional<NldevData>& nldev) {
        if (choice_ == SourceChoice::nldev) return false;
        c.snapshot.source = SnapshotSource::module;
        auto dump = system_.module_ids();
        if (!dump) {
            fail(c, Part::connections, dump.error());
            return true;
        }
        if (!dump.value()) {
            if (choice_ == SourceChoice::automatic) return false;
            fail(c, Part::connections,
                 "module source: the rdmastat generic netlink family is not registered "
                 "(load it as root: modprobe rdmastat)");
            return true;
        }
        std::vector<ModuleRecord>& records = dump.value()->records;
        if (dump.value()->interrupted)
            c.warnings.push_back("module dump: RDMA devices changed during each of " +
                                 std::to_string(NetlinkSocket::dump_attempts) +
                                 " attempts; ids may be missing");
        // Ports and device details are NLDEV's, and so are the states of the QPs
        // the module joins without asking their driver (see analysis/qp_state.h).
        auto data = system_.nldev(false, true);
        if (!data) {
            fail(c, Part::connections, data.error());
            return true;
        }
        std::vector<Device> devices;
        OwnerMap qp_owners;
        if (data.value()) {
            nldev = std::move(data.value());
            qp_owners = system_.owners(qp_owner_pids(nldev->qps));
            fill_module_qp_states(records, nldev->qps, qp_owners);
            devices = nldev->devices;
        }
        c.snapshot = join_module(records, std::move(devices), system_.users(owner_uids(records)));
        if (nldev)
            add_verbs_connections(c.snapshot, nldev->qps, module_claims(records), qp_owners,
                                  system_.netns(process_pids(qp_owners)), system_.own_netns());
        if (c.snapshot.devices.empty()) c.no_devices = "no RDMA devices";
        return true;
    }

    // The address vectors of verbs connections, from the module's QP dump,
    // asked only when a connection of a connected type needs one. Without
    // it, one warning says what keeps the peers unknown.
    void verbs_peers(Collection& c, const Needs& needs) {
        auto needs_path = [](const Connection& x) { return x.via == Via::verbs && has_peer(x); };
        if (std::none_of(c.snapshot.connections.begin(), c.snapshot.connections.end(), needs_path))
            return;
        if (needs.deadline && std::chrono::steady_clock::now() >= *needs.deadline) {
            c.warnings.push_back("verbs connections: peer addresses skipped: the scrape timeout "
                                 "had passed");
            return;
        }
        const std::string nldev_only = "verbs connections: NLDEV reports their peers' QP numbers "
                                       "but not their addresses";
        if (choice_ == SourceChoice::nldev) {
            c.warnings.push_back(nldev_only + " (rdmastat.ko does, to root: --source module)");
            return;
        }
        auto qps = system_.module_qps();
        if (!qps && qps.error_code() == EPERM) {
            c.warnings.push_back(nldev_only + ", and rdmastat.ko tells them only to CAP_NET_ADMIN "
                                              "(it asks each QP's driver): run as root");
            return;
        }
        if (!qps) {
            c.warnings.push_back("verbs connections: peer addresses: " + qps.error());
            return;
        }
        if (!qps.value()) {
            c.warnings.push_back(nldev_only + " (rdmastat.ko does, to root: modprobe rdmastat)");
            return;
        }
        if (std::size_t missed = add_verbs_paths(c.snapshot, *qps.value()))
            c.warnings.push_back("verbs connections: " + std::to_string(missed) +
                                 " with a peer QP number are not in rdmastat.ko's QP dump (made "
                                 "or changed between the dumps): their peers' addresses are "
                                 "unknown");
    }

    void nldev_ids(Collection& c, std::optional<NldevData>& nldev, OwnerMap& owners) {
        c.snapshot.source = SnapshotSource::nldev;
        auto data = system_.nldev(true, true);
        if (!data) {
            fail(c, Part::connections, data.error());
            return;
        }
        if (!data.value()) {
            c.no_devices = "no RDMA devices (the kernel has no RDMA netlink: is ib_core loaded?)";
            return;
        }
        nldev = std::move(data.value());
        owners = system_.owners(owner_pids(*nldev));
        c.snapshot = join(*nldev, owners, system_.netns(process_pids(owners)));
        if (c.snapshot.devices.empty()) c.no_devices = "no RDMA devices";
        // The QPs are joined; the resources below take them as they are.
        nldev->cm_ids.clear();
    }

    // States a driver leaves unset are unknown, in the connections and in the
    // QPs the resources below reuse (analysis/qp_state.h). The devices say so.
    // What one collection learnt holds for the next (-w, serve), where a
    // round may have no id to tell by: the devices marked so far.
    static void unreported_qp_states(Collection& c, std::optional<NldevData>& nldev) {
        static std::mutex lock;
        static std::set<std::string> known;
        std::vector<QpRecord> none;
        std::lock_guard<std::mutex> guard(lock);
        auto marked = forget_unreported_qp_states(c.snapshot, nldev ? nldev->qps : none, known);
        known = std::set<std::string>(marked.begin(), marked.end());
    }

    // Each process-owned id's and resource's cgroup, the container and pod
    // it names, and the rdma controller's accounting of those cgroups.
    void workloads(Collection& c) {
        c.snapshot.rdma_cgroups_collected = true;
        std::set<std::uint32_t> pids;
        for (const Connection& x : c.snapshot.connections)
            if (x.owner.pid) pids.insert(*x.owner.pid);
        for (const Resource& r : c.snapshot.resources)
            if (r.owner.pid) pids.insert(*r.owner.pid);
        if (pids.empty()) return;
        CgroupMap cgroups = system_.cgroups(pids);
        std::set<std::string> paths;
        for (const auto& [pid, cg] : cgroups)
            paths.insert(cg.path);
        for (Connection& x : c.snapshot.connections)
            set_workload(x.owner, cgroups);
        for (Resource& r : c.snapshot.resources)
            set_workload(r.owner, cgroups);
        c.snapshot.rdma_cgroups = system_.rdma_cgroups(paths);
    }

    // Every device's resources of each kind with their owners. The QPs
    // of the cm_id collection are reused; with the module they were dumped for
    // the devices' QP states only, so they are reused too.
    void resources(Collection& c, const std::optional<NldevData>& nldev, OwnerMap owners) {
        std::vector<ResourceRecord> records;
        if (nldev)
            for (const QpRecord& q : nldev->qps)
                records.push_back(resource_from_qp(q));
        auto more = system_.resources(c.snapshot.devices, !nldev);
        if (!more) {
            fail(c, Part::resources, more.error());
            return;
        }
        for (ResourceRecord& r : more.value().records)
            records.push_back(std::move(r));
        for (ResourceKind kind : more.value().unreported)
            c.warnings.push_back("NLDEV: this kernel does not report " + name_of(kind) +
                                 " resources (Linux " + nldev_resource_kind(kind).since +
                                 " and later do); none are listed");
        std::set<std::uint32_t> missing;
        for (std::uint32_t pid : resource_owner_pids(records))
            if (!owners.count(pid)) missing.insert(pid);
        owners.merge(system_.owners(missing));
        c.snapshot.resources = to_resources(records, owners);
        c.snapshot.resources_collected = true;
    }

    // Each port's netdev addresses. Not a part of its own: without them the
    // fabric view knows fewer of a host's addresses, and says so with a warning.
    void port_addresses(Collection& c) {
        auto addresses = system_.addresses();
        if (!addresses) {
            c.warnings.push_back(addresses.error());
            return;
        }
        for (Device& d : c.snapshot.devices)
            for (Port& p : d.ports) {
                if (!p.netdev) continue;
                auto it = addresses.value().find(*p.netdev);
                p.addresses = it == addresses.value().end() ? std::vector<IpAddress>{} : it->second;
            }
    }

    // Host sockets and processes, as needs asks; holders of sockets by inode when both.
    void host(Collection& c, const Needs& needs) {
        if (needs.host_sockets && in_time(c, needs, Part::host_sockets)) {
            if (auto hs = system_.host_sockets()) {
                if (hs.value().fallback) c.warnings.push_back(*hs.value().fallback);
                c.snapshot.host_sockets = std::move(hs.value().sockets);
                c.snapshot.host_sockets_collected = true;
            } else {
                fail(c, Part::host_sockets, "host TCP sockets: " + hs.error());
            }
        }
        if (needs.processes && in_time(c, needs, Part::processes)) {
            if (auto ps = system_.processes()) {
                c.snapshot.processes = std::move(ps.value());
                c.snapshot.processes_collected = true;
            } else {
                fail(c, Part::processes, "processes: " + ps.error());
            }
        }
        if (c.snapshot.host_sockets_collected && c.snapshot.processes_collected)
            attribute_socket_holders(c.snapshot.host_sockets, c.snapshot.processes);
    }

    System& system_;
    SourceChoice choice_;
};

class FileSource final : public Source {
  public:
    FileSource(std::string path, ConnectionSink* sink) : path_(std::move(path)), sink_(sink) {}

    Collection collect(const Needs&) override {
        Collection c;
        c.snapshot.source = SnapshotSource::file;
        if (auto snap = load_snapshot_file(path_, sink_))
            c.snapshot = std::move(snap.value());
        else
            c.errors.push_back(PartError{Part::connections, snap.error()});
        return c;
    }

  private:
    std::string path_;
    ConnectionSink* sink_;
};

} // namespace

bool Collection::failed(Part part) const {
    return std::any_of(errors.begin(), errors.end(),
                       [&](const PartError& e) { return e.part == part; });
}

std::unique_ptr<Source> system_source(System& system, SourceChoice choice) {
    return std::make_unique<SystemSource>(system, choice);
}

std::unique_ptr<Source> file_source(std::string path, ConnectionSink* sink) {
    return std::make_unique<FileSource>(std::move(path), sink);
}

} // namespace rdmastat
