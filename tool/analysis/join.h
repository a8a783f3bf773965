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

/// What the cm ids of a collection say of QPs: the QPs they joined (device
/// index, QP number), and the processes that hold an id on a device that
/// names no QP yet and is not listening (device index, pid). rdma_cm gives an
/// id its QP number only at connect or accept (librdmacm's rdma_accept moves
/// the QP to RTS first), and a UD id that never connects never gets one.
struct CmClaims {
    std::set<std::pair<std::uint32_t, std::uint32_t>> qps;
    std::set<std::pair<std::uint32_t, std::uint32_t>> unnumbered;
};

/// Appends to snap a verbs Connection for each QP of qps that is connected (RC,
/// UC, XRC_INI, XRC_TGT) or UD, in RTR, RTS, SQD, SQE or ERR, and that no cm id
/// claims: not among claims.qps, and not owned by a process of
/// claims.unnumbered on its device (taken for that id's QP). Type, state and
/// remote QP number (NLDEV's rqpn, sent for RC and UC QPs only; 0, none yet,
/// is left out) come from the QP dump, owner and netns as join() resolves
/// them, transport from snap's devices. QPs in RESET or INIT, of unknown type
/// or state (6.1's siw reports no state), the kernel's SMI and GSI QPs, and
/// kernel QPs made in rdma_cm's name (rdma_create_qp) are not connections.
/// With only_netns, a QP whose owning process is not known to be in that
/// network namespace is left out: the module lists the caller's namespace's
/// ids only, so another namespace's cm ids could not claim their QPs (and
/// another user's process's namespace is unreadable without privilege).
void add_verbs_connections(Snapshot& snap, const std::vector<QpRecord>& qps, const CmClaims& claims,
                           const OwnerMap& owners, const NetnsMap& netns,
                           std::optional<std::uint32_t> only_netns = std::nullopt);

/// Gives each verbs connection of snap of a connected type its QP's path from
/// the module's QP dump (qps, matched by device name and QP number, and by QP
/// type and owning process where both sides know them: a number reused between
/// the two dumps is another QP): qp.path, local and peer as the addresses of
/// the path's source and destination GIDs (an IPv4-mapped GID as IPv4), port 0,
/// and the remote QP number when NLDEV sent none. An all-zero GID (a QP that
/// went from INIT to ERR) is no address. Returns how many connections of a
/// connected type that have a remote QP number were left without a peer
/// address: QPs the second dump did not find as they were in the first.
std::size_t add_verbs_paths(Snapshot& snap, const std::vector<ModuleQpRecord>& qps);

/// The claims of the module's ids (the QPs it joined, not those it names
/// unjoined; processes only where the module sent the owner's pid).
CmClaims module_claims(const std::vector<ModuleRecord>& records);

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
