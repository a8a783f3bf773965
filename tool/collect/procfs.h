// SPDX-License-Identifier: MIT
#pragma once

/// Process facts from /proc: the owner of a pid NLDEV reported.

#include "model/records.h"

#include <cstdint>
#include <set>
#include <string>

namespace rdmastat {

/// Looks each pid up once in proc_root (comm, real uid) and each uid once in the
/// user database. The kernel names the task that created a resource, which may be
/// a thread: its owner is then the thread group (pid = Tgid, comm of the process)
/// with tid set. A process that exited meanwhile keeps just its pid: normal, not
/// an error.
OwnerMap resolve_owners(const std::set<std::uint32_t>& pids,
                        const std::string& proc_root = "/proc");

} // namespace rdmastat
