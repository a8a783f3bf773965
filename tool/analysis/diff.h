// SPDX-License-Identifier: MIT
#pragma once

/// What changed between two snapshots: connection events (-E, -w marks) and
/// counter rates. The kernel sends no notification for cm_ids, so the
/// monitoring commands poll and compare snapshots with these.

#include "model/model.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdmastat {

enum class EventKind { appeared, changed, closed };

/// "appeared", "changed", "closed".
std::string_view event_name(EventKind kind);

struct ConnectionEvent {
    EventKind kind = EventKind::appeared;
    Connection connection;            ///< as it is now (closed: as last seen)
    std::optional<CmState> old_state; ///< changed: the state before
};

/// Two snapshots' connections compared by identity (device and cm id number;
/// the kernel allocates cm id numbers cyclically, so a new id gets a new number).
/// An id only in after appeared, only in before closed, in both with another CM
/// state changed. Events in the order: closed (before's order), then changed and
/// appeared (after's order).
std::vector<ConnectionEvent> diff_connections(const std::vector<Connection>& before,
                                              const std::vector<Connection>& after);

/// One counter between two readings.
struct CounterRate {
    std::string name;
    std::uint64_t value = 0;          ///< the later reading
    std::optional<double> per_second; ///< none: no earlier reading, or it went down (reset)
};

/// Rates of after's counters against before's over seconds (> 0, else no rates).
std::vector<CounterRate> counter_rates(const std::vector<Counter>& before,
                                       const std::vector<Counter>& after, double seconds);

/// The entry of list for device and port, or nullptr.
const PortCounters* find_port_counters(const std::vector<PortCounters>& list,
                                       const std::string& device, std::uint32_t port);

} // namespace rdmastat
