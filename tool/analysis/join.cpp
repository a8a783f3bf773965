// SPDX-License-Identifier: MIT
#include "analysis/join.h"

#include "analysis/select.h"
#include "model/names.h"

#include <algorithm>
#include <map>
#include <utility>

namespace rdmastat {
namespace {

// The OwnerMap entry of an NLDEV pid; nullptr without one.
const Owner* known_owner(const RawOwner& raw, const OwnerMap& owners) {
    if (!raw.pid) return nullptr;
    auto it = owners.find(*raw.pid);
    return it == owners.end() ? nullptr : &it->second;
}

// Sets o (a fresh Owner) to raw's owner, given known_owner(raw): copied into
// place, as a row is built where it is kept.
void set_owner(Owner& o, const RawOwner& raw, const Owner* known) {
    if (raw.kernel)
        o.kernel = raw.kernel;
    else if (known)
        o = *known;
    else
        o.pid = raw.pid;
}

Owner owner_from(const ModuleRecord::OwnerPart& raw, const UserMap& users) {
    Owner o;
    if (raw.kernel) {
        o.kernel = raw.kernel;
        return o;
    }
    o.pid = raw.pid;
    o.tid = raw.tid;
    o.comm = raw.comm;
    o.uid = raw.uid;
    if (raw.uid) {
        auto it = users.find(*raw.uid);
        if (it != users.end()) o.user = it->second;
    }
    return o;
}

// The process of an NLDEV pid, which may name a thread of it.
std::optional<std::uint32_t> process_of(const RawOwner& raw, const Owner* known) {
    if (!raw.pid) return std::nullopt;
    if (known && known->pid) return known->pid;
    return raw.pid;
}

std::optional<std::uint32_t> process_of(const RawOwner& raw, const OwnerMap& owners) {
    return process_of(raw, known_owner(raw, owners));
}

bool same_owner(const RawOwner& id, const RawOwner& qp, const OwnerMap& owners) {
    if (id.kernel) return qp.kernel && kernel_qp_of(*id.kernel, *qp.kernel);
    if (qp.kernel) return false;
    auto a = process_of(id, owners), b = process_of(qp, owners);
    return a && b && *a == *b;
}

// Each device's transport, by device index.
std::map<std::uint32_t, Transport> transports_of(const std::vector<Device>& devices) {
    std::map<std::uint32_t, Transport> out;
    for (const auto& d : devices)
        out[d.index] = d.transport;
    return out;
}

// Whether a QP no cm id owns is a connection: a connected type (RC, UC, XRC)
// past INIT, when a peer's QP number can be set, or a UD QP that can receive.
bool verbs_connection(const QpRecord& q) {
    if (!q.type || !q.state) return false;
    const auto type = static_cast<QpType>(*q.type);
    const auto state = static_cast<QpState>(*q.state);
    if (state < QpState::rtr || state > QpState::err) return false;
    return listed_type(type);
}

Qp qp_from(const ModuleRecord::QpPart& raw) {
    Qp qp;
    qp.number = raw.number;
    if (raw.type) qp.type = static_cast<QpType>(*raw.type);
    if (raw.state) qp.state = static_cast<QpState>(*raw.state);
    qp.remote_number = raw.remote_number;
    return qp;
}

} // namespace

void add_verbs_connections(Snapshot& snap, const std::vector<QpRecord>& qps, const CmClaims& claims,
                           const OwnerMap& owners, const NetnsMap& netns,
                           std::optional<std::uint32_t> only_netns) {
    const auto transports = transports_of(snap.devices);
    // Room for every QP, once (join() made it already; join_module() did not).
    snap.connections.reserve(snap.connections.size() + qps.size());
    for (const QpRecord& q : qps) {
        if (!verbs_connection(q) || claims.qps.count({q.device_index, q.number})) continue;
        // rdma_create_qp() makes a kernel id's QP in rdma_cm's name: an id's, never verbs.
        if (q.owner.kernel == "rdma_cm") continue;
        const Owner* known = known_owner(q.owner, owners);
        if (auto p = process_of(q.owner, known); p && claims.unnumbered.count({q.device_index, *p}))
            continue;
        // Built where it is kept: a Connection is large, and 10k QPs are 10k rows.
        Connection& c = snap.connections.emplace_back();
        c.device = q.device_name;
        c.port = q.port;
        auto t = transports.find(q.device_index);
        c.transport = t == transports.end() ? Transport::unknown : t->second;
        c.via = Via::verbs;
        Qp qp;
        qp.number = q.number;
        qp.type = static_cast<QpType>(*q.type);
        qp.state = static_cast<QpState>(*q.state);
        // NLDEV sends rqpn for RC and UC QPs only; 0 is no peer yet.
        if (q.remote_number && *q.remote_number) qp.remote_number = q.remote_number;
        c.qp = qp;
        set_owner(c.owner, q.owner, known);
        if (c.owner.pid)
            if (auto n = netns.find(*c.owner.pid); n != netns.end()) c.netns = n->second;
        if (only_netns && c.owner.pid && c.netns != only_netns) snap.connections.pop_back();
    }
}

CmClaims module_claims(const std::vector<ModuleRecord>& records) {
    CmClaims claims;
    for (const auto& r : records) {
        if (r.qp && !r.qp->unjoined) claims.qps.insert({r.device_index, r.qp->number});
        if (!r.qp && r.owner.pid && r.state != static_cast<std::uint8_t>(CmState::listen))
            claims.unnumbered.insert({r.device_index, *r.owner.pid});
    }
    return claims;
}

bool kernel_qp_of(const std::string& id_owner, const std::string& qp_owner) {
    return qp_owner == id_owner || qp_owner == "rdma_cm";
}

std::set<std::uint32_t> owner_pids(const NldevData& data) {
    std::set<std::uint32_t> pids;
    for (const auto& c : data.cm_ids)
        if (c.owner.pid) pids.insert(*c.owner.pid);
    for (const auto& q : data.qps)
        if (q.owner.pid) pids.insert(*q.owner.pid);
    return pids;
}

Snapshot join(const NldevData& data, const OwnerMap& owners, const NetnsMap& netns) {
    Snapshot snap;
    snap.source = SnapshotSource::nldev;
    snap.devices = data.devices;

    const auto transports = transports_of(data.devices);
    // Each id's QP, found by device and number. Only the ids' numbers are
    // indexed (sorted, in one array) and the QPs looked up in them: at 10k
    // QPs, a tree or a sort of every QP cost more than the rest of the join.
    using QpKey = std::pair<std::uint32_t, std::uint32_t>;
    std::vector<std::pair<QpKey, std::size_t>> wanted;
    for (std::size_t i = 0; i < data.cm_ids.size(); ++i)
        if (data.cm_ids[i].qp_number)
            wanted.emplace_back(QpKey{data.cm_ids[i].device_index, *data.cm_ids[i].qp_number}, i);
    std::sort(wanted.begin(), wanted.end());
    std::vector<const QpRecord*> qp_of(data.cm_ids.size(), nullptr);
    auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
    for (const auto& q : data.qps) {
        const std::pair<QpKey, std::size_t> k{{q.device_index, q.number}, 0};
        for (auto [it, end] = std::equal_range(wanted.begin(), wanted.end(), k, by_key); it != end;
             ++it)
            qp_of[it->second] = &q;
    }
    CmClaims claims;

    // Room for the verbs connections too: at 10k QPs, growing by moves cost
    // more than the join itself. Capacity never touched is never resident.
    snap.connections.reserve(data.cm_ids.size() + data.qps.size());
    for (std::size_t i = 0; i < data.cm_ids.size(); ++i) {
        const CmIdRecord& r = data.cm_ids[i];
        Connection& c = snap.connections.emplace_back();
        c.device = r.device_name;
        c.port = r.port;
        auto t = transports.find(r.device_index);
        c.transport = t == transports.end() ? Transport::unknown : t->second;
        if (r.port_space) c.port_space = static_cast<PortSpace>(*r.port_space);
        c.cm_id = r.cm_idn;
        c.state = static_cast<CmState>(r.state);
        c.local = r.src;
        c.peer = r.dst;
        if (r.qp_number) {
            const QpRecord* q = qp_of[i];
            if (!q) {
                c.qp_unjoined = UnjoinedQp{*r.qp_number, QpUnjoined::gone};
            } else if (!same_owner(r.owner, q->owner, owners)) {
                c.qp_unjoined = UnjoinedQp{*r.qp_number, QpUnjoined::other_owner};
            } else {
                Qp qp;
                qp.number = *r.qp_number;
                if (r.qp_type) qp.type = static_cast<QpType>(*r.qp_type);
                if (q->type) qp.type = static_cast<QpType>(*q->type);
                if (q->state) qp.state = static_cast<QpState>(*q->state);
                if (q->remote_number && *q->remote_number) qp.remote_number = q->remote_number;
                c.qp = std::move(qp);
                claims.qps.insert({r.device_index, *r.qp_number});
            }
        }
        set_owner(c.owner, r.owner, known_owner(r.owner, owners));
        if (c.owner.pid)
            if (auto n = netns.find(*c.owner.pid); n != netns.end()) c.netns = n->second;
    }
    for (const auto& r : data.cm_ids)
        if (!r.qp_number && r.state != static_cast<std::uint8_t>(CmState::listen))
            if (auto p = process_of(r.owner, owners))
                claims.unnumbered.insert({r.device_index, *p});
    add_verbs_connections(snap, data.qps, claims, owners, netns);
    return snap;
}

std::size_t add_verbs_paths(Snapshot& snap, const std::vector<ModuleQpRecord>& qps) {
    std::map<std::pair<std::string_view, std::uint32_t>, const ModuleQpRecord*> by_qp;
    for (const auto& r : qps)
        by_qp[{r.device_name, r.number}] = &r;
    std::size_t unknown = 0;
    for (Connection& c : snap.connections) {
        if (c.via != Via::verbs || !has_peer(c)) continue;
        auto it = by_qp.find({c.device, c.qp->number});
        const ModuleQpRecord* r = it == by_qp.end() ? nullptr : it->second;
        if (r && ((r->type && static_cast<QpType>(*r->type) != *c.qp->type) ||
                  (r->owner.pid && c.owner.pid && *r->owner.pid != *c.owner.pid)))
            r = nullptr;
        if (r && r->path) {
            c.qp->path = r->path;
            if (r->path->sgid && !r->path->sgid->is_any())
                c.local = Endpoint{unmapped(*r->path->sgid), 0};
            if (r->path->dgid && !r->path->dgid->is_any())
                c.peer = Endpoint{unmapped(*r->path->dgid), 0};
        }
        if (r && !c.qp->remote_number && r->remote_number && *r->remote_number)
            c.qp->remote_number = r->remote_number;
        if (!c.peer && c.qp->remote_number) ++unknown;
    }
    return unknown;
}

std::set<std::uint32_t> owner_uids(const std::vector<ModuleRecord>& records) {
    std::set<std::uint32_t> uids;
    for (const auto& r : records)
        if (r.owner.uid) uids.insert(*r.owner.uid);
    return uids;
}

Snapshot join_module(const std::vector<ModuleRecord>& records, std::vector<Device> devices,
                     const UserMap& users) {
    Snapshot snap;
    snap.source = SnapshotSource::module;
    snap.devices = std::move(devices);
    const auto transports = transports_of(snap.devices);

    snap.connections.reserve(records.size());
    for (const auto& r : records) {
        Connection c;
        c.device = r.device_name;
        c.port = r.port;
        if (r.transport) {
            c.transport = transport_from_module(*r.transport);
        } else if (auto t = transports.find(r.device_index); t != transports.end()) {
            c.transport = t->second;
        }
        if (r.port_space) c.port_space = static_cast<PortSpace>(*r.port_space);
        c.cm_id = r.cm_idn;
        c.state = static_cast<CmState>(r.state);
        c.local = r.local;
        c.peer = r.peer;
        if (r.qp && r.qp->unjoined) {
            // A reason this build does not know still means "not its QP".
            c.qp_unjoined = UnjoinedQp{
                r.qp->number,
                qp_unjoined_from_module(*r.qp->unjoined).value_or(QpUnjoined::other_owner)};
        } else if (r.qp) {
            c.qp = qp_from(*r.qp);
        }
        c.owner = owner_from(r.owner, users);
        c.mapped_local = r.mapped_local;
        c.mapped_peer = r.mapped_peer;
        if (r.mapped || r.mapped_local || r.mapped_peer) c.mapped = r.mapped;
        c.mapping_withheld = r.mapping_withheld;
        c.internal = r.internal;
        c.netns = r.netns;
        snap.connections.push_back(std::move(c));
    }
    return snap;
}

} // namespace rdmastat
