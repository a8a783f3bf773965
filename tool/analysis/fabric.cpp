// SPDX-License-Identifier: MIT
#include "analysis/fabric.h"

#include "analysis/ports.h"

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
    return !c.internal && c.state != CmState::listen && c.local && c.peer &&
           !c.peer->address.is_any() && c.peer->port != 0;
}

bool is_listener(const Connection& c) {
    return !c.internal && c.state == CmState::listen && c.local;
}

bool bound_to(const Connection& c, std::uint16_t port) {
    return (c.local && c.local->port == port) || (c.mapped_local && c.mapped_local->port == port);
}

// CONNECT, with no QP in an error state. RESET is no sign of trouble: siw's
// QPs report it while they carry traffic.
bool up(const Connection& c) {
    if (c.state != CmState::connect) return false;
    return !c.qp || !c.qp->state || (*c.qp->state != QpState::err && *c.qp->state != QpState::sqe);
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

    std::stable_sort(
        view.rows.begin(), view.rows.end(), [](const FabricRow& a, const FabricRow& b) {
            const Connection& x = *a.ends[0].connection;
            const Connection& y = *b.ends[0].connection;
            return std::tie(a.status, a.ends[0].host->name, x.local->address, x.local->port,
                            x.cm_id) < std::tie(b.status, b.ends[0].host->name, y.local->address,
                                                y.local->port, y.cm_id);
        });
    for (const FabricRow& r : view.rows)
        ++view.count[static_cast<std::size_t>(r.status)];
    return view;
}

} // namespace rdmastat
