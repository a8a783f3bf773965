// SPDX-License-Identifier: MIT
#pragma once

/// rdmastat_kping.ko's runs as the tool sees them: what START takes and what a
/// dump reports (include/uapi/linux/rdmastat_kping.h is the reference).

#include "model/address.h"
#include "model/names.h"

#include <cstdint>
#include <linux/rdmastat_kping.h>
#include <optional>
#include <string>

namespace rdmastat {

/// The UAPI's enums, numbered as it numbers them; a value a newer module adds
/// is kept, and named by its number.
enum class KpingMode : std::uint8_t {
    ping = RDMASTAT_KPING_MODE_PING,
    write_lat = RDMASTAT_KPING_MODE_WRITE_LAT,
    write_bw = RDMASTAT_KPING_MODE_WRITE_BW,
    read_lat = RDMASTAT_KPING_MODE_READ_LAT,
};
enum class KpingMem : std::uint8_t {
    dma = RDMASTAT_KPING_MEM_DMA,
    frwr_local = RDMASTAT_KPING_MEM_FRWR_LOCAL,
    frwr_remote = RDMASTAT_KPING_MEM_FRWR_REMOTE,
};
enum class KpingState : std::uint8_t {
    connecting = RDMASTAT_KPING_STATE_CONNECTING,
    running = RDMASTAT_KPING_STATE_RUNNING,
    done = RDMASTAT_KPING_STATE_DONE,
    stopped = RDMASTAT_KPING_STATE_STOPPED,
    failed = RDMASTAT_KPING_STATE_FAILED,
};

/// As the CLI, text and JSON spell them.
RDMASTAT_NAMES(KpingMode, "mode", true, "ping", "write-lat", "write-bw", "read-lat");
RDMASTAT_NAMES(KpingMem, "memory mode", true, "dma", "frwr-local", "frwr-remote");
RDMASTAT_NAMES(KpingState, "state", true, "connecting", "running", "done", "stopped", "failed");

/// A START request.
struct KpingStart {
    bool server = false;
    IpAddress address;
    std::uint16_t port = 7174;
    std::optional<std::uint32_t> count, size, depth;
    std::optional<std::uint32_t> timeout_ms; ///< each step's deadline; unset: the kernel's default
    bool validate = false;
    KpingMode mode = KpingMode::ping;
    KpingMem mem = KpingMem::dma;
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
    KpingMode mode = KpingMode::ping;
    KpingMem mem = KpingMem::dma;
    KpingState state = KpingState::connecting;
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

} // namespace rdmastat
