// SPDX-License-Identifier: MIT
#pragma once

/// Generic netlink: family lookup through the controller (nlctrl) and the genl
/// header every request and reply of a generic family carries.

#include "collect/netlink.h"

#include <cstdint>
#include <optional>
#include <string>

namespace rdmastat {

/// A registered generic netlink family: its message type and version.
struct GenlFamily {
    std::uint16_t id = 0;
    std::uint32_t version = 0;
};

/// Appends a genlmsghdr (cmd, version) to a request whose netlink header is
/// filled; attributes go after it.
void put_genl_header(nlmsghdr* nlh, std::uint8_t cmd, std::uint8_t version);

/// The command and attributes of one generic netlink message: the genlmsghdr
/// (GENL_HDRLEN bytes) first, then attributes split as parse_attrs does. A
/// message too short for the header is a Failure.
struct GenlMessage {
    std::uint8_t cmd = 0;
    std::uint8_t version = 0;
    AttrTable attrs;
};
Result<GenlMessage> parse_genl_message(const nlmsghdr* nlh, unsigned max);

/// The reply to CTRL_CMD_GETFAMILY (the whole exchange, up to the ack): the
/// family's id (CTRL_ATTR_FAMILY_ID) and version. A reply without an id, or
/// one that is not from the controller, is a Failure.
Result<GenlFamily> parse_genl_family(const Bytes& bytes);

/// Asks the controller on sock (a NETLINK_GENERIC socket) for the family called
/// name. nullopt when no such family is registered (the kernel answers ENOENT):
/// an answer, not an error. Other failures keep the kernel's errno as code.
Result<std::optional<GenlFamily>> resolve_genl_family(NetlinkSocket& sock, const std::string& name);

} // namespace rdmastat
