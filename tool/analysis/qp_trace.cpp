// SPDX-License-Identifier: MIT
#include "analysis/qp_trace.h"

#include "analysis/cm_trace.h"
#include "model/address.h"
#include "model/names.h"

namespace rdmastat {
namespace {

// The QPs the listing lists once they are past INIT.
bool followed_type(const Connection& c) {
    return c.qp && c.qp->type && listed_type(*c.qp->type);
}

// The asynchronous events that put a QP in error (the others, COMM_EST or
// QP_LAST_WQE_REACHED, are news, not failures).
bool fatal_event(std::uint32_t event) {
    switch (event) {
    case 1: // IB_EVENT_QP_FATAL
    case 2: // IB_EVENT_QP_REQ_ERR
    case 3: // IB_EVENT_QP_ACCESS_ERR
    case 7: // IB_EVENT_PATH_MIG_ERR
        return true;
    default:
        return false;
    }
}

ConnectionEvent line(EventKind kind, const Connection& c, std::uint64_t ns,
                     std::chrono::system_clock::duration offset) {
    ConnectionEvent out;
    out.kind = kind;
    out.connection = c;
    out.time = trace_wall_time(ns, offset);
    return out;
}

} // namespace

void QpTracker::seed(const Snapshot& snapshot, std::uint64_t seed_ns) {
    for (const Connection& c : snapshot.connections) {
        if (!c.qp) continue;
        Key key{c.device, c.qp->number};
        if (c.via == Via::cm) {
            claimed_.insert(key);
            continue;
        }
        Life& life = lives_[key];
        life.connection = c;
        life.shown = true;
        life.known_ns = seed_ns;
    }
}

void QpTracker::claim(const std::string& device, std::uint32_t qp) {
    auto it = lives_.find({device, qp});
    if (it == lives_.end() || it->second.shown) return;
    lives_.erase(it);
    claimed_.insert({device, qp});
}

std::vector<ConnectionEvent> QpTracker::add(const TraceEvent& e, Transport transport,
                                            std::chrono::system_clock::duration offset) {
    if (!e.qp_change || !e.connection.qp || e.connection.device.empty()) return {};
    const QpChange& q = *e.qp_change;
    const Key key{e.connection.device, e.connection.qp->number};
    std::vector<ConnectionEvent> out;

    // A life for a QP first heard of now, with its owner's container and pod.
    auto begin = [&](std::optional<std::uint64_t> born) -> Life& {
        Life& life = lives_[key] = Life{};
        life.connection = e.connection;
        life.connection.transport = transport;
        if (born) life.connection.qp->state = QpState::reset;
        life.born_ns = born;
        if (fill_owner_ && life.connection.owner.pid) fill_owner_(life.connection.owner);
        return life;
    };

    switch (e.kind) {
    case TraceKind::qp_made:
        // A number comes back once its QP is gone: the new QP is nobody's yet.
        claimed_.erase(key);
        lives_.erase(key);
        destroyed_.erase(key);
        // rdma_create_qp() makes a kernel id's QP in rdma_cm's name.
        if (e.connection.owner.kernel == "rdma_cm")
            claimed_.insert(key);
        else if (followed_type(e.connection))
            begin(e.time_ns);
        return out;
    case TraceKind::qp_modified: {
        if (claimed_.count(key) || destroyed_.count(key)) return out;
        auto it = lives_.find(key);
        // librdmacm and rdma_cm move an id's QP with rdma_init_qp_attr()'s
        // attributes from INIT on; a QP already shown as verbs (an
        // application's own, later named by an id) stays followed.
        if (q.cm && (it == lives_.end() || !it->second.shown)) {
            if (it != lives_.end()) lives_.erase(it);
            claimed_.insert(key);
            return out;
        }
        // A refused change changes nothing.
        if (e.status != 0 || !q.state || !followed_type(e.connection)) return out;
        // Queued before the seed that already shows its outcome.
        if (it != lives_.end() && e.time_ns < it->second.known_ns) return out;
        Life& life = it != lives_.end() ? it->second : begin(std::nullopt);
        Connection& c = life.connection;
        if (!life.shown) {
            // Made during the run: its creation first. One made before
            // (in RESET or INIT then) has no creation to tell.
            if (life.born_ns) out.push_back(line(EventKind::qp_created, c, *life.born_ns, offset));
            life.shown = true;
        }
        const std::optional<QpState> old = c.qp->state;
        c.qp->state = q.state;
        if (e.connection.port) c.port = e.connection.port;
        if (q.remote_number) c.qp->remote_number = q.remote_number;
        if (q.dgid || q.sgid) {
            QpPath& path = c.qp->path ? *c.qp->path : c.qp->path.emplace();
            if (q.dgid) {
                path.dgid = q.dgid;
                c.peer = Endpoint{unmapped(*q.dgid), 0};
            }
            if (q.sgid) {
                path.sgid = q.sgid;
                c.local = Endpoint{unmapped(*q.sgid), 0};
            }
        }
        // A QP moved back to RESET is ready for another peer.
        if (q.state == QpState::reset) {
            c.qp->remote_number.reset();
            c.qp->path.reset();
            c.peer.reset();
            life.failure.reset();
        }
        ConnectionEvent changed = line(EventKind::changed, c, e.time_ns, offset);
        if (old != q.state) changed.old_qp_state = old;
        out.push_back(std::move(changed));
        return out;
    }
    case TraceKind::qp_async: {
        if (claimed_.count(key) || !q.async_event) return out;
        auto it = lives_.find(key);
        // An event on a QP nobody moved yet, or a kind the listing leaves out.
        if (it == lives_.end() || !it->second.shown) return out;
        ConnectionEvent ev = line(EventKind::qp_event, it->second.connection, e.time_ns, offset);
        ev.reason = ib_event_name(*q.async_event);
        if (fatal_event(*q.async_event)) it->second.failure = ev.reason;
        out.push_back(std::move(ev));
        return out;
    }
    case TraceKind::qp_destroyed: {
        if (destroyed_.insert(key).second) {
            destroyed_order_.push_back(key);
            if (destroyed_order_.size() > destroyed_kept) {
                destroyed_.erase(destroyed_order_.front());
                destroyed_order_.pop_front();
            }
        }
        if (claimed_.erase(key)) return out;
        auto it = lives_.find(key);
        if (it == lives_.end()) return out;
        Life life = std::move(it->second);
        lives_.erase(it);
        if (!life.shown) return out; // never moved: no connection
        ConnectionEvent closed = line(EventKind::closed, life.connection, e.time_ns, offset);
        closed.ending = life.failure ? Ending::error : Ending::closed;
        closed.reason = life.failure;
        if (life.born_ns && e.time_ns >= *life.born_ns)
            closed.lifetime = std::chrono::nanoseconds(e.time_ns - *life.born_ns);
        out.push_back(std::move(closed));
        return out;
    }
    default:
        return out;
    }
}

} // namespace rdmastat
