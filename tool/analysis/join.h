// SPDX-License-Identifier: MIT
#pragma once

/// Joins what the sources reported into Connections.

#include "model/records.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace rdmastat {

/// Whether a QP whose kernel owner is qp_owner can be the QP of an id owned
/// by the kernel module id_owner: its own, or rdma_cm's (rdma_create_qp()
/// creates a kernel id's QP in rdma_cm's name).
bool kernel_qp_of(const std::string& id_owner, const std::string& qp_owner);

/// The pids that own any cm_id or QP: what resolve_owners must look up, once each.
std::set<std::uint32_t> owner_pids(const NldevData& data);

/// One Connection per cm_id, in the order the kernel reported them: its QP found by device and
/// QP number (state and type from the QP dump) when the QP has the id's owner (the same
/// process, threads mapped through owners, or for a kernel id the same kernel name or
/// rdma_cm); otherwise qp_unjoined says why (gone: no such QP; other_owner). Its owner
/// from owners (a pid missing there keeps just the pid), netns that of its owning process
/// in netns (kernel-owned ids have none), transport from its device.
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
