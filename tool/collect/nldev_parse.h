// SPDX-License-Identifier: MIT
#pragma once

/// Parsers for NLDEV (RDMA netlink) dump replies. Each takes the raw bytes of a
/// whole dump (all messages up to NLMSG_DONE, as NetlinkSocket::request returns
/// them or as a capture file holds them) and only parses: no filtering, no output.
/// Unknown attributes are skipped; malformed ones are a Failure with context.

#include "collect/netlink.h"
#include "collect/resources.h"
#include "model/records.h"

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

/// RDMA_NLDEV_CMD_RES_CQ_GET, _MR_GET, _PD_GET and _CTX_GET dumps of one device:
/// one ResourceRecord of kind cq, mr, pd or ctx per entry (number cqn,
/// mrn, pdn, ctxn; details as ResourceRecord lists them), duplicates removed by
/// number. An entry without its number is a Failure; an empty entry (what the
/// kernel sends for a kernel-owned context) is skipped.
Result<std::vector<ResourceRecord>> parse_cq_dump(const Bytes& bytes);
Result<std::vector<ResourceRecord>> parse_mr_dump(const Bytes& bytes);
Result<std::vector<ResourceRecord>> parse_pd_dump(const Bytes& bytes);
Result<std::vector<ResourceRecord>> parse_ctx_dump(const Bytes& bytes);

} // namespace rdmastat
