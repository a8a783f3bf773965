// SPDX-License-Identifier: MIT
#pragma once

/// Host TCP sockets from the kernel's sock_diag (inet_diag) netlink interface,
/// the source `ss -t` reads.

#include "collect/netlink.h"
#include "model/model.h"

#include <vector>

namespace rdmastat {

class SockDiagSource {
  public:
    /// Opens NETLINK_SOCK_DIAG. Failure (with errno) when the socket cannot be made.
    static Result<SockDiagSource> open();

    /// One raw SOCK_DIAG_BY_FAMILY dump (inet_diag_req_v2) of the TCP sockets of
    /// family (AF_INET or AF_INET6) in every state: what parse_inet_diag_dump
    /// and the capture tool take.
    Result<Bytes> dump(int family);

    /// Every TCP socket, IPv4 then IPv6, parsed. An AF_INET6 dump includes
    /// IPv4-mapped peers of dual-stack sockets, as ss shows them. A kernel
    /// without IPv6 (the dump fails with ENOENT) has only the IPv4 sockets; one
    /// without TCP sock_diag at all (tcp_diag neither loaded nor loadable) is a
    /// Failure with errno ENOENT that says so.
    Result<std::vector<HostSocket>> collect();

  private:
    explicit SockDiagSource(NetlinkSocket socket) : socket_(std::move(socket)) {}
    NetlinkSocket socket_;
};

} // namespace rdmastat
