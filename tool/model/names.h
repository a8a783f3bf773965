// SPDX-License-Identifier: MIT
#pragma once

/// Kernel numbering → the names the kernel and iproute2 use. Unknown numbers map to
/// their decimal text, so a newer kernel never breaks the listing.

#include "model/model.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace rdmastat {

/// enum rdma_cm_state (drivers/infiniband/core/cma_priv.h): "IDLE" ... "DESTROYING".
std::string cm_state_name(std::uint8_t state);
/// Every name cm_state_name knows, indexed by enum rdma_cm_state.
std::span<const char* const> cm_state_names();
/// enum ib_qp_state: "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR".
std::string qp_state_name(std::uint8_t state);
/// enum ib_qp_type: "SMI", "GSI", "RC", "UC", "UD", ...
std::string qp_type_name(std::uint8_t type);
/// enum rdma_ucm_port_space: "tcp", "udp", "ib", "ipoib".
std::string port_space_name(std::uint32_t ps);
/// enum ib_port_state: "NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER".
std::string port_state_name(std::uint8_t state);
/// enum ib_port_phys_state: "SLEEP", "POLLING", "DISABLED", ... "LINK_UP".
std::string port_phys_state_name(std::uint8_t state);
/// enum rdma_node_type: "ca", "switch", "router", "rnic", "usnic", "usnic_udp", "unspecified".
std::string node_type_name(std::uint8_t type);

/// QpUnjoined as JSON and text name it: "gone", "other_owner".
std::string_view qp_unjoined_name(QpUnjoined reason);
/// Inverse of qp_unjoined_name.
std::optional<QpUnjoined> qp_unjoined_from_name(std::string_view name);
/// enum rdmastat_qp_unjoined (the rdmastat module's UAPI) → QpUnjoined; nullopt
/// for NONE and values this build does not know.
std::optional<QpUnjoined> qp_unjoined_from_module(std::uint8_t reason);

/// enum rdmastat_transport (the rdmastat module's UAPI) → Transport.
Transport transport_from_module(std::uint8_t transport);
/// NLDEV's protocol string ("ib", "iw", "roce", "usnic") → Transport.
Transport transport_from_protocol(std::string_view protocol);
/// "infiniband", "roce", "iwarp", "usnic", "unknown": the JSON and filter names.
std::string_view transport_name(Transport t);
/// Inverse of transport_name; also accepts "ib", "iw" and any case.
std::optional<Transport> transport_from_name(std::string_view name);

} // namespace rdmastat
