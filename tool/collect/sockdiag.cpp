// SPDX-License-Identifier: MIT
#include "collect/sockdiag.h"

#include "collect/sockdiag_parse.h"

#include <cerrno>
#include <libmnl/libmnl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>

namespace rdmastat {

Result<SockDiagSource> SockDiagSource::open() {
    auto sock = NetlinkSocket::open(NETLINK_SOCK_DIAG);
    if (!sock) return Failure{"sock_diag netlink: " + sock.error(), sock.error_code()};
    return SockDiagSource(std::move(sock.value()));
}

Result<Bytes> SockDiagSource::dump(int family) {
    return socket_.request([&](nlmsghdr* nlh) {
        nlh->nlmsg_type = SOCK_DIAG_BY_FAMILY;
        nlh->nlmsg_flags |= NLM_F_DUMP;
        auto* req = static_cast<inet_diag_req_v2*>(
            mnl_nlmsg_put_extra_header(nlh, sizeof(inet_diag_req_v2)));
        req->sdiag_family = static_cast<std::uint8_t>(family);
        req->sdiag_protocol = IPPROTO_TCP;
        req->idiag_states = ~0u; // every state, TIME-WAIT and request sockets included
    });
}

Result<std::vector<HostSocket>> SockDiagSource::collect() {
    std::vector<HostSocket> out;
    for (int family : {AF_INET, AF_INET6}) {
        const char* what = family == AF_INET ? "IPv4" : "IPv6";
        auto bytes = dump(family);
        if (!bytes) {
            // The inet6 diag handler is missing when the kernel has no IPv6.
            if (family == AF_INET6 && bytes.error_code() == ENOENT) break;
            std::string hint = bytes.error_code() == ENOENT
                                   ? " (no TCP sock_diag in this kernel: is tcp_diag loaded?)"
                                   : "";
            return Failure{std::string("sock_diag ") + what + " TCP dump: " + bytes.error() + hint,
                           bytes.error_code()};
        }
        auto sockets = parse_inet_diag_dump(bytes.value());
        if (!sockets) return Failure{std::string("sock_diag ") + what + ": " + sockets.error()};
        for (auto& s : sockets.value())
            out.push_back(std::move(s));
    }
    return out;
}

} // namespace rdmastat
