// SPDX-License-Identifier: MIT
#pragma once

/// Joins what the sources reported into Connections.

#include "model/records.h"

#include <cstdint>
#include <set>
#include <string>

namespace rdmastat {

/// The pids that own any cm_id or QP: what resolve_owners must look up, once each.
std::set<std::uint32_t> owner_pids(const NldevData& data);

/// One Connection per cm_id, in the order the kernel reported them: its QP found by device and
/// QP number (state and type from the QP dump; type from the cm_id when the QP
/// vanished meanwhile), its owner from owners (a pid missing there keeps just the
/// pid), transport from its device.
Snapshot join(const NldevData& data, const OwnerMap& owners, std::string source);

} // namespace rdmastat
