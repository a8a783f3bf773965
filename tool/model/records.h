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

/// Everything one NLDEV collection produced.
struct NldevData {
    std::vector<Device> devices;
    std::vector<CmIdRecord> cm_ids;
    std::vector<QpRecord> qps;
};

/// pid → what /proc says about it; looked up once per pid.
using OwnerMap = std::map<std::uint32_t, Owner>;

} // namespace rdmastat
