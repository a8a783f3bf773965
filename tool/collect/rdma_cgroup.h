// SPDX-License-Identifier: MIT
#pragma once

/// The rdma cgroup controller's files (cgroup v2): rdma.current, how many HCA
/// handles and objects a cgroup and its descendants hold on each device, and
/// rdma.max, how many they may. A process at its limit fails to open a
/// device or to create a PD, CQ, QP or MR with EAGAIN; the files say why.
///
/// Both files hold a line per device the kernel knows:
///   "rxe0 hca_handle=1 hca_object=4"      (rdma.current)
///   "rxe0 hca_handle=2 hca_object=max"    (rdma.max)

#include "common/error.h"
#include "model/model.h"

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace rdmastat {

/// The devices of a cgroup's rdma.current and rdma.max texts, in the first's
/// order; a device only in rdma.max (registered in between) is left out. A
/// line that does not parse is a failure naming it.
Result<std::vector<CgroupRdmaDevice>> parse_rdma_cgroup(std::string_view current,
                                                         std::string_view max);

/// The accounting of each cgroup of paths (as /proc/PID/cgroup names them)
/// and of those ancestors that limit some device or are a pod's, read under
/// root (the cgroup v2 mount), sorted by path. A cgroup without the files
/// (the controller not enabled for it, or gone) is left out; so is the root,
/// which has no limits. Nothing at all when root is not a cgroup v2 mount.
std::vector<CgroupRdma> read_rdma_cgroups(const std::set<std::string>& paths,
                                          const std::string& root = "/sys/fs/cgroup");

} // namespace rdmastat
