// SPDX-License-Identifier: MIT
#pragma once

/// A process's cgroup v2 path (/proc/PID/cgroup), and the container and
/// Kubernetes pod that path names when it follows a runtime's conventions.
///
/// Containers, by the first path component that names one (a container nested
/// in it, and a runtime's own sub-cgroups as podman's
/// ".../libpod-ID.scope/container", stay its):
///   docker      "docker-ID.scope" (systemd driver), or "ID" under "docker"
///   containerd  "cri-containerd-ID.scope" (CRI, systemd driver), or "ID" in a
///               pod's cgroup (CRI, cgroupfs driver)
///   cri-o       "crio-ID.scope", or "crio-ID" (cgroupfs driver)
///   podman      "libpod-ID.scope" (systemd: machine.slice, or a user's slice
///               when rootless), or "libpod-ID" (cgroupfs driver)
/// where ID is 64 lower-case hex digits; the runtimes' monitor processes
/// ("crio-conmon-ID", "libpod-conmon-ID") are not containers.
///
/// Pods, under kubelet's "kubepods" (cgroupfs) or "kubepods.slice" (systemd;
/// with a --cgroup-root, as kind's, "kubelet-kubepods.slice" and the like):
///   systemd   "kubepods-pod<UID>.slice" (guaranteed), or
///             "kubepods-burstable-pod<UID>.slice", "kubepods-besteffort-pod<UID>.slice",
///             with '_' for each '-' of the UID
///   cgroupfs  "pod<UID>", under "burstable" or "besteffort" or directly (guaranteed)
/// where UID is a UUID or a static pod's 32 hex digits.

#include "model/model.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace rdmastat {

/// The path of the cgroup v2 line ("0::PATH") of /proc/PID/cgroup's text;
/// nullopt when there is none (a process only in v1 hierarchies).
std::optional<std::string> cgroup_v2_path(std::string_view text);

/// What a cgroup path names, each nullopt when it follows no convention.
struct Workload {
    std::optional<Container> container;
    std::optional<Pod> pod;
};
Workload workload_of(std::string_view path);

/// A process's cgroup v2 path and what it names, worked out once per process.
struct ProcessCgroup {
    std::string path;
    Workload workload;
};

/// pid → its cgroup. A pid whose file cannot be read (gone) or has no v2 line
/// is left out.
using CgroupMap = std::map<std::uint32_t, ProcessCgroup>;
CgroupMap resolve_cgroups(const std::set<std::uint32_t>& pids,
                          const std::string& proc_root = "/proc");

/// Sets cgroup, container and pod of o from cgroups, when its pid is there.
void set_workload(Owner& o, const CgroupMap& cgroups);

/// The cgroups of owners that arrive one at a time (the tracepoints name an
/// id's process by pid alone): each pid's file is read once until forget(),
/// so that a stream of events costs a read per process, not per event.
/// forget() often enough that a pid the kernel reuses is read again.
class CgroupCache {
  public:
    explicit CgroupCache(std::string proc_root = "/proc") : proc_root_(std::move(proc_root)) {}
    /// set_workload for an owner with a pid and no cgroup yet.
    void fill(Owner& o);
    void forget();

  private:
    std::string proc_root_;
    CgroupMap known_;
    std::set<std::uint32_t> unknown_; ///< gone, or in no v2 hierarchy
};

} // namespace rdmastat
