// SPDX-License-Identifier: MIT
#pragma once

/// Renderers of the monitoring commands: `-E` event lines and `-w` rounds.

#include "analysis/diff.h"
#include "render/text.h"

#include <chrono>
#include <ostream>
#include <string>
#include <vector>

namespace rdmastat {

using WallTime = std::chrono::system_clock::time_point;

/// "2026-11-21T22:40:01.123Z" (UTC, milliseconds).
std::string timestamp_text(WallTime t);

/// One line per event: TIME EVENT DEVICE/PORT TRANSPORT LOCAL PEER STATE
/// (changed: OLD->NEW) cm_id=N PID/PROGRAM.
void render_events(std::ostream& out, const std::vector<ConnectionEvent>& events, WallTime t);
/// One JSON object per line: {"time","event","connection"} plus "old_state" for
/// a change; "connection" as in the snapshot schema.
void write_events_json(std::ostream& out, const std::vector<ConnectionEvent>& events, WallTime t);

/// One round of `rdmastat -w`.
struct WatchRound {
    WallTime time;
    double interval = 0; ///< seconds between rounds
    /// The listing as selected now, and the ids that closed since the last round.
    std::vector<const Connection*> connections;
    std::vector<Connection> closed;
    /// Keys ("device/cm_id") of connections that appeared since the last round.
    std::vector<std::string> appeared;
    /// Rates per port (counters empty: "n/a") and per QP-bound counter; seconds
    /// since the previous reading (0 in the first round: no rates yet).
    std::vector<PortCounters> ports;
    std::vector<QpCounters> qp_counters;
    const Snapshot* previous = nullptr; ///< the previous round's counters, when any
    double elapsed = 0;
};

/// "device/cm_id", the identity diff_connections uses.
std::string connection_key(const Connection& c);

/// A header line, the listing with a mark column ("+" appeared, "-" closed, blank
/// otherwise; closed ids shown once, as last seen), then port counters with their
/// rates and QP-bound counters ("n/a" where a port or device has none).
void render_watch_round(std::ostream& out, const WatchRound& round, const TextOptions& opts);

} // namespace rdmastat
