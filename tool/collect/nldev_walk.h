// SPDX-License-Identifier: MIT
#pragma once

/// The walk every NLDEV parser shares (nldev_parse, stats_parse): messages of
/// one command, their attributes, nested entries. Inside, a malformed attribute
/// throws Error; walk_dump turns it into a Failure naming the message.

#include "collect/attrs.h"

#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <string>

namespace rdmastat::nldev {

/// A message's attributes, to max (a newer kernel's past the headers' own
/// RDMA_NLDEV_ATTR_MAX, where a caller knows them).
inline Attrs message_attrs(const nlmsghdr* nlh, unsigned max = RDMA_NLDEV_ATTR_MAX) {
    return parse_attrs(mnl_nlmsg_get_payload(nlh), mnl_nlmsg_get_payload_len(nlh), max).take();
}

inline Attrs nested_attrs(const nlattr* nest) {
    return parse_nested(nest, RDMA_NLDEV_ATTR_MAX).take();
}

/// Walks a reply of command cmd (a dump up to NLMSG_DONE, or a request's reply
/// up to its ack), handing each message's attributes (to max) to per_message.
/// Errors gain the message number, which is what one needs to find it in a
/// capture.
template <typename F>
Status walk_dump(const Bytes& bytes, unsigned cmd, const char* what, F per_message,
                 unsigned max = RDMA_NLDEV_ATTR_MAX) {
    unsigned index = 0;
    auto walked = walk_messages(bytes.data(), bytes.size(), [&](const nlmsghdr* nlh) -> Status {
        ++index;
        try {
            if (RDMA_NL_GET_CLIENT(nlh->nlmsg_type) != RDMA_NL_NLDEV ||
                RDMA_NL_GET_OP(nlh->nlmsg_type) != cmd)
                throw Error("unexpected message type " + std::to_string(nlh->nlmsg_type));
            per_message(message_attrs(nlh, max));
        } catch (const Error& e) {
            return Failure{std::string(what) + " message " + std::to_string(index) + ": " +
                           e.what()};
        }
        return Ok{};
    });
    if (!walked) return walked.failure();
    if (walked.value() != StreamEnd::done)
        return Failure{std::string(what) + ": dump ended without NLMSG_DONE"};
    return Ok{};
}

} // namespace rdmastat::nldev
