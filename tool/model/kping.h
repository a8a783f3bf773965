// SPDX-License-Identifier: MIT
#pragma once

/// rdmastat_kping.ko's runs as the tool sees them: what START takes and what a
/// dump reports (include/uapi/linux/rdmastat_kping.h is the reference).

#include "model/address.h"

#include <cstdint>
#include <optional>
#include <string>

namespace rdmastat {

/// A START request. Numeric fields use the UAPI's enum values.
struct KpingStart {
    bool server = false;
    IpAddress address;
    std::uint16_t port = 7174;
    std::optional<std::uint32_t> count, size, depth;
    std::optional<std::uint32_t> timeout_ms; ///< each step's deadline; unset: the kernel's default
    bool validate = false;
    std::uint8_t mode = 0; ///< enum rdmastat_kping_mode
    std::uint8_t mem = 0;  ///< enum rdmastat_kping_mem
};

/// One run of a dump (or the reply to START, STOP or GET).
struct KpingRun {
    std::uint32_t id = 0;
    bool server = false;
    IpAddress address;
    std::uint16_t port = 0;
    std::uint32_t count = 0, size = 0, depth = 0;
    std::optional<std::uint32_t> timeout_ms; ///< absent from modules before the timeout
    bool validate = false;
    std::uint8_t mode = 0, mem = 0, state = 0;
    std::optional<std::uint32_t> error; ///< positive errno
    std::string error_msg;
    std::optional<Endpoint> peer;
    std::string device;
    std::uint64_t iters = 0;
    std::uint64_t send_ops = 0, send_bytes = 0, recv_ops = 0, recv_bytes = 0;
    std::uint64_t write_ops = 0, write_bytes = 0, read_ops = 0, read_bytes = 0;
    std::uint64_t reg_ops = 0, inv_ops = 0, remote_inv_ops = 0;
    std::optional<std::uint64_t> lat_min_ns, lat_max_ns, lat_sum_ns, elapsed_ns;
};

/// Names of the UAPI enums as the CLI, text and JSON spell them: "server" /
/// "client"; "ping", "write-lat", "write-bw", "read-lat"; "dma", "frwr-local",
/// "frwr-remote"; "connecting", "running", "done", "stopped", "failed".
/// Unknown values print as their number.
std::string kping_mode_name(std::uint8_t mode);
std::string kping_mem_name(std::uint8_t mem);
std::string kping_state_name(std::uint8_t state);
/// The value of a mode or memory-mode name; nullopt for an unknown one.
std::optional<std::uint8_t> kping_mode_from_name(const std::string& name);
std::optional<std::uint8_t> kping_mem_from_name(const std::string& name);

} // namespace rdmastat
