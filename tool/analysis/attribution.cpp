// SPDX-License-Identifier: MIT
#include "analysis/attribution.h"

#include "analysis/ports.h"

#include <map>
#include <set>

namespace rdmastat {
namespace {

/// The siw iWARP cm_ids of snap by the local port on the wire, in snapshot order.
std::multimap<std::uint16_t, const Connection*> siw_ids(const Snapshot& snap) {
    std::set<std::string> siw;
    for (const Device& d : snap.devices)
        if (is_siw(d)) siw.insert(d.name);
    std::multimap<std::uint16_t, const Connection*> out;
    for (const Connection& c : snap.connections) {
        auto local = wire_local(c);
        if (c.transport == Transport::iwarp && local && siw.count(c.device))
            out.emplace(local->port, &c);
    }
    return out;
}

// 0 when c does not carry s; else higher for a better match.
int match_score(const Connection& c, const HostSocket& s) {
    auto local = wire_local(c);
    if (!local || local->port != s.local.port) return 0;
    bool exact = unmapped(local->address) == unmapped(s.local.address);
    int owned = c.owner.pid ? 1 : 0;
    if (s.state == TcpState::listen) {
        if (c.state != CmState::listen || !address_covers(local->address, s.local.address))
            return 0;
        return 1 + owned + (exact ? 2 : 0);
    }
    auto peer = c.mapped_peer ? c.mapped_peer : c.peer;
    if (c.state == CmState::listen || !exact || !peer || peer->port != s.peer.port ||
        unmapped(peer->address) != unmapped(s.peer.address))
        return 0;
    return 3 + owned;
}

const Connection* best_match(const std::multimap<std::uint16_t, const Connection*>& ids,
                             const HostSocket& s) {
    if (s.pid) return nullptr;
    const Connection* best = nullptr;
    int best_score = 0;
    auto [first, last] = ids.equal_range(s.local.port);
    for (auto it = first; it != last; ++it) {
        int score = match_score(*it->second, s);
        if (score > best_score) {
            best = it->second;
            best_score = score;
        }
    }
    return best;
}

} // namespace

const Connection* attributed_cm_id(const Snapshot& snap, const HostSocket& s) {
    return best_match(siw_ids(snap), s);
}

std::vector<HostSocket> attribute_host_sockets(const Snapshot& snap) {
    auto ids = siw_ids(snap);
    std::vector<HostSocket> out = snap.host_sockets;
    for (HostSocket& s : out) {
        if (const Connection* c = best_match(ids, s)) {
            s.rdma_device = c->device;
            s.rdma_cm_id = c->cm_id;
        }
    }
    return out;
}

Snapshot with_attribution(Snapshot snap) {
    snap.host_sockets = attribute_host_sockets(snap);
    return snap;
}

ConnectionIndex::ConnectionIndex(const Snapshot& snap) {
    // The first of an id reported twice, as a scan in snapshot order would find.
    for (const Connection& c : snap.connections)
        if (c.cm_id) by_id_.try_emplace({c.device, *c.cm_id}, &c);
}

const Connection* ConnectionIndex::of(const HostSocket& s) const {
    if (!s.rdma_device || !s.rdma_cm_id) return nullptr;
    auto it = by_id_.find({*s.rdma_device, *s.rdma_cm_id});
    return it == by_id_.end() ? nullptr : it->second;
}

} // namespace rdmastat
