// SPDX-License-Identifier: MIT
#pragma once

/// QP states for the module source. rdmastat.ko joins each id with its QP by
/// owner but asks the driver for a QP's state only where a lock excludes the
/// QP's destruction (a kernel id's own QP, for CAP_NET_ADMIN callers); every
/// other joined QP's state comes from NLDEV's QP dump, which any user can read.

#include "model/model.h"
#include "model/records.h"

#include <set>
#include <string>
#include <vector>

namespace rdmastat {

/// The NLDEV pids that own QPs: what resolve_owners must look up for
/// fill_module_qp_states.
std::set<std::uint32_t> qp_owner_pids(const std::vector<QpRecord>& qps);

/// Sets the state of each record's QP that the module joined (type present)
/// but sent without a state, from the QP of qps with the same device index and
/// number, when NLDEV names an owner consistent with the record's: the same
/// process (NLDEV's pid mapped through owners to its thread group), or for a
/// kernel id the same kernel name or rdma_cm (rdma_create_qp's owner). A QP
/// whose owner disagrees (destroyed and its number reused between the two
/// dumps) leaves the state unset. When the module withheld the owner (another
/// user's id, unprivileged caller) the module's own owner check stands.
/// The peer's QP number (NLDEV's rqpn, which the module does not send) is
/// set the same way, whether or not the module sent the state.
/// Returns how many states were filled.
std::size_t fill_module_qp_states(std::vector<ModuleRecord>& records,
                                  const std::vector<QpRecord>& qps, const OwnerMap& owners);

/// Finds the devices whose driver does not report QP states and forgets
/// theirs. NLDEV asks the driver's query_qp for a QP's state from an attribute
/// the kernel leaves unset, so such a driver's QPs all read as RESET (0 in a
/// zeroed stack). It shows: a QP a cm id names was moved to INIT at least
/// before the id learnt its number (rdma_create_qp() does it first; librdmacm
/// before connecting or accepting), and the id dump comes before the QP dump.
/// So a device is marked (siw before Linux 6.8 is one) when a joined QP of a
/// non-listening id reads RESET, or when it is in known (marked by an earlier
/// collection: a round with no such id says nothing), and in both cases only
/// if none of its QPs, in snap or in qps, reads another state: an application
/// may name a QP it has not moved yet, or reset one, on a driver that reports.
/// A marked device gets qp_states_unreported, and the states of its
/// connections' QPs and of its records in qps are cleared. Returns the names
/// of the devices marked.
std::vector<std::string> forget_unreported_qp_states(Snapshot& snap, std::vector<QpRecord>& qps,
                                                     const std::set<std::string>& known = {});

} // namespace rdmastat
