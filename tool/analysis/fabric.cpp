// SPDX-License-Identifier: MIT
#include "analysis/fabric.h"

#include "analysis/ports.h"
#include "analysis/select.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <sys/socket.h>
#include <tuple>

namespace rdmastat {
namespace {

// The peer on the wire, as analysis/ports.h's wire_local takes the local end.
Endpoint wire_peer(const Connection& c) {
    return c.mapped_peer ? *c.mapped_peer : *c.peer;
}

bool is_end(const Connection& c) {
    return c.via == Via::cm && !c.internal && c.state != CmState::listen && c.local && c.peer &&
           !c.peer->address.is_any() && c.peer->port != 0;
}

// A verbs end: a connected QP that knows its peer's QP number.
bool is_verbs_end(const Connection& c) {
    return c.via == Via::verbs && has_peer(c) && c.qp->remote_number;
}

bool is_listener(const Connection& c) {
    return !c.internal && c.state == CmState::listen && c.local;
}

bool bound_to(const Connection& c, std::uint16_t port) {
    return (c.local && c.local->port == port) || (c.mapped_local && c.mapped_local->port == port);
}

// CONNECT, with no QP in an error state. RESET is no sign of trouble: siw's
// QPs before Linux 6.8 read so while they carry traffic (rdmastat shows them
// as unknown now; older snapshots and exporters do not).
bool up(const Connection& c) {
    if (c.state != CmState::connect) return false;
    return !c.qp || !c.qp->state || (*c.qp->state != QpState::err && *c.qp->state != QpState::sqe);
}

// A verbs QP that carries traffic: RTR (perftest's passive end stays there),
// RTS or SQD.
bool verbs_up(const Connection& c) {
    return c.qp->state && *c.qp->state >= QpState::rtr && *c.qp->state <= QpState::sqd;
}

// An address that means something only on its own host: loopback and
// link-local ones (siw on lo reports 127.0.0.1 on every host).
bool host_scoped(const IpAddress& a) {
    if (a.family == AF_INET) return a.bytes[0] == 127 || (a.bytes[0] == 169 && a.bytes[1] == 254);
    if (a.family != AF_INET6) return false;
    static const IpAddress loopback = *IpAddress::parse("::1");
    return a == loopback || (a.bytes[0] == 0xfe && (a.bytes[1] & 0xc0) == 0x80);
}

// An endpoint as both ends write it: IPv4 as IPv4 (a dual-stack socket's
// ::ffff:a.b.c.d too), and a host-scoped address with its host's name.
std::string side(const Endpoint& e, const FabricHost& h) {
    Endpoint plain{unmapped(e.address), e.port};
    return host_scoped(plain.address) ? plain.to_string() + '@' + h.name : plain.to_string();
}

std::string key(const Endpoint& local, const Endpoint& peer, const FabricHost& h) {
    return side(local, h) + ' ' + side(peer, h);
}

// Which host holds each address: its ports' addresses and its ids' own.
// Host-scoped addresses are each host's own, found under side()'s name.
using Holders = std::map<std::string, const FabricHost*>;
Holders address_holders(const FabricInput& in) {
    Holders holders;
    for (const FabricHost& h : in.hosts) {
        for (const IpAddress& a : h.addresses)
            holders.emplace(side(Endpoint{a, 0}, h), &h);
        for (const Connection& c : h.connections)
            if (c.local && !c.local->address.is_any() && !c.internal)
                holders.emplace(side(Endpoint{c.local->address, 0}, h), &h);
    }
    return holders;
}

// "10.9.0.2/qp17": a verbs end's side, by the address of its GID.
std::string verbs_side(const IpAddress& a, std::uint32_t qpn) {
    return unmapped(a).to_string() + "/qp" + std::to_string(qpn);
}

// Verbs ends: first by both sides' addresses and QP numbers, then the rest
// by QP numbers alone where that pair is the only candidate. Rows go to rows.
void join_verbs(const FabricInput& in, const Holders& holders, std::vector<FabricRow>& rows) {
    std::vector<FabricEnd> ends;
    // Which host holds each GID's address: those its verbs ends use, then its
    // ports' addresses, as they are (GIDs are global, link-local ones too).
    std::map<IpAddress, const FabricHost*> gid_holders;
    for (const FabricHost& h : in.hosts)
        for (const Connection& c : h.connections)
            if (is_verbs_end(c)) {
                ends.push_back(FabricEnd{&h, &c});
                if (c.local) gid_holders.emplace(unmapped(c.local->address), &h);
            }
    for (const FabricHost& h : in.hosts)
        for (const IpAddress& a : h.addresses)
            gid_holders.emplace(unmapped(a), &h);
    const auto qpn = [&](std::size_t i) { return ends[i].connection->qp->number; };
    const auto rqpn = [&](std::size_t i) { return *ends[i].connection->qp->remote_number; };
    const auto addressed = [&](std::size_t i) {
        return ends[i].connection->local && ends[i].connection->peer;
    };
    std::vector<bool> used(ends.size(), false);
    std::vector<std::optional<std::size_t>> partner(ends.size());
    std::vector<bool> probable(ends.size(), false);
    // Ends with candidates by numbers but no single one: their peer is unknown.
    std::vector<bool> ambiguous(ends.size(), false);

    std::map<std::string, std::size_t> exact;
    for (std::size_t i = 0; i < ends.size(); ++i)
        if (addressed(i)) {
            const Connection& c = *ends[i].connection;
            exact.emplace(verbs_side(c.local->address, qpn(i)) + ' ' +
                              verbs_side(c.peer->address, rqpn(i)),
                          i);
        }
    for (std::size_t i = 0; i < ends.size(); ++i) {
        if (used[i] || !addressed(i)) continue;
        const Connection& c = *ends[i].connection;
        auto it = exact.find(verbs_side(c.peer->address, rqpn(i)) + ' ' +
                             verbs_side(c.local->address, qpn(i)));
        if (it == exact.end() || used[it->second]) continue;
        // A QP connected to itself (its own GID and number) is its own partner.
        used[i] = used[it->second] = true;
        partner[i] = it->second;
    }
    // By numbers: candidates j for i cross i's numbers, on the same transport,
    // and no address either knows says otherwise.
    const auto compatible = [&](std::size_t i, std::size_t j) {
        const Connection& a = *ends[i].connection;
        const Connection& b = *ends[j].connection;
        if (i == j || used[j] || a.transport != b.transport) return false;
        if (qpn(j) != rqpn(i) || rqpn(j) != qpn(i)) return false;
        if (addressed(i) && addressed(j)) return false; // the exact pass would have paired them
        const auto same = [](const std::optional<Endpoint>& x, const std::optional<Endpoint>& y) {
            return !x || !y || unmapped(x->address) == unmapped(y->address);
        };
        return same(a.peer, b.local) && same(a.local, b.peer);
    };
    std::multimap<std::pair<std::uint32_t, std::uint32_t>, std::size_t> by_numbers;
    for (std::size_t i = 0; i < ends.size(); ++i)
        if (!used[i]) by_numbers.emplace(std::pair(qpn(i), rqpn(i)), i);
    const auto candidates = [&](std::size_t i) {
        std::vector<std::size_t> out;
        auto [first, last] = by_numbers.equal_range({rqpn(i), qpn(i)});
        for (auto it = first; it != last; ++it)
            if (compatible(i, it->second)) out.push_back(it->second);
        return out;
    };
    for (std::size_t i = 0; i < ends.size(); ++i) {
        if (used[i]) continue;
        auto mine = candidates(i);
        if (mine.size() != 1 || candidates(mine[0]) != std::vector<std::size_t>{i}) {
            ambiguous[i] = !mine.empty();
            continue;
        }
        used[i] = used[mine[0]] = true;
        partner[i] = mine[0];
        probable[i] = true;
    }

    std::vector<bool> listed(ends.size(), false);
    for (std::size_t i = 0; i < ends.size(); ++i) {
        if (listed[i]) continue;
        listed[i] = true;
        const Connection& c = *ends[i].connection;
        FabricRow row{FabricStatus::unobserved, {ends[i]}};
        if (partner[i] == i) {
            row.peer_host = ends[i].host;
            row.status = verbs_up(c) ? FabricStatus::established : FabricStatus::disagree;
        } else if (partner[i]) {
            listed[*partner[i]] = true;
            row.ends.push_back(ends[*partner[i]]);
            row.probable = probable[i];
            const Connection& d = *row.ends[1].connection;
            row.status =
                verbs_up(c) && verbs_up(d) ? FabricStatus::established : FabricStatus::disagree;
        } else if (c.peer && !ambiguous[i]) {
            const IpAddress peer = unmapped(c.peer->address);
            if (auto g = gid_holders.find(peer); g != gid_holders.end()) {
                row.peer_host = g->second;
            } else if (auto h = holders.find(side(Endpoint{peer, 0}, *ends[i].host));
                       h != holders.end()) {
                row.peer_host = h->second;
            }
            if (row.peer_host) row.status = FabricStatus::half_open;
        }
        rows.push_back(std::move(row));
    }
}

// The order of rows within a status: host, then local address, then the
// cm id or (verbs) QP number.
auto row_order(const FabricRow& r) {
    const Connection& c = *r.ends[0].connection;
    return std::tuple(r.status, r.ends[0].host->name, c.local ? c.local->address : IpAddress{},
                      c.local ? c.local->port : 0, c.via, c.cm_id.value_or(0),
                      c.qp ? c.qp->number : 0);
}

} // namespace

FabricView join_fabric(const FabricInput& in, const FabricQuery& query) {
    std::vector<FabricEnd> ends;
    std::set<std::tuple<const FabricHost*, std::uint16_t>> listening_ports;
    FabricView view;
    for (const FabricHost& h : in.hosts)
        for (const Connection& c : h.connections) {
            if (is_end(c)) ends.push_back(FabricEnd{&h, &c});
            if (!is_listener(c)) continue;
            listening_ports.emplace(&h, c.local->port);
            if (query.listeners || query.port)
                if (!query.port || bound_to(c, *query.port))
                    view.rows.push_back(FabricRow{FabricStatus::listening, {FabricEnd{&h, &c}}});
        }

    // Each end waits under its own (local, peer) for the end that sees them swapped.
    std::multimap<std::string, std::size_t> waiting;
    for (std::size_t i = 0; i < ends.size(); ++i) {
        const Connection& c = *ends[i].connection;
        waiting.emplace(key(*wire_local(c), wire_peer(c), *ends[i].host), i);
    }
    std::vector<bool> used(ends.size(), false);
    const auto holders = address_holders(in);
    const auto accepting = [&](const FabricEnd& e) {
        return listening_ports.count({e.host, e.connection->local->port}) > 0;
    };

    for (std::size_t i = 0; i < ends.size(); ++i) {
        if (used[i]) continue;
        used[i] = true;
        const Connection& c = *ends[i].connection;
        FabricRow row{FabricStatus::established, {ends[i]}};
        // Of several candidates (two hosts reusing one private address), one
        // on the same host first.
        std::optional<std::size_t> other;
        auto [first, last] = waiting.equal_range(key(wire_peer(c), *wire_local(c), *ends[i].host));
        for (auto it = first; it != last; ++it)
            if (!used[it->second] && (!other || ends[it->second].host == ends[i].host))
                other = it->second;
        if (other) {
            used[*other] = true;
            row.ends.push_back(ends[*other]);
        }
        if (row.ends.size() == 2) {
            if (!accepting(row.ends[0]) && accepting(row.ends[1]))
                std::swap(row.ends[0], row.ends[1]);
            row.status = up(*row.ends[0].connection) && up(*row.ends[1].connection)
                             ? FabricStatus::established
                             : FabricStatus::disagree;
        } else if (c.state && *c.state < CmState::connect) {
            row.status = FabricStatus::connecting;
        } else if (auto h = holders.find(side(Endpoint{wire_peer(c).address, 0}, *ends[i].host));
                   h != holders.end()) {
            row.status = FabricStatus::half_open;
            row.peer_host = h->second;
        } else {
            row.status = FabricStatus::unobserved;
        }
        if (query.port && std::none_of(row.ends.begin(), row.ends.end(), [&](const FabricEnd& e) {
                return bound_to(*e.connection, *query.port);
            }))
            continue;
        view.rows.push_back(std::move(row));
    }

    // Verbs ends bind no port: a port query leaves them out.
    if (!query.port) join_verbs(in, holders, view.rows);

    std::stable_sort(
        view.rows.begin(), view.rows.end(),
        [](const FabricRow& a, const FabricRow& b) { return row_order(a) < row_order(b); });
    for (const FabricRow& r : view.rows)
        ++view.count[static_cast<std::size_t>(r.status)];
    return view;
}

} // namespace rdmastat
