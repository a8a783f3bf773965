// SPDX-License-Identifier: MIT
#pragma once

/// The traffic of one connected Link, per mode and side (internal to ping/).
/// prepare_* registers the buffers and posts the receives before the connect or
/// accept; run_* drives the protocol until the count, the deadline, the peer's
/// disconnect or a signal ends it, filling the result as it goes.

#include "ping/link.h"
#include "ping/ping.h"

#include <chrono>

namespace rdmastat::ping {

using Clock = std::chrono::steady_clock;

/// lat: the fewest and the most spins on the marker before an end yields its CPU.
inline constexpr long min_spin_budget = 64, max_spin_budget = 65536;

struct Session {
    Session(Link& l, const PingOptions& opts, const Hooks& h, PingResult& result)
        : link(l), o(opts), hooks(h), r(result) {}
    Link& link;
    const PingOptions& o;
    const Hooks& hooks;
    PingResult& r;
    std::uint32_t size = 0;  ///< the buffer this side registers
    std::uint64_t count = 0; ///< 0: no limit
    std::optional<Clock::time_point> deadline;
    Buffer* msg_in = nullptr;  ///< 16-byte receive buffer
    Buffer* msg_out = nullptr; ///< 16-byte send buffer
    Buffer* local = nullptr;   ///< rping: source (client) or the data (server)
    Buffer* sink = nullptr;    ///< rping client's sink; lat client's receive side
    Histogram latency;
    Clock::time_point start{}, last_progress{};
    /// lat: spins on the marker before the CPU is yielded (adapted per round).
    long spin_budget = max_spin_budget;
};

/// Whether the count or deadline is reached for the done-th operation.
bool session_over(const Session& s, std::uint64_t done);
/// Updates r.seconds (and r.latency) from the session and calls hooks.progress
/// when a second has passed since the last call (or always when force).
void session_progress(Session& s, bool force);

/// Queue depths of each mode's QP.
std::uint32_t send_depth(Mode m, bool server, std::uint32_t depth);
/// Inline data to ask of the QP: lat messages up to 256 bytes travel inline,
/// as ib_write_lat's do; bw and rping mode's never do (nor do ib_write_bw's
/// by default: at 64 B, inline measured slower on siw).
std::uint32_t inline_bytes(Mode m, std::uint32_t size);

/// The mode and side of s.r, prepared and run.
Status prepare_session(Session& s);
Status run_session(Session& s);
/// A server in rping mode that served its -C pings waits, up to the timeout,
/// for the client to leave first (rping_mode.cpp says why); called after
/// the run's figures are taken, before the server disconnects. Returns at
/// once in every other case.
void await_departure(Session& s);

// One per mode (rping_mode.cpp, perf_modes.cpp).
Status prepare_rping_client(Session& s);
Status run_rping_client(Session& s);
Status prepare_rping_server(Session& s);
Status run_rping_server(Session& s);
Status prepare_lat(Session& s);
Status run_lat_client(Session& s);
Status run_lat_server(Session& s);
Status prepare_bw(Session& s);
Status run_bw_client(Session& s);
Status run_bw_server(Session& s);

/// Registers the data buffers (local with local_access, a sink with sink_access
/// when given), msg_in and msg_out (16 bytes each), and posts the receive.
Status register_buffers(Session& s, int local_access, std::optional<int> sink_access = {});
/// Posts buffer b's advertisement from msg_out; await_completion reaps the
/// SEND's completion later.
Status send_advertisement(Session& s, const Buffer& b);
/// The next completion of opcode want, reaping SEND completions on the way;
/// any other opcode is a protocol error.
Result<ibv_wc> await_completion(Session& s, ibv_wc_opcode want, int timeout_ms);
/// Waits for the next RECV, checks it as an advertisement of at most capacity
/// bytes (wire.h), and posts the receive again.
Result<Advertisement> receive_advertisement(Session& s, std::uint32_t capacity, int timeout_ms);

} // namespace rdmastat::ping
