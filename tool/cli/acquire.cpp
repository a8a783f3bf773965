// SPDX-License-Identifier: MIT
#include "cli/acquire.h"

#include "analysis/join.h"
#include "collect/module.h"
#include "collect/nldev.h"
#include "collect/procfs.h"
#include "collect/snapshot_file.h"

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

} // namespace

std::optional<SourceChoice> source_choice_from_name(const std::string& name) {
    if (name == "auto") return SourceChoice::automatic;
    if (name == "nldev") return SourceChoice::nldev;
    if (name == "module") return SourceChoice::module;
    return std::nullopt;
}

Acquired acquire(const std::optional<std::string>& input, SourceChoice choice, Needs needs) {
    (void)needs; // filled in by the lsof/check collectors
    Acquired a;
    if (input) {
        a.snapshot = load_snapshot_file(*input).take();
        return a;
    }
    std::optional<ModuleSource> module = open_module(choice);
    auto nldev = NldevSource::open().take();
    if (module) {
        std::vector<ModuleRecord> records = module->collect().take();
        // Ports and device details are NLDEV's; the module reports ids only.
        std::vector<Device> devices;
        if (nldev) devices = nldev->collect(false).take().devices;
        a.snapshot =
            join_module(records, std::move(devices), resolve_users(owner_uids(records)), "module");
        if (a.snapshot.devices.empty()) a.no_devices = "no RDMA devices";
        return a;
    }
    if (!nldev) {
        a.snapshot.source = "nldev";
        a.no_devices = "no RDMA devices (the kernel has no RDMA netlink: is ib_core loaded?)";
        return a;
    }
    NldevData data = nldev->collect().take();
    OwnerMap owners = resolve_owners(owner_pids(data));
    a.snapshot = join(data, owners, "nldev");
    if (a.snapshot.devices.empty()) a.no_devices = "no RDMA devices";
    return a;
}

} // namespace rdmastat
