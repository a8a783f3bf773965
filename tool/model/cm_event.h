// SPDX-License-Identifier: MIT
#pragma once

/// What the kernel's rdma_cma tracepoints report (trace/ decodes them; the
/// event commands render them): one TraceEvent per tracepoint hit.

#include "model/model.h"

#include <cstdint>
#include <optional>
#include <string>

namespace rdmastat {

/// enum rdma_cm_event_type (include/rdma/rdma_cm.h), numbered as the kernel
/// numbers it; a number a newer kernel adds is kept and rendered as decimal.
enum class CmEventType : std::uint32_t {
    addr_resolved,
    addr_error,
    route_resolved,
    route_error,
    connect_request,
    connect_response,
    connect_error,
    unreachable,
    rejected,
    established,
    disconnected,
    device_removal,
    multicast_join,
    multicast_error,
    addr_change,
    timewait_exit,
    addrinfo_resolved, ///< 7.2 and later
    addrinfo_error,    ///< 7.2 and later
    user,              ///< 7.2 and later
    internal,          ///< 7.2 and later
};

/// Which tracepoint reported: an event handed to the id's consumer, or a step
/// of the id's life the consumer is not told about.
enum class TraceKind : std::uint8_t {
    cm_event,    ///< rdma_cma:cm_event_handler
    qp_created,  ///< rdma_cma:cm_qp_create
    reject_sent, ///< rdma_cma:cm_send_rej: this side rejected a request
    destroyed,   ///< rdma_cma:cm_id_destroy
    /// rdma_connect() failed before any event (status: -errno); siw's connect
    /// to a closed port fails so.
    connect_failed,
    disconnect_sent, ///< rdma_cma:cm_disconnect: this side disconnected
    /// rdma_cma:cm_send_rtu: this (active) end of an IB or RoCE connection
    /// sent its RTU: established from its side.
    rtu_sent,
    /// ib_cma:icm_no_listener_err: a connect request for a port nobody
    /// listens on (IB, RoCE), rejected by the kernel; no id, so untracked.
    no_listener,
    /// rdma_connect() was called: the CM exchange starts (no line of its own;
    /// the start of ConnectionEvent::connect).
    connect_started,
    // A QP's life (trace/bpf/qp.bpf.c), any QP's, rdma_cm's or raw verbs'.
    qp_made,      ///< ib_create_qp_user() or ib_create_qp_kernel() made a QP
    qp_modified,  ///< a state change asked of a QP (qp_change says which)
    qp_destroyed, ///< ib_destroy_qp_user(): the QP is being destroyed
    qp_async,     ///< the driver raised an asynchronous event on a process's QP
};

/// What a QP record adds to its QP's number, type, port and owner.
struct QpChange {
    std::optional<QpState> state; ///< qp_modified: the state asked for
    /// qp_modified: the peer's QP number, when the change sets it (to RTR)
    std::optional<std::uint32_t> remote_number;
    /// qp_modified with a path that has a GRH (all RoCE): its destination
    /// GID, and its source GID when the change succeeded
    std::optional<IpAddress> dgid, sgid;
    /// qp_modified: the attributes were rdma_init_qp_attr()'s, asked just
    /// before by the same thread: the QP is an rdma_cm id's (cm_id: its
    /// number, when the kernel had numbered it)
    bool cm = false;
    std::optional<std::uint32_t> cm_id;
    /// qp_async: the event, enum ib_event_type (IB_EVENT_QP_FATAL is 1)
    std::optional<std::uint32_t> async_event;
};

/// How an id's life ended, from its last telling event (the life view's END).
enum class Ending : std::uint8_t {
    disconnected,   ///< DISCONNECTED: a connection that was up went down
    rejected,       ///< REJECTED: the peer (or its CM) refused the connect
    reject_sent,    ///< this side rejected the request
    unreachable,    ///< UNREACHABLE: no answer (timeout)
    error,          ///< ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR or a failed connect
    device_removed, ///< DEVICE_REMOVAL
    closed,         ///< destroyed with none of the above
};

/// One tracepoint hit, as the id looked when it fired.
struct TraceEvent {
    std::uint64_t time_ns = 0; ///< CLOCK_MONOTONIC
    TraceKind kind = TraceKind::cm_event;
    std::optional<CmEventType> event; ///< cm_event only
    /// cm_event: the event's status (an IB CM reject reason, or -errno);
    /// qp_created: the kernel's result (0 or -errno).
    std::int32_t status = 0;
    /// The id: device (empty before it binds), port, port space, cm id number,
    /// state, addresses, QP number (qp->number; 0: none), owner (pid, comm, uid,
    /// or the kernel owner's name). transport is the device's node type's
    /// (iWARP, usNIC, or InfiniBand for a CA: RoCE needs the port's link layer).
    Connection connection;
    /// Whether the kernel had numbered the id (restrack): else cm_id is 0 and
    /// means nothing (an id not yet bound to a device, or never: librdmacm's
    /// AF_IB probe ids).
    bool tracked = false;
    /// An address family other than AF_UNSPEC, AF_INET and AF_INET6 (AF_IB is
    /// 27), whose address is then absent from local or peer.
    std::optional<std::uint16_t> other_family;
    /// The qp_* kinds: connection is the QP (via verbs: device, port, qp's
    /// number and type, owner) and this is what the record adds.
    std::optional<QpChange> qp_change;
};

/// enum rdma_nl_notify_event_type (include/uapi/rdma/rdma_netlink.h), as the
/// kernel numbers it; a number a newer kernel adds is kept and rendered as
/// decimal.
enum class DeviceEventType : std::uint8_t {
    registered,
    unregistered,
    netdev_attached,
    netdev_detached,
    renamed,        ///< newer than 6.12
    netdev_renamed, ///< newer than 6.12
};

/// One message of RDMA netlink's monitor (collect/nldev_monitor.h): a device
/// or one of its ports' netdev changed. It names no connection. What it
/// carries depends on the event and the kernel: 7.2's NETDEV_RENAME names
/// only the netdev, and a netdev event for a netdev in another network
/// namespace only its type.
struct DeviceEvent {
    DeviceEventType type = DeviceEventType::registered;
    std::optional<std::uint32_t> device_index;
    std::optional<std::string> device; ///< the device's name (after a rename, its new one)
    /// The netdev events: the port, and the netdev (none on detach)
    std::optional<std::uint32_t> port;
    std::optional<std::uint32_t> netdev_index;
    std::optional<std::string> netdev;
};

/// Tracepoint records the kernel could not deliver.
struct TraceLost {
    std::uint64_t full = 0; ///< found the ring buffer full
    /// hits the kernel skipped because their program was already running on
    /// that CPU (its recursion misses: a preemptible tracepoint, re-entered)
    /// and its second program, where loaded, did not record
    std::uint64_t busy = 0;
    std::uint64_t total() const { return full + busy; }
};

} // namespace rdmastat
