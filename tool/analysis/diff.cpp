// SPDX-License-Identifier: MIT
#include "analysis/diff.h"

#include <map>
#include <set>
#include <utility>

namespace rdmastat {
namespace {
std::optional<QpState> qp_state_of(const Connection& c) {
    return c.qp ? c.qp->state : std::nullopt;
}
} // namespace

std::vector<ConnectionEvent> diff_connections(const std::vector<Connection>& before,
                                              const std::vector<Connection>& after) {
    std::map<ConnectionKey, const Connection*> old_ids, new_ids;
    for (const Connection& c : before)
        old_ids.emplace(key_of(c), &c);
    for (const Connection& c : after)
        new_ids.emplace(key_of(c), &c);
    std::vector<ConnectionEvent> out;
    for (const Connection& c : before)
        if (!new_ids.count(key_of(c))) out.push_back({EventKind::closed, c, std::nullopt});
    for (const Connection& c : after) {
        auto it = old_ids.find(key_of(c));
        if (it == old_ids.end())
            out.push_back({EventKind::appeared, c, std::nullopt});
        else if (c.via == Via::cm && it->second->state != c.state)
            out.push_back({EventKind::changed, c, it->second->state});
        else if (c.via == Via::verbs && qp_state_of(*it->second) != qp_state_of(c))
            out.push_back({.kind = EventKind::changed,
                           .connection = c,
                           .old_qp_state = qp_state_of(*it->second)});
    }
    return out;
}

std::vector<ConnectionEvent> PolledLives::ended(std::vector<ConnectionEvent> events,
                                                std::chrono::steady_clock::time_point now) {
    std::vector<ConnectionEvent> out;
    for (ConnectionEvent& e : events) {
        if (e.kind == EventKind::appeared) first_seen_[key_of(e.connection)] = now;
        if (e.kind != EventKind::closed) continue;
        if (auto f = first_seen_.find(key_of(e.connection)); f != first_seen_.end()) {
            e.lifetime = std::chrono::duration_cast<std::chrono::nanoseconds>(now - f->second);
            first_seen_.erase(f);
        }
        e.ending = Ending::closed;
        out.push_back(std::move(e));
    }
    return out;
}

std::vector<MarkedConnection> mark_rows(const std::vector<const Connection*>& now,
                                        const std::vector<ConnectionEvent>& events) {
    std::set<ConnectionKey> appeared;
    for (const ConnectionEvent& e : events)
        if (e.kind == EventKind::appeared) appeared.insert(key_of(e.connection));
    std::vector<MarkedConnection> rows;
    rows.reserve(now.size());
    for (const Connection* c : now)
        rows.push_back({c, appeared.count(key_of(*c)) ? RowMark::appeared : RowMark::none});
    for (const ConnectionEvent& e : events)
        if (e.kind == EventKind::closed) rows.push_back({&e.connection, RowMark::closed});
    return rows;
}

std::vector<CounterRate> counter_rates(const std::vector<Counter>& before,
                                       const std::vector<Counter>& after, double seconds) {
    std::map<std::string, std::uint64_t> old_values;
    for (const Counter& c : before)
        old_values.emplace(c.name, c.value);
    std::vector<CounterRate> out;
    for (const Counter& c : after) {
        CounterRate r{c.name, c.value, std::nullopt};
        auto it = old_values.find(c.name);
        if (seconds > 0 && it != old_values.end() && c.value >= it->second)
            r.per_second = static_cast<double>(c.value - it->second) / seconds;
        out.push_back(std::move(r));
    }
    return out;
}

const PortCounters* find_port_counters(const std::vector<PortCounters>& list,
                                       const std::string& device, std::uint32_t port) {
    for (const PortCounters& p : list)
        if (p.device == device && p.port == port) return &p;
    return nullptr;
}

} // namespace rdmastat
