// SPDX-License-Identifier: MIT
#include "cli/acquire.h"

#include "analysis/join.h"
#include "collect/nldev.h"
#include "collect/procfs.h"
#include "collect/snapshot_file.h"

namespace rdmastat {

Acquired acquire(const std::optional<std::string>& input) {
    Acquired a;
    if (input) {
        a.snapshot = load_snapshot_file(*input).take();
        return a;
    }
    auto source = NldevSource::open().take();
    if (!source) {
        a.snapshot.source = "nldev";
        a.no_devices = "no RDMA devices (the kernel has no RDMA netlink: is ib_core loaded?)";
        return a;
    }
    NldevData data = source->collect().take();
    OwnerMap owners = resolve_owners(owner_pids(data));
    a.snapshot = join(data, owners, "nldev");
    if (a.snapshot.devices.empty()) a.no_devices = "no RDMA devices";
    return a;
}

} // namespace rdmastat
