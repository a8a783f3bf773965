// SPDX-License-Identifier: MIT
#pragma once

/// The metrics of the tracepoints' events (`serve --events`): counters of CM
/// events, connect failures by reason, connections established and closed,
/// lost records, and a handshake-latency histogram, as rdmastat(8)'s METRICS
/// documents them.

#include "analysis/diff.h"
#include "analysis/metrics.h"
#include "model/cm_event.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace rdmastat {

/// Upper bounds (seconds) of the handshake histogram's buckets: 100 µs to 10 s.
inline constexpr std::array<double, 12> handshake_buckets = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 1, 10};

class EventMetrics {
  public:
    /// Counts e: a cm_event by device and name; a failed connect (REJECTED,
    /// UNREACHABLE, an address, route or connect error, a connect that failed
    /// before any event) by device and reason (the decoded status, else the
    /// event's name); a handshake by device and transport; a closed
    /// connection by device; a verbs QP's move by device and new state; a
    /// driver's asynchronous event on one by device and event; a device event
    /// by device and event.
    void add(const ConnectionEvent& e);
    /// The tracer's counts of records lost so far, by cause (they only grow).
    void set_lost(const TraceLost& lost) {
        lost_.full = std::max(lost_.full, lost.full);
        lost_.busy = std::max(lost_.busy, lost.busy);
    }
    /// The monitor's count of dropped messages so far (DeviceFeed::overruns()).
    void set_overruns(std::uint64_t n) { overruns_ = std::max(overruns_, n); }

    /// rdmastat_cm_events_total{device,event},
    /// rdmastat_connect_failures_total{device,reason},
    /// rdmastat_connections_established_total{device},
    /// rdmastat_connections_closed_total{device},
    /// rdmastat_qp_transitions_total{device,state},
    /// rdmastat_qp_async_events_total{device,event},
    /// rdmastat_device_events_total{device,event},
    /// rdmastat_handshake_seconds{device,transport} (histogram),
    /// rdmastat_events_lost_total{cause} (ring_buffer_full, program_busy,
    /// netlink_overrun).
    std::vector<MetricFamily> families() const;

  private:
    struct Histogram {
        std::array<std::uint64_t, handshake_buckets.size()> buckets{};
        std::uint64_t count = 0;
        double sum = 0;
    };
    using Pair = std::pair<std::string, std::string>;
    std::map<Pair, std::uint64_t> cm_events_, failures_, qp_transitions_, qp_events_,
        device_events_;
    std::map<std::string, std::uint64_t> established_, closed_;
    std::map<Pair, Histogram> handshakes_;
    TraceLost lost_;
    std::uint64_t overruns_ = 0;
};

} // namespace rdmastat
