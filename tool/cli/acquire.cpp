// SPDX-License-Identifier: MIT
#include "cli/acquire.h"

#include "analysis/join.h"
#include "analysis/qp_state.h"
#include "collect/module.h"
#include "collect/nldev.h"
#include "collect/proc_net_tcp.h"
#include "collect/procfs.h"
#include "collect/resources.h"
#include "collect/snapshot_file.h"

#include <iostream>
#include <mutex>

namespace rdmastat {
namespace {

// The module, when the choice allows it and it is loaded.
std::optional<ModuleSource> open_module(SourceChoice choice) {
    if (choice == SourceChoice::nldev) return std::nullopt;
    auto module = ModuleSource::open();
    if (!module) throw Error("module source", module.error());
    if (!module.value() && choice == SourceChoice::module)
        throw Error("module source",
                    "the rdmastat generic netlink family is not registered (load rdmastat.ko)");
    return std::move(module.value());
}

// Host sockets and processes, as needs asks; holders of sockets by inode when both.
void collect_host(Snapshot& snap, const Needs& needs) {
    if (needs.host_sockets) {
        HostSockets hs = collect_host_sockets().take();
        if (hs.fallback) warn_once(*hs.fallback);
        snap.host_sockets = std::move(hs.sockets);
        snap.host_sockets_collected = true;
    }
    if (needs.processes) {
        snap.processes = scan_processes().take();
        snap.processes_collected = true;
        if (needs.host_sockets) attribute_socket_holders(snap.host_sockets, snap.processes);
    }
}

// Every device's QPs, CQs, MRs, PDs and contexts with their owners; qps when the
// cm_id collection already dumped them (NLDEV source), else dumped here. No NLDEV
// means no RDMA devices, hence no resources.
void collect_resources(Snapshot& snap, std::optional<NldevSource>& nldev,
                       const std::vector<QpRecord>* qps, OwnerMap owners = {}) {
    snap.resources_collected = true;
    if (!nldev) return;
    std::vector<ResourceRecord> records;
    if (qps)
        for (const QpRecord& q : *qps)
            records.push_back(resource_from_qp(q));
    for (auto& r : nldev->collect_resources(snap.devices, !qps).take())
        records.push_back(std::move(r));
    std::set<std::uint32_t> missing;
    for (std::uint32_t pid : resource_owner_pids(records))
        if (!owners.count(pid)) missing.insert(pid);
    owners.merge(resolve_owners(missing));
    snap.resources = to_resources(records, owners);
}

} // namespace

void warn_once(const std::string& what) {
    static std::mutex lock;
    static std::set<std::string> said;
    std::lock_guard<std::mutex> guard(lock);
    if (said.insert(what).second) std::cerr << "rdmastat: warning: " << what << '\n';
}

std::optional<SourceChoice> source_choice_from_name(const std::string& name) {
    if (name == "auto") return SourceChoice::automatic;
    if (name == "nldev") return SourceChoice::nldev;
    if (name == "module") return SourceChoice::module;
    return std::nullopt;
}

Acquired acquire(const std::optional<std::string>& input, SourceChoice choice, Needs needs) {
    Acquired a;
    if (input) {
        a.snapshot = load_snapshot_file(*input).take();
        return a;
    }
    std::optional<ModuleSource> module = open_module(choice);
    auto nldev = NldevSource::open().take();
    if (module) {
        std::vector<ModuleRecord> records = module->collect().take();
        if (module->interrupted())
            warn_once("module dump: RDMA devices changed during each of " +
                      std::to_string(NetlinkSocket::dump_attempts) +
                      " attempts; ids may be missing");
        // Ports and device details are NLDEV's, and so are the states of the QPs
        // the module joins without asking their driver (see analysis/qp_state.h).
        std::vector<Device> devices;
        if (nldev) {
            NldevData data = nldev->collect(false, true).take();
            fill_module_qp_states(records, data.qps, resolve_owners(qp_owner_pids(data.qps)));
            devices = std::move(data.devices);
        }
        a.snapshot =
            join_module(records, std::move(devices), resolve_users(owner_uids(records)), "module");
        if (a.snapshot.devices.empty()) a.no_devices = "no RDMA devices";
        if (needs.resources) collect_resources(a.snapshot, nldev, nullptr);
        collect_host(a.snapshot, needs);
        return a;
    }
    if (!nldev) {
        a.snapshot.source = "nldev";
        a.no_devices = "no RDMA devices (the kernel has no RDMA netlink: is ib_core loaded?)";
        if (needs.resources) collect_resources(a.snapshot, nldev, nullptr);
        collect_host(a.snapshot, needs);
        return a;
    }
    NldevData data = nldev->collect().take();
    OwnerMap owners = resolve_owners(owner_pids(data));
    std::set<std::uint32_t> id_pids;
    for (const auto& [pid, o] : owners)
        if (o.pid) id_pids.insert(*o.pid);
    a.snapshot = join(data, owners, "nldev", resolve_netns(id_pids));
    if (a.snapshot.devices.empty()) a.no_devices = "no RDMA devices";
    if (needs.resources) collect_resources(a.snapshot, nldev, &data.qps, std::move(owners));
    collect_host(a.snapshot, needs);
    return a;
}

} // namespace rdmastat
