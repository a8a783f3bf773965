// SPDX-License-Identifier: MIT
#include "collect/sockdiag_parse.h"

#include <cstring>
#include <libmnl/libmnl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>

namespace rdmastat {
namespace {

// The socket id's addresses are __be32[4]: an IPv4 address fills the first word.
Endpoint endpoint_of(std::uint8_t family, const __be32 (&addr)[4], __be16 port) {
    Endpoint e;
    e.address.family = family;
    std::memcpy(e.address.bytes.data(), addr, family == AF_INET ? 4 : 16);
    e.port = ntohs(port);
    return e;
}

} // namespace

Result<std::vector<HostSocket>> parse_inet_diag_dump(const Bytes& bytes) {
    std::vector<HostSocket> out;
    unsigned index = 0;
    auto walked = walk_messages(bytes.data(), bytes.size(), [&](const nlmsghdr* nlh) -> Status {
        ++index;
        auto fail = [&](const std::string& why) {
            return Failure{"inet_diag dump message " + std::to_string(index) + ": " + why};
        };
        if (nlh->nlmsg_type != SOCK_DIAG_BY_FAMILY)
            return fail("unexpected message type " + std::to_string(nlh->nlmsg_type));
        std::size_t len = mnl_nlmsg_get_payload_len(nlh);
        if (len < sizeof(inet_diag_msg))
            return fail(std::to_string(len) + " bytes, expected at least " +
                        std::to_string(sizeof(inet_diag_msg)) + " for struct inet_diag_msg");
        inet_diag_msg msg;
        std::memcpy(&msg, mnl_nlmsg_get_payload(nlh), sizeof(msg));
        if (msg.idiag_family != AF_INET && msg.idiag_family != AF_INET6)
            return fail("address family " + std::to_string(msg.idiag_family) +
                        " is not an inet family");
        // Nothing after the header is needed, but a malformed tail is not trusted.
        auto* tail = static_cast<const std::uint8_t*>(mnl_nlmsg_get_payload(nlh)) +
                     NLMSG_ALIGN(sizeof(inet_diag_msg));
        std::size_t tail_len =
            len > NLMSG_ALIGN(sizeof(inet_diag_msg)) ? len - NLMSG_ALIGN(sizeof(inet_diag_msg)) : 0;
        if (auto attrs = parse_attrs(tail, tail_len, INET_DIAG_MAX); !attrs)
            return fail(attrs.error());
        HostSocket s;
        s.state = static_cast<TcpState>(msg.idiag_state);
        s.local = endpoint_of(msg.idiag_family, msg.id.idiag_src, msg.id.idiag_sport);
        s.peer = endpoint_of(msg.idiag_family, msg.id.idiag_dst, msg.id.idiag_dport);
        s.inode = msg.idiag_inode;
        s.uid = msg.idiag_uid;
        out.push_back(std::move(s));
        return Ok{};
    });
    if (!walked) return walked.failure();
    if (walked.value() != StreamEnd::done)
        return Failure{"inet_diag dump: dump ended without NLMSG_DONE"};
    return out;
}

} // namespace rdmastat
