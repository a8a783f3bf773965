// SPDX-License-Identifier: MIT
#pragma once

/// What changed between two snapshots: connection events (-E, -w marks) and
/// counter rates. The kernel sends no notification for cm_ids, so the
/// monitoring commands poll and compare snapshots with these.

#include "model/cm_event.h"
#include "model/model.h"
#include "model/names.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdmastat {

/// appeared, changed and closed come from polling (closed also from the
/// cm_id_destroy tracepoint, and changed and closed of a verbs QP from its
/// programs); the others only from the tracepoints (qp_created also from a
/// verbs QP's).
enum class EventKind {
    appeared,
    changed,
    closed,
    cm_event,
    qp_created,
    reject_sent,
    connect_failed,
    disconnect_sent,
    rtu_sent,
    no_listener,
    qp_event, ///< a driver's asynchronous event on a verbs QP (reason: its name)
    /// RDMA netlink's monitor: a device or a port's netdev changed (no
    /// connection: device_event says what)
    device,
};

RDMASTAT_NAMES(EventKind, "event", false, "appeared", "changed", "closed", "cm_event", "qp_created",
               "reject_sent", "connect_failed", "disconnect_sent", "rtu_sent", "no_listener",
               "qp_event", "device");

struct ConnectionEvent {
    EventKind kind = EventKind::appeared;
    Connection connection;                           ///< as it is now (closed: as last seen)
    std::optional<CmState> old_state = std::nullopt; ///< changed: a cm id's state before
    std::optional<QpState> old_qp_state = std::nullopt; ///< changed: a verbs QP's state before

    // From the tracepoints only (analysis/cm_trace.h).
    /// When the kernel reported it (else: when the poll saw it).
    std::optional<std::chrono::system_clock::time_point> time = std::nullopt;
    std::optional<CmEventType> cm_event = std::nullopt; ///< cm_event: which
    std::optional<std::int32_t> status = std::nullopt;  ///< a nonzero status (cm_event, qp_created)
    /// status decoded: an IB CM reject reason ("CONSUMER_DEFINED") or an errno
    /// name ("ECONNREFUSED").
    std::optional<std::string> reason = std::nullopt;
    /// ESTABLISHED, or the rtu_sent before it of an active end on IB or RoCE
    /// (whose ESTABLISHED librdmacm makes in the process), and closed: since
    /// address resolution completed (active side) or the CONNECT_REQUEST
    /// (passive side).
    std::optional<std::chrono::nanoseconds> handshake = std::nullopt;
    /// Where handshake is, on the active side: since rdma_connect() was
    /// called, the CM exchange alone (what rdma-core's cmtime calls its
    /// connect step).
    std::optional<std::chrono::nanoseconds> connect = std::nullopt;
    /// closed: since the id's birth (its address resolved, or its connect
    /// request came); unknown for a listener and an id born before the run.
    std::optional<std::chrono::nanoseconds> lifetime = std::nullopt;
    std::optional<std::uint16_t> other_family = std::nullopt; ///< an address family with no decoder
    /// closed: how the id's life ended; reason holds the status behind it.
    std::optional<Ending> ending = std::nullopt;
    /// kind device: the monitor's message (connection then holds only the
    /// device's name and the port)
    std::optional<DeviceEvent> device_event = std::nullopt;
};

/// Two snapshots' connections compared by identity (device and cm id number;
/// the kernel allocates cm id numbers cyclically, so a new id gets a new number).
/// An id only in after appeared, only in before closed, in both with another CM
/// state changed. Events in the order: closed (before's order), then changed and
/// appeared (after's order).
std::vector<ConnectionEvent> diff_connections(const std::vector<Connection>& before,
                                              const std::vector<Connection>& after);

/// `rdmastat life` by polling: a connection lives from the round that first saw
/// it to the round that no longer does, to the poll's resolution.
class PolledLives {
  public:
    /// The closed events among one round's events (diff_connections'), each
    /// with ending closed and, when its appearance was seen, its lifetime (an
    /// id there before the first round has none); now is the round's time.
    std::vector<ConnectionEvent> ended(std::vector<ConnectionEvent> events,
                                       std::chrono::steady_clock::time_point now);

  private:
    std::map<ConnectionKey, std::chrono::steady_clock::time_point> first_seen_;
};

/// A row of -w's listing: new since the last round, gone since it, or neither.
enum class RowMark : std::uint8_t { none, appeared, closed };

struct MarkedConnection {
    const Connection* connection = nullptr;
    RowMark mark = RowMark::none;
};

/// -w's rows for one round: each of now, in order, marked appeared when events
/// has it appear; then each connection events has closed (as last seen: the
/// rows point into events), marked closed.
std::vector<MarkedConnection> mark_rows(const std::vector<const Connection*>& now,
                                        const std::vector<ConnectionEvent>& events);

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
