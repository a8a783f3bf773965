// SPDX-License-Identifier: MIT
#include "trace/decode.h"

#include "model/address.h"
#include "trace/bpf/record.h"

#include <cstring>
#include <string>
#include <sys/socket.h>

namespace rdmastat {
namespace {

// enum rdma_node_type: a CA is InfiniBand or RoCE, which only the port's link
// layer tells; the caller refines it from the device list.
Transport transport_of(std::uint8_t node_type) {
    switch (node_type) {
    case 1: // RDMA_NODE_IB_CA
        return Transport::infiniband;
    case 4: // RDMA_NODE_RNIC
        return Transport::iwarp;
    case 5: // RDMA_NODE_USNIC
    case 6: // RDMA_NODE_USNIC_UDP
        return Transport::usnic;
    default:
        return Transport::unknown;
    }
}

// A NUL-terminated name within its field (the BPF side terminates it; a field
// without a NUL is taken whole).
std::string name_in(const char* field, std::size_t size) {
    return std::string(field, strnlen(field, size));
}

// A GID's 128 bits as an IPv6 address; nullopt for the zero GID, which says
// nothing (a path without a GRH, as on InfiniBand within a subnet).
std::optional<IpAddress> gid_address(const std::uint8_t (&gid)[16]) {
    static constexpr std::uint8_t zero[16] = {};
    if (std::memcmp(gid, zero, sizeof(zero)) == 0) return std::nullopt;
    IpAddress a;
    a.family = AF_INET6;
    std::memcpy(a.bytes.data(), gid, 16);
    return a;
}

// A request nobody took: the wildcard address and the port here, when the
// service id is rdma_cm's (the port space, then the port), and the
// requester's address from its GID (an IPv4-mapped GID is IPv4).
void decode_no_listener(const rdmastat_trace_record& r, Connection& c) {
    const std::optional<IpAddress> requester = gid_address(r.gid);
    IpAddress peer{AF_INET6, {}};
    if (requester) {
        peer = unmapped(*requester);
        c.peer = Endpoint{peer, 0};
    }
    auto ps = static_cast<PortSpace>((r.service_id >> 16) & 0xffff);
    bool rdma_cm = (r.service_id >> 32) == 0 && (ps == PortSpace::ipoib || ps == PortSpace::tcp ||
                                                 ps == PortSpace::udp || ps == PortSpace::ib);
    if (!rdma_cm) return; // another IB CM service: no port to name
    c.port_space = ps;
    IpAddress any;
    any.family = peer.family;
    c.local = Endpoint{any, static_cast<std::uint16_t>(r.service_id & 0xffff)};
}

// A QP record: the QP is a verbs connection-to-be, with no cm_id fields.
void decode_qp(const rdmastat_trace_record& r, TraceEvent& e) {
    Connection& c = e.connection;
    c.via = Via::verbs;
    c.port_space.reset();
    c.state.reset();
    c.local.reset();
    c.peer.reset();
    c.cm_id.reset();
    e.tracked = false;
    Qp qp;
    qp.number = r.qp_num;
    qp.type = static_cast<QpType>(r.qp_type > 0xff ? 0xff : r.qp_type);
    c.qp = qp;
    QpChange& q = e.qp_change.emplace();
    if (r.kind == RDMASTAT_TRACE_QP_ASYNC_EVENT)
        q.async_event = static_cast<std::uint32_t>(r.event);
    if (r.kind != RDMASTAT_TRACE_QP_MODIFIED) return;
    if (r.qp_state <= static_cast<std::uint32_t>(QpState::err))
        q.state = static_cast<QpState>(r.qp_state);
    if (r.remote_qpn) q.remote_number = r.remote_qpn;
    if (r.flags & RDMASTAT_TRACE_F_AV) {
        q.dgid = gid_address(r.gid);
        q.sgid = gid_address(r.sgid);
    }
    q.cm = r.flags & RDMASTAT_TRACE_F_CM;
    if (q.cm && (r.flags & RDMASTAT_TRACE_F_TRACKED)) q.cm_id = r.cm_id;
}

} // namespace

Result<TraceEvent> decode_trace_record(const void* data, std::size_t size) {
    rdmastat_trace_record r;
    if (size != sizeof(r))
        return Failure{"trace record: " + std::to_string(size) + " bytes, expected " +
                       std::to_string(sizeof(r))};
    std::memcpy(&r, data, sizeof(r));
    TraceEvent e;
    e.time_ns = r.time_ns;
    switch (r.kind) {
    case RDMASTAT_TRACE_CM_EVENT:
        e.kind = TraceKind::cm_event;
        e.event = static_cast<CmEventType>(static_cast<std::uint32_t>(r.event));
        break;
    case RDMASTAT_TRACE_QP_CREATE:
        e.kind = TraceKind::qp_created;
        break;
    case RDMASTAT_TRACE_SEND_REJ:
        e.kind = TraceKind::reject_sent;
        break;
    case RDMASTAT_TRACE_DESTROY:
        e.kind = TraceKind::destroyed;
        break;
    case RDMASTAT_TRACE_CONNECT_FAIL:
        e.kind = TraceKind::connect_failed;
        break;
    case RDMASTAT_TRACE_SEND_RTU:
        e.kind = TraceKind::rtu_sent;
        break;
    case RDMASTAT_TRACE_NO_LISTENER:
        e.kind = TraceKind::no_listener;
        break;
    case RDMASTAT_TRACE_CONNECT_START:
        e.kind = TraceKind::connect_started;
        break;
    case RDMASTAT_TRACE_DISCONNECT:
        e.kind = TraceKind::disconnect_sent;
        break;
    case RDMASTAT_TRACE_QP_CREATED:
        e.kind = TraceKind::qp_made;
        break;
    case RDMASTAT_TRACE_QP_MODIFIED:
        e.kind = TraceKind::qp_modified;
        break;
    case RDMASTAT_TRACE_QP_DESTROYED:
        e.kind = TraceKind::qp_destroyed;
        break;
    case RDMASTAT_TRACE_QP_ASYNC_EVENT:
        e.kind = TraceKind::qp_async;
        break;
    default:
        return Failure{"trace record: unknown kind " + std::to_string(r.kind)};
    }
    e.status = r.status;
    Connection& c = e.connection;
    e.tracked = r.flags & RDMASTAT_TRACE_F_TRACKED;
    // An id the kernel never numbered is written as 0, as before it had a number.
    c.cm_id = e.tracked ? r.cm_id : 0;
    c.state = static_cast<CmState>(r.state > 0xff ? 0xff : r.state);
    c.port_space = static_cast<PortSpace>(r.port_space);
    if (r.flags & RDMASTAT_TRACE_F_DEVICE) {
        c.device = name_in(r.device, sizeof(r.device));
        c.transport = transport_of(r.node_type);
        if (r.port_num) c.port = r.port_num;
    }
    for (const auto* addr : {r.src, r.dst}) {
        std::uint16_t family;
        std::memcpy(&family, addr, sizeof(family));
        if (family != AF_UNSPEC && family != AF_INET && family != AF_INET6) e.other_family = family;
    }
    c.local = endpoint_from_sockaddr(r.src, sizeof(r.src));
    c.peer = endpoint_from_sockaddr(r.dst, sizeof(r.dst));
    if (e.kind == TraceKind::no_listener) decode_no_listener(r, c);
    if (r.qp_num) {
        c.qp.emplace();
        c.qp->number = r.qp_num;
    }
    if (r.kind >= RDMASTAT_TRACE_QP_CREATED) decode_qp(r, e);
    std::string name = name_in(r.name, sizeof(r.name));
    if (r.flags & RDMASTAT_TRACE_F_USER) {
        c.owner.pid = r.pid;
        c.owner.uid = r.uid;
        c.owner.comm = std::move(name);
    } else if (!name.empty()) {
        c.owner.kernel = std::move(name);
    }
    return e;
}

} // namespace rdmastat
