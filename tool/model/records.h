// SPDX-License-Identifier: MIT
#pragma once

/// What a source reports before analysis joins it: one record per kernel object,
/// numbers as the kernel sent them. analysis/join turns these into Connections.

#include "model/address.h"
#include "model/model.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rdmastat {

/// Who the kernel says owns a resource: a pid (in our pid namespace) or a kernel module.
struct RawOwner {
    std::optional<std::uint32_t> pid;
    std::optional<std::string> kernel;
};

struct CmIdRecord {
    std::uint32_t device_index = 0;
    std::string device_name;
    std::optional<std::uint32_t> port;
    std::uint32_t cm_idn = 0;
    std::uint8_t state = 0; ///< enum rdma_cm_state
    std::optional<std::uint32_t> port_space;
    std::optional<std::uint32_t> qp_number;
    std::optional<std::uint8_t> qp_type;
    std::optional<Endpoint> src;
    std::optional<Endpoint> dst;
    RawOwner owner;
};

struct QpRecord {
    std::uint32_t device_index = 0;
    std::string device_name;
    std::optional<std::uint32_t> port;
    std::uint32_t number = 0;
    std::optional<std::uint32_t> remote_number;
    std::optional<std::uint8_t> type;  ///< enum ib_qp_type
    std::optional<std::uint8_t> state; ///< enum ib_qp_state
    std::optional<std::uint32_t> pd;
    RawOwner owner;
};

/// One cm_id as the rdmastat module reports it (include/uapi/linux/rdmastat.h):
/// the id, its QP and its owner in one message. Absent attributes stay empty.
struct ModuleRecord {
    struct QpPart {
        std::uint32_t number = 0;
        std::optional<std::uint8_t> type;  ///< enum ib_qp_type
        std::optional<std::uint8_t> state; ///< enum ib_qp_state; see the UAPI for when it is sent
        std::optional<std::uint8_t> unjoined; ///< enum rdmastat_qp_unjoined: not the id's QP
        /// The peer's QP number: not the module's, NLDEV's (fill_module_qp_states).
        std::optional<std::uint32_t> remote_number;
    };
    /// Only what the kernel chose to send: other users' owners need CAP_NET_ADMIN.
    struct OwnerPart {
        std::optional<std::uint32_t> pid, tid, uid;
        std::optional<std::string> comm;
        std::optional<std::string> kernel; ///< RDMASTAT_OWNER_A_KERN_NAME
    };

    std::uint32_t device_index = 0;
    std::string device_name;
    std::optional<std::string> driver;     ///< kernel module of the device: "siw", "rdma_rxe"
    std::optional<std::uint8_t> transport; ///< enum rdmastat_transport
    std::optional<std::uint32_t> port;
    std::uint32_t cm_idn = 0;
    std::uint8_t state = 0; ///< enum rdma_cm_state
    std::optional<std::uint32_t> port_space;
    bool internal = false; ///< a kernel-made listener child of a wildcard listener
    std::optional<Endpoint> local, peer;
    std::optional<Endpoint> mapped_local, mapped_peer; ///< iWARP addresses on the wire
    bool mapped = false;                               ///< RDMASTAT_A_MAPPED was present
    bool mapping_withheld = false; ///< RDMASTAT_A_MAPPING_WITHHELD: not safely readable
    std::optional<QpPart> qp;
    OwnerPart owner;
    std::optional<std::uint32_t> netns; ///< inode number of the id's network namespace
};

/// One connected QP as the rdmastat module's QP dump reports it
/// (RDMASTAT_CMD_QP_GET): what its driver says, with its owner.
struct ModuleQpRecord {
    std::uint32_t device_index = 0;
    std::string device_name;
    std::optional<std::uint32_t> port;
    std::uint32_t number = 0;
    std::optional<std::uint8_t> type;  ///< enum ib_qp_type
    std::optional<std::uint8_t> state; ///< enum ib_qp_state
    std::optional<std::uint32_t> remote_number;
    std::optional<QpPath> path; ///< with mtu in bytes, from enum ib_mtu
    ModuleRecord::OwnerPart owner;
    std::optional<std::uint32_t> netns;
};

/// Everything one NLDEV collection produced.
struct NldevData {
    std::vector<Device> devices;
    std::vector<CmIdRecord> cm_ids;
    std::vector<QpRecord> qps;
};

/// pid → what /proc says about it; looked up once per pid.
using OwnerMap = std::map<std::uint32_t, Owner>;

/// pid → inode of its network namespace (/proc/PID/ns/net).
using NetnsMap = std::map<std::uint32_t, std::uint32_t>;

/// uid → user name from the user database (nullopt: no such user); once per uid.
using UserMap = std::map<std::uint32_t, std::optional<std::string>>;

} // namespace rdmastat
