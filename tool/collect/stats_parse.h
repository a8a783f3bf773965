// SPDX-License-Identifier: MIT
#pragma once

/// Parsers for NLDEV statistics replies (RDMA_NLDEV_CMD_STAT_GET): a port's
/// hardware counters, and the counters bound to QPs. Like the other NLDEV
/// parsers they take the raw reply bytes and only parse.

#include "collect/netlink.h"
#include "model/model.h"

#include <vector>

namespace rdmastat {

/// The reply to STAT_GET for one device port (a doit request with the device and
/// port index): its hardware counters, sorted by name. A reply without a counter
/// table yields none.
Result<std::vector<Counter>> parse_port_stat(const Bytes& bytes);

/// The STAT_GET dump of one device with RDMA_NLDEV_ATTR_STAT_RES = RES_QP: one
/// QpCounters per bound counter, with its port, id, QP numbers and counters
/// (device named by the message). Empty when no counter is bound.
Result<std::vector<QpCounters>> parse_qp_counter_dump(const Bytes& bytes);

} // namespace rdmastat
