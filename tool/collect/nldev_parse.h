// SPDX-License-Identifier: MIT
#pragma once

/// Parsers for NLDEV (RDMA netlink) dump replies. Each takes the raw bytes of a
/// whole dump (all messages up to NLMSG_DONE, as NetlinkSocket::request returns
/// them or as a capture file holds them) and only parses: no filtering, no output.
/// Unknown attributes are skipped; malformed ones are a Failure with context.

#include "collect/netlink.h"
#include "collect/resources.h"
#include "model/records.h"

#include <span>
#include <vector>

namespace rdmastat {

/// RDMA_NLDEV_CMD_GET dump: one Device per message (ports left empty).
Result<std::vector<Device>> parse_device_dump(const Bytes& bytes);
/// RDMA_NLDEV_CMD_PORT_GET dump of one device.
Result<std::vector<Port>> parse_port_dump(const Bytes& bytes);
/// RDMA_NLDEV_CMD_RES_CM_ID_GET dump of one device; entries split over several
/// messages are gathered, and an id reported twice (the table changed during the
/// dump) is kept once, as last reported.
Result<std::vector<CmIdRecord>> parse_cm_id_dump(const Bytes& bytes);
/// RDMA_NLDEV_CMD_GET_CHARDEV reply for the "uverbs" chardev of one device: the
/// kernel's driver id as the provider name ("siw", "rxe", "mlx5", ...); nullopt
/// when the reply names no driver.
Result<std::optional<std::string>> parse_chardev_driver(const Bytes& bytes);
/// RDMA_NLDEV_CMD_RES_QP_GET dump of one device; duplicates removed by QP number.
Result<std::vector<QpRecord>> parse_qp_dump(const Bytes& bytes);

class Attrs;

/// How NLDEV reports one ResourceKind: the collect side's one table of kinds.
/// collect_resources, the parsers and the capture tool all walk it.
struct NldevResourceKind {
    ResourceKind kind;
    unsigned command;        ///< RDMA_NLDEV_CMD_RES_*_GET, one dump per device
    int list_attr;           ///< RDMA_NLDEV_ATTR_RES_*: the nest of entries
    int entry_attr;          ///< RDMA_NLDEV_ATTR_RES_*_ENTRY
    int number_attr;         ///< the entry's number: RES_LQPN, RES_CQN, ...
    const char* number_name; ///< what errors call that number: "cq number"
    /// Appends an entry's details in the order ResourceRecord lists them; nullptr
    /// for qp, whose dump parse_qp_dump parses (QPs are also joined with cm_ids).
    void (*details)(const Attrs& entry, ResourceDetails& out);
    /// The Linux release whose NLDEV first dumps the kind, when kernels rdmastat
    /// still meets lack it ("5.19" for SRQs): their refusal leaves the kind out
    /// (collect_resources). nullptr: every kernel dumps it, a refusal is an error.
    const char* since = nullptr;
};

/// One row per ResourceKind, in the enum's order (row i is kind i).
std::span<const NldevResourceKind> nldev_resource_kinds();
/// The row of kind.
const NldevResourceKind& nldev_resource_kind(ResourceKind kind);

/// A dump of kind's command for one device: one ResourceRecord per entry (number
/// from the row's number attribute; details as ResourceRecord lists them),
/// duplicates removed by number. An entry without its number is a Failure; an
/// empty entry (what the kernel sends for a kernel-owned context) is skipped.
/// For qp: parse_qp_dump's records through resource_from_qp.
Result<std::vector<ResourceRecord>> parse_resource_dump(ResourceKind kind, const Bytes& bytes);

} // namespace rdmastat
