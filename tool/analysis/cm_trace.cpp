// SPDX-License-Identifier: MIT
#include "analysis/cm_trace.h"

#include "model/names.h"

#include <cstring>

namespace rdmastat {
namespace {

std::string errno_name(std::int32_t code) {
    const char* name = strerrorname_np(code);
    return name ? name : "errno " + std::to_string(code);
}

EventKind kind_of(TraceKind k) {
    switch (k) {
    case TraceKind::cm_event:
        return EventKind::cm_event;
    case TraceKind::qp_created:
        return EventKind::qp_created;
    case TraceKind::reject_sent:
        return EventKind::reject_sent;
    case TraceKind::destroyed:
        return EventKind::closed;
    case TraceKind::connect_failed:
        return EventKind::connect_failed;
    case TraceKind::disconnect_sent:
        return EventKind::disconnect_sent;
    case TraceKind::rtu_sent:
        return EventKind::rtu_sent;
    case TraceKind::no_listener:
        return EventKind::no_listener;
    case TraceKind::connect_started: // no line of its own
    case TraceKind::qp_made:         // QpTracker's
    case TraceKind::qp_modified:
    case TraceKind::qp_destroyed:
    case TraceKind::qp_async:
        break;
    }
    return EventKind::cm_event;
}

// The ending an event implies, if any.
std::optional<Ending> ending_of(const TraceEvent& e) {
    if (e.kind == TraceKind::reject_sent) return Ending::reject_sent;
    if (e.kind == TraceKind::connect_failed) return Ending::error;
    if (e.kind == TraceKind::disconnect_sent) return Ending::disconnected;
    if (e.kind != TraceKind::cm_event || !e.event) return std::nullopt;
    switch (*e.event) {
    case CmEventType::rejected:
        return Ending::rejected;
    case CmEventType::unreachable:
        return Ending::unreachable;
    case CmEventType::addr_error:
    case CmEventType::route_error:
    case CmEventType::connect_error:
    case CmEventType::addrinfo_error:
        return Ending::error;
    case CmEventType::disconnected:
        return Ending::disconnected;
    case CmEventType::device_removal:
        return Ending::device_removed;
    default:
        return std::nullopt;
    }
}

// Whether e reports a failure: an ending other than a disconnect, or a
// request nobody listened for.
bool failure_of(const TraceEvent& e) {
    if (e.kind == TraceKind::no_listener) return true;
    auto ending = ending_of(e);
    return ending && *ending != Ending::disconnected;
}

} // namespace

std::optional<std::string> cm_status_reason(const TraceEvent& e, Transport transport) {
    if (e.status == 0) return std::nullopt;
    if (e.status < 0) return errno_name(-e.status);
    if (e.kind == TraceKind::cm_event && e.event == CmEventType::rejected &&
        (transport == Transport::infiniband || transport == Transport::roce))
        return ib_cm_reject_reason_name(e.status);
    return std::nullopt;
}

std::chrono::system_clock::time_point trace_wall_time(std::uint64_t ns,
                                                      std::chrono::system_clock::duration offset) {
    return std::chrono::system_clock::time_point(
        std::chrono::duration_cast<std::chrono::system_clock::duration>(
            std::chrono::nanoseconds(ns)) +
        offset);
}

Transport CmTracker::transport_of(const std::string& device, Transport fallback) const {
    auto t = transports_.find(device);
    return t == transports_.end() || device.empty() ? fallback : t->second;
}

void CmTracker::seed(const Snapshot& snapshot) {
    for (const Device& d : snapshot.devices)
        transports_[d.name] = d.transport;
    for (const Connection& c : snapshot.connections)
        if (c.cm_id) lives_[{c.device, *c.cm_id}].owner = c.owner;
}

bool CmTracker::new_device(const std::string& device) const {
    return !device.empty() && !transports_.count(device) && !asked_.count(device);
}

void CmTracker::learn(const Snapshot& devices, const std::string& asked) {
    for (const Device& d : devices.devices)
        transports_[d.name] = d.transport;
    asked_.insert(asked);
}

std::optional<ConnectionEvent> CmTracker::add(const TraceEvent& e,
                                              std::chrono::system_clock::duration offset) {
    // An id the kernel never numbered is invisible to NLDEV, and its destroy
    // says nothing (librdmacm makes and drops an AF_IB id in every process),
    // nor do a wildcard listener's events (each CONNECT_REQUEST comes to it
    // again after the numbered per-device listener it made): only its
    // failures are worth a line.
    if (!e.tracked && !failure_of(e)) return std::nullopt;
    // A connect's start is no line of its own; it needs an id to time.
    if (e.kind == TraceKind::connect_started && e.connection.device.empty()) return std::nullopt;
    ConnectionEvent out;
    out.kind = kind_of(e.kind);
    out.connection = e.connection;
    out.cm_event = e.event;
    out.other_family = e.other_family;
    out.time = trace_wall_time(e.time_ns, offset);
    Connection& c = out.connection;
    c.transport = transport_of(c.device, c.transport);
    if (e.status) out.status = e.status;
    out.reason = cm_status_reason(e, c.transport);

    // History needs an identity: ids not yet numbered have none.
    if (!e.tracked || c.device.empty()) {
        if (fill_owner_ && c.owner.pid) fill_owner_(c.owner);
        return out;
    }
    auto it = lives_.try_emplace(Key{c.device, c.cm_id.value_or(0)}).first;
    Life& life = it->second;
    // An id in the seed may still be born after it (made between attach and
    // dump): its first record says.
    if (!life.heard && e.kind == TraceKind::cm_event && e.event &&
        (*e.event == CmEventType::addr_resolved || *e.event == CmEventType::addr_error ||
         *e.event == CmEventType::connect_request))
        life.born_ns = e.time_ns;
    life.heard = true;
    bool have_owner = c.owner.pid || c.owner.kernel;
    if (have_owner) {
        // The same process keeps what was learnt of it; a new one is filled
        // in once.
        if (c.owner.pid && c.owner.pid == life.owner.pid && life.owner.cgroup) {
            c.owner.cgroup = life.owner.cgroup;
            c.owner.container = life.owner.container;
            c.owner.pod = life.owner.pod;
        } else if (fill_owner_ && c.owner.pid) {
            fill_owner_(c.owner);
        }
        life.owner = c.owner;
    } else {
        c.owner = life.owner;
    }
    if (e.kind == TraceKind::connect_started) {
        life.connect_start_ns = e.time_ns;
        return std::nullopt;
    }
    if (e.kind == TraceKind::cm_event &&
        (e.event == CmEventType::addr_resolved || e.event == CmEventType::connect_request) &&
        !life.handshake_start_ns)
        life.handshake_start_ns = e.time_ns;
    // The active end of an id whose QP is the process's (every user id on IB
    // and RoCE) hears CONNECT_RESPONSE from the kernel; librdmacm then has
    // the RTU sent and makes ESTABLISHED itself. The RTU is the kernel's last
    // word, and the end of the handshake.
    bool up = e.kind == TraceKind::rtu_sent ||
              (e.kind == TraceKind::cm_event && e.event == CmEventType::established);
    if (up && life.handshake_start_ns && !life.handshake && e.time_ns >= *life.handshake_start_ns) {
        out.handshake = std::chrono::nanoseconds(e.time_ns - *life.handshake_start_ns);
        life.handshake = out.handshake;
    }
    if (up && life.connect_start_ns && !life.connect && e.time_ns >= *life.connect_start_ns) {
        out.connect = std::chrono::nanoseconds(e.time_ns - *life.connect_start_ns);
        life.connect = out.connect;
    }
    // A failure is the ending that sticks: the disconnect that may follow a
    // reject or an error says less.
    if (auto ending = ending_of(e)) {
        bool failed_before = life.ending && *life.ending != Ending::disconnected;
        if (!failed_before || *ending != Ending::disconnected) {
            life.ending = ending;
            life.reason = out.reason;
        }
    }
    if (e.kind == TraceKind::destroyed) {
        out.ending = life.ending.value_or(Ending::closed);
        out.handshake = life.handshake;
        out.connect = life.connect;
        if (!out.reason) out.reason = life.reason;
        // Not seen born (a listener, which has no events; an id older than
        // the run): its lifetime is unknown, not the time since first seen.
        if (life.born_ns && e.time_ns >= *life.born_ns)
            out.lifetime = std::chrono::nanoseconds(e.time_ns - *life.born_ns);
        lives_.erase(it);
    }
    return out;
}

} // namespace rdmastat
