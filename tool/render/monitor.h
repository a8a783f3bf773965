// SPDX-License-Identifier: MIT
#pragma once

/// Renderers of the monitoring commands: `-E` event lines and `-w` rounds.

#include "analysis/diff.h"
#include "render/text.h"

#include <chrono>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace rdmastat {

using WallTime = std::chrono::system_clock::time_point;

/// "2026-11-21T22:40:01.123Z" (UTC, milliseconds).
std::string timestamp_text(WallTime t);

/// Where -E's events come from: the kernel's tracepoints, polling NLDEV, or
/// RDMA netlink's monitor (device events, whatever their batch's source).
enum class EventSource { tracepoints, polling, netlink };
RDMASTAT_NAMES(EventSource, "event source", false, "tracepoints", "polling", "netlink");

/// d in milliseconds, as -E and life show handshakes and lifetimes.
inline double milliseconds(std::chrono::nanoseconds d) {
    return std::chrono::duration<double, std::milli>(d).count();
}

/// The version of -E's JSON lines (2 added "version", "source" and the
/// tracepoint fields; 3, device events, which have no connection).
inline constexpr int events_schema_version = 3;

/// One line per event: TIME EVENT DEVICE/PORT TRANSPORT LOCAL PEER STATE
/// (changed: OLD->NEW) cm_id=N PID/PROGRAM, then the tracepoint fields that are
/// set, as status=N reason=NAME handshake_ms=X connect_ms=X lifetime_ms=X family=N
/// ending=NAME. EVENT is
/// the CM event's name (ESTABLISHED) for a cm_event. TIME is the event's own
/// time when it has one, else t.
void render_events(std::ostream& out, const std::vector<ConnectionEvent>& events, WallTime t);
/// `rdmastat life`: the header line, and one line per ended connection (closed
/// events): TIME PID COMM DEVICE/PORT TRANSPORT LOCAL PEER HANDSHAKE_MS
/// LIFETIME_MS END, where END is the ending with its reason
/// ("rejected:CONSUMER_DEFINED") and an unknown figure is "-". JSON: the
/// closed events' JSON lines (render/views.h's EventLine).
void render_life_header(std::ostream& out);
void render_life(std::ostream& out, const std::vector<ConnectionEvent>& events, WallTime t);

/// One round of `rdmastat -w`.
struct WatchRound {
    WallTime time;
    double interval = 0; ///< seconds between rounds
    /// The listing as selected now, then the ids that closed since the last
    /// round, each with its mark (analysis/diff.h's mark_rows).
    std::vector<MarkedConnection> rows;
    /// Rates per port (counters empty: "n/a") and per QP-bound counter; seconds
    /// since the previous reading (0 in the first round: no rates yet).
    std::vector<PortCounters> ports;
    std::vector<QpCounters> qp_counters;
    const Snapshot* previous = nullptr; ///< the previous round's counters, when any
    double elapsed = 0;
};

/// A header line, the listing with a mark column ("+" appeared, "-" closed, blank
/// otherwise; closed ids shown once, as last seen), then port counters with their
/// rates and QP-bound counters ("n/a" where a port or device has none).
void render_watch_round(std::ostream& out, const WatchRound& round, const TextOptions& opts);

} // namespace rdmastat
