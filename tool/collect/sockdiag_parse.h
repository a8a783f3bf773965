// SPDX-License-Identifier: MIT
#pragma once

/// Parser for sock_diag (inet_diag) dump replies: host TCP sockets. It takes the
/// raw bytes of one whole dump (every message up to NLMSG_DONE, as
/// NetlinkSocket::request returns them or as a capture file holds them) and only
/// parses: no filtering, no output.

#include "collect/netlink.h"
#include "model/model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rdmastat {

/// A SOCK_DIAG_BY_FAMILY dump of inet sockets (struct inet_diag_msg per message,
/// either address family): one HostSocket per message, in the kernel's order,
/// with state, addresses, ports, inode and uid (pid and fd stay empty: the /proc
/// scan finds holders). Attributes after the header are checked for shape and
/// skipped. A short header, a malformed attribute, a message of another type or
/// a dump without NLMSG_DONE is a Failure naming the message number.
Result<std::vector<HostSocket>> parse_inet_diag_dump(const Bytes& bytes);

} // namespace rdmastat
