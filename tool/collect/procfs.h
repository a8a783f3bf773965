// SPDX-License-Identifier: MIT
#pragma once

/// Process facts from /proc (the owner of a pid NLDEV reported) and user names.

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

/// Looks each uid up once in the user database: its name, or nullopt for a uid
/// without an entry (shown as the number).
UserMap resolve_users(const std::set<std::uint32_t>& uids);

} // namespace rdmastat
