// SPDX-License-Identifier: MIT
#pragma once

/// Host TCP sockets from /proc/net/tcp and /proc/net/tcp6: what ss and netstat
/// read when the kernel has no sock_diag for TCP (inet_diag or tcp_diag not
/// built, not loadable, or refused in a restricted container).

#include "common/error.h"
#include "model/model.h"

#include <string>
#include <string_view>
#include <vector>

namespace rdmastat {

/// The sockets one /proc/net/tcp (family AF_INET) or /proc/net/tcp6 (AF_INET6)
/// text lists, in its order: state (named as sock_diag's are), local and peer
/// address and port, uid and inode. The header line is skipped; a line that
/// does not parse is a Failure naming its number. Addresses are the kernel's
/// words printed in this host's byte order, so text from another architecture
/// does not parse right.
Result<std::vector<HostSocket>> parse_proc_net_tcp(std::string_view text, int family);

/// Every TCP socket, IPv4 then IPv6, from proc_root/net/tcp and tcp6 (a kernel
/// without IPv6 has no tcp6: only the IPv4 ones). Failure when tcp cannot be
/// read.
Result<std::vector<HostSocket>> read_proc_net_tcp(const std::string& proc_root = "/proc");

/// Host sockets for the commands that need them: from sock_diag, or when the
/// kernel has none for TCP, from /proc/net (fallback then says why).
struct HostSockets {
    std::vector<HostSocket> sockets;
    std::optional<std::string> fallback; ///< set when /proc/net was read instead
};
Result<HostSockets> collect_host_sockets(const std::string& proc_root = "/proc");

} // namespace rdmastat
