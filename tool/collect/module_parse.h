// SPDX-License-Identifier: MIT
#pragma once

/// Parser for the rdmastat module's RDMASTAT_CMD_CONN_GET dump (the generic
/// netlink family of include/uapi/linux/rdmastat.h). Like the NLDEV parsers it
/// takes the raw bytes of a whole dump (every message up to NLMSG_DONE, as
/// ModuleSource::dump returns them or a capture file holds them) and only
/// parses. Unknown attributes are skipped; malformed ones are a Failure naming
/// the message and the attribute.

#include "collect/netlink.h"
#include "model/records.h"

#include <vector>

namespace rdmastat {

/// One ModuleRecord per message (each message is one cm_id, its attributes at
/// the top level after the genl header), in the kernel's order. Required: device
/// index and name, cm id number, cm state, and a QP's number inside RDMASTAT_A_QP.
/// An id reported twice (same device index and cm id number) is kept once, as
/// last reported. Messages of another command, or of more than one message
/// type, are a Failure, as is a dump without NLMSG_DONE.
Result<std::vector<ModuleRecord>> parse_module_dump(const Bytes& bytes);

/// One ModuleQpRecord per message of an RDMASTAT_CMD_QP_GET dump, in the
/// kernel's order, with the same rules. Required: device index and name, and
/// the QP's number inside RDMASTAT_A_QP. GIDs must be 16 bytes; a path MTU is
/// an enum ib_mtu (1 to 5), turned into bytes. A QP reported twice (same device
/// index and number) is kept once, as last reported.
Result<std::vector<ModuleQpRecord>> parse_module_qp_dump(const Bytes& bytes);

} // namespace rdmastat
