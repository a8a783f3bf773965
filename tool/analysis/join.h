// SPDX-License-Identifier: MIT
#pragma once

/// Joins what the sources reported into Connections.

#include "model/records.h"

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace rdmastat {

/// Whether a QP whose kernel owner is qp_owner can be the QP of an id owned
/// by the kernel module id_owner: its own, or rdma_cm's (rdma_create_qp()
/// creates a kernel id's QP in rdma_cm's name).
bool kernel_qp_of(const std::string& id_owner, const std::string& qp_owner);

/// The pids that own any cm_id or QP: what resolve_owners must look up, once each.
std::set<std::uint32_t> owner_pids(const NldevData& data);

/// (device index, QP number) of QPs that cm ids own.
using QpKeys = std::set<std::pair<std::uint32_t, std::uint32_t>>;

/// Appends to snap a verbs Connection for each QP of qps that is not in claimed
/// and is connected (RC, UC, XRC_INI, XRC_TGT) or a UD QP, in RTR, RTS, SQD,
/// SQE or ERR: type, state and remote QP number (0, "none", is left out) from
/// the QP dump, owner and netns as join() resolves them, transport from
/// snap's devices. QPs in RESET or INIT, of unknown type or state (6.1's siw
/// reports no state), and the kernel's SMI and GSI QPs are not connections.
/// A QP the kernel owns in rdma_cm's name is a cm id's (rdma_create_qp), never
/// verbs. With only_netns, a QP whose owning process is not known to be in
/// that network namespace is left out: the module lists the caller's
/// namespace's ids only, so another namespace's cm ids could not claim their
/// QPs (and another user's process's namespace is unreadable without privilege).
void add_verbs_connections(Snapshot& snap, const std::vector<QpRecord>& qps, const QpKeys& claimed,
                           const OwnerMap& owners, const NetnsMap& netns,
                           std::optional<std::uint32_t> only_netns = std::nullopt);

/// The QPs the module joined to its ids (not those it names unjoined).
QpKeys module_qps(const std::vector<ModuleRecord>& records);

/// One Connection per cm_id, in the order the kernel reported them: its QP found by device and
/// QP number (state and type from the QP dump) when the QP has the id's owner (the same
/// process, threads mapped through owners, or for a kernel id the same kernel name or
/// rdma_cm); otherwise qp_unjoined says why (gone: no such QP; other_owner). Its owner
/// from owners (a pid missing there keeps just the pid), netns that of its owning process
/// in netns (kernel-owned ids have none), transport from its device; then
/// the verbs connections among the QPs no id joined (add_verbs_connections).
/// The snapshot's source is NLDEV.
Snapshot join(const NldevData& data, const OwnerMap& owners, const NetnsMap& netns = {});

/// The uids of the owners the module named: what resolve_users must look up, once each.
std::set<std::uint32_t> owner_uids(const std::vector<ModuleRecord>& records);

/// One Connection per module record, in the kernel's order, with devices (from
/// NLDEV) as the snapshot's devices. The owner is what the module sent (nothing
/// is looked up in /proc) plus the user name of its uid from users. Transport
/// is the module's, or the device's when the module sent none. mapped is set
/// only when the module sent mapping information (the flag or mapped addresses).
/// The snapshot's source is the module.
Snapshot join_module(const std::vector<ModuleRecord>& records, std::vector<Device> devices,
                     const UserMap& users);

} // namespace rdmastat
