// SPDX-License-Identifier: MIT
#pragma once

/// Process facts from /proc (the owner of a pid NLDEV reported, every process's
/// sockets and RDMA device files) and user names.

#include "common/error.h"
#include "model/records.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace rdmastat {

/// Looks each pid up once in proc_root (comm, real uid) and each uid once in the
/// user database. The kernel names the task that created a resource, which may be
/// a thread: its owner is then the thread group (pid = Tgid, comm of the process)
/// with tid set. A process that exited meanwhile keeps just its pid: normal, not
/// an error.
OwnerMap resolve_owners(const std::set<std::uint32_t>& pids,
                        const std::string& proc_root = "/proc");

/// The network namespace of each pid, from the link /proc/PID/ns/net
/// ("net:[INODE]"). A pid whose link cannot be read (gone, or another user's
/// process without privilege) is left out.
NetnsMap resolve_netns(const std::set<std::uint32_t>& pids, const std::string& proc_root = "/proc");
/// INODE of a "net:[INODE]" link, or nullopt for anything else.
std::optional<std::uint32_t> parse_netns_link(std::string_view target);

/// Looks each uid up once in the user database: its name, or nullopt for a uid
/// without an entry (shown as the number).
UserMap resolve_users(const std::set<std::uint32_t>& uids);

/// Every process in proc_root, by pid: comm, real uid and its user name (looked
/// up once per uid), and the open files rdmastat cares about: fds whose link
/// reads "socket:[INODE]" (inode set) or starts with "/dev/infiniband/", by fd
/// number. A process whose fd directory cannot be read (EACCES: another user's
/// process without privilege) is kept with inspected false and no files; one
/// whose directory lists but some of whose links are refused (EACCES, EPERM) is
/// kept with inspected false and the files that could be read. One that exits
/// during the scan is left out, and an fd closed during the scan is skipped
/// (both normal). Failure only when proc_root itself cannot
/// be listed.
Result<std::vector<Process>> scan_processes(const std::string& proc_root = "/proc");

/// Sets pid and fd of each socket with an inode to the first holder of that
/// inode among processes (in their order, fds in theirs); sockets nobody holds
/// (siw's kernel sockets, TIME-WAIT) keep them empty.
void attribute_socket_holders(std::vector<HostSocket>& sockets,
                              const std::vector<Process>& processes);

} // namespace rdmastat
