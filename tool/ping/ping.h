// SPDX-License-Identifier: MIT
#pragma once

/// `rdmastat ping`: an rping-compatible traffic generator over librdmacm and
/// libibverbs, with RDMA WRITE latency and bandwidth modes between two rdmastat
/// ends. The protocol is in wire.h; this is the driver the CLI calls.

#include "ping/cancel.h"
#include "ping/stats.h"
#include "ping/wire.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rdmastat::ping {

inline constexpr std::uint16_t default_port = 7174;
inline constexpr std::uint32_t default_size = 64;
/// A server's buffer (-S) when not given: the largest ping rping can send.
inline constexpr std::uint32_t default_server_size = rping_max_size;
inline constexpr std::uint64_t default_lat_count = 1000; ///< as ib_write_lat
inline constexpr std::uint64_t default_bw_count = 5000;  ///< as ib_write_bw
inline constexpr std::uint32_t default_depth =
    RDMASTAT_KPING_DEPTH_DEFAULT; ///< ib_write_bw's tx depth

struct PingOptions {
    bool server = false;                 ///< -s (else client, -c)
    std::string address;                 ///< -a; a server binds 0.0.0.0 when empty
    std::string source;                  ///< -I, client only
    std::uint16_t port = default_port;   ///< -p
    std::optional<std::uint32_t> size;   ///< -S; mode-dependent default
    std::optional<std::uint64_t> count;  ///< -C; 0 means no limit
    std::optional<double> duration;      ///< --duration SECONDS, client only
    Mode mode = Mode::rping;             ///< --lat, --bw (client; a server follows its clients)
    std::uint32_t depth = default_depth; ///< --depth, outstanding writes in bw mode
    bool verbose = false, validate = false, persistent = false;
    bool self_qp = false;  ///< -q: create the QP with verbs and move it ourselves, as rping -q
    bool debug = false;    ///< -d: say each connection step, as rping -d
    int timeout_ms = 5000; ///< --timeout: each rdma_cm step, each wait of the client, a
                           ///< server's wait for its client to leave after -C (await_departure)
};

/// -S after defaults: the client's per mode, the server's buffer limit.
std::uint32_t effective_size(const PingOptions& o);
/// -C after defaults (0: until --duration, a signal, or forever in rping mode).
std::uint64_t effective_count(const PingOptions& o);

/// The option combinations that cannot run, as a message ("--lat needs -c", ...).
Status check_options(const PingOptions& o);
/// Options rping accepts on a side that has no use for them (-I on a server,
/// -P on a client): one note each, for the caller to show.
std::vector<std::string> ignored_options(const PingOptions& o);

/// What the runs report as they go. Called from the thread running the
/// connection (a persistent server runs several): the receiver serializes.
struct Hooks {
    std::function<void(const PingResult&)> progress; ///< client, about once a second
    std::function<void(const std::string&)> data;    ///< -v: each ping's text
    std::function<void(const std::string&)> note;    ///< server: listening, accepted
    std::function<void(const PingResult&)> finished; ///< every connection's end
};

/// Connects to o.address and runs o.mode; the result says how it ended.
PingResult run_client(const PingOptions& o, const Cancel& cancel, const Hooks& hooks);

/// Listens and serves: one client, or with o.persistent any number at once
/// until cancelled. Each connection's end goes to hooks.finished; returns how
/// many ended in an error, or a Failure when listening itself fails.
Result<std::uint64_t> run_server(const PingOptions& o, const Cancel& cancel, const Hooks& hooks);

} // namespace rdmastat::ping
