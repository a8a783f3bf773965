// SPDX-License-Identifier: MIT
#pragma once

/// The system as the pipeline reads it: one seam (like ninja's DiskInterface)
/// between the pipeline's decisions (which source, what falls back to what, what
/// a failure costs) and the kernel interfaces that answer. The live one wraps
/// collect/; tests hand the pipeline a fake built from captured kernel bytes.

#include "collect/addresses.h"
#include "collect/cgroup.h"
#include "collect/proc_net_tcp.h"
#include "collect/resources.h"
#include "common/error.h"
#include "model/model.h"
#include "model/records.h"

#include <memory>
#include <optional>
#include <set>
#include <vector>

namespace rdmastat {

/// One dump of the rdmastat module's cm_ids.
struct ModuleDump {
    std::vector<ModuleRecord> records;
    bool interrupted = false; ///< every attempt was interrupted: ids may be missing
};

class System {
  public:
    virtual ~System() = default;
    /// The rdmastat module's cm_ids; nullopt when its generic netlink family is
    /// not registered (rdmastat.ko not loaded): an answer, not an error.
    virtual Result<std::optional<ModuleDump>> module_ids() = 0;
    /// The rdmastat module's connected QPs with their address vectors; nullopt
    /// when it is not loaded. A caller without CAP_NET_ADMIN gets a Failure
    /// with error_code() EPERM (the kernel's answer).
    virtual Result<std::optional<std::vector<ModuleQpRecord>>> module_qps() = 0;
    /// NLDEV's devices with their ports, plus every device's cm_ids and QPs as
    /// asked; nullopt when the kernel has no RDMA netlink (ib_core not loaded).
    virtual Result<std::optional<NldevData>> nldev(bool with_cm_ids, bool with_qps) = 0;
    /// The resources of every kind (QPs only when with_qps) of devices, and the
    /// kinds the kernel does not report; empty without RDMA netlink.
    virtual Result<ResourceDump> resources(const std::vector<Device>& devices, bool with_qps) = 0;
    /// What /proc and the user database say of pids and uids (collect/procfs.h);
    /// these never fail: what cannot be read is left out.
    virtual OwnerMap owners(const std::set<std::uint32_t>& pids) = 0;
    virtual NetnsMap netns(const std::set<std::uint32_t>& pids) = 0;
    /// The network namespace rdmastat runs in (its /proc/self/ns/net inode).
    virtual std::optional<std::uint32_t> own_netns() = 0;
    virtual UserMap users(const std::set<std::uint32_t>& uids) = 0;
    /// Each pid's cgroup v2 path (collect/cgroup.h).
    virtual CgroupMap cgroups(const std::set<std::uint32_t>& pids) = 0;
    /// The rdma controller's accounting of those cgroups and their limiting
    /// ancestors (collect/rdma_cgroup.h); never fails: what is not there is left out.
    virtual std::vector<CgroupRdma> rdma_cgroups(const std::set<std::string>& paths) = 0;
    /// Host TCP sockets, from sock_diag or its /proc/net fallback.
    virtual Result<HostSockets> host_sockets() = 0;
    /// Every process with the files rdmastat cares about.
    virtual Result<std::vector<Process>> processes() = 0;
    /// Port and QP counters of snap's devices (collect/counters.h).
    virtual Status counters(Snapshot& snap) = 0;
    /// Every netdev's IP addresses (collect/addresses.h).
    virtual Result<NetdevAddresses> addresses() = 0;
    /// Every port's GID table of devices, from sysfs (collect/gids.h).
    virtual Status gid_tables(std::vector<Device>& devices) = 0;
};

/// The running kernel, /proc and sysfs. One per collection: it keeps one RDMA
/// netlink socket for all of that collection's dumps.
std::unique_ptr<System> live_system();

} // namespace rdmastat
