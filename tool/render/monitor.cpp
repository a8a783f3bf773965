// SPDX-License-Identifier: MIT
#include "render/monitor.h"

#include "model/names.h"
#include "render/table.h"
#include "render/text.h"
#include "render/views.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace rdmastat {
namespace {

std::string rate_text(const std::optional<double>& r) {
    if (!r) return "-";
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.1f/s", *r);
    return buf;
}

// Counter rows of one reading against the previous (none: rates "-").
void counter_rows(Table& t, std::vector<std::string> lead, const std::vector<Counter>& now,
                  const std::vector<Counter>* before, double elapsed) {
    static const std::vector<Counter> none;
    for (const CounterRate& r : counter_rates(before ? *before : none, now, elapsed)) {
        std::vector<std::string> row = lead;
        row.push_back(r.name);
        row.push_back(std::to_string(r.value));
        row.push_back(rate_text(r.per_second));
        t.add(std::move(row));
    }
}

} // namespace

std::string timestamp_text(WallTime t) {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
    std::time_t secs = static_cast<std::time_t>(ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03uZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<unsigned>(ms % 1000));
    return buf;
}

namespace {

std::string event_text(const ConnectionEvent& e) {
    if (e.kind == EventKind::cm_event && e.cm_event) return name_of(*e.cm_event);
    return name_of(e.kind);
}

} // namespace

void render_events(std::ostream& out, const std::vector<ConnectionEvent>& events, WallTime t) {
    std::string batch_time = timestamp_text(t);
    for (const ConnectionEvent& e : events) {
        if (e.device_event) {
            // DEVICE/PORT, then the rest under JSON's names (views.h).
            const DeviceEvent& d = *e.device_event;
            out << (e.time ? timestamp_text(*e.time) : batch_time) << ' ' << name_of(d.type) << ' '
                << (d.device ? printable(*d.device) : "-") << '/'
                << (d.port ? std::to_string(*d.port) : "-");
            describe(d, [&](std::string_view key, const auto& fact, Presence) {
                if (!fact || key == "name" || key == "port") return;
                out << ' ' << key << '=';
                if constexpr (std::is_same_v<std::remove_cvref_t<decltype(*fact)>, std::string>)
                    out << printable(*fact);
                else
                    out << *fact;
            });
            out << '\n';
            continue;
        }
        const Connection& c = e.connection;
        out << (e.time ? timestamp_text(*e.time) : batch_time) << ' ' << event_text(e) << ' '
            << (c.device.empty() ? "-" : printable(c.device)) << '/'
            << (c.port ? std::to_string(*c.port) : "-") << ' ' << name_of(c.transport) << ' '
            << local_text(c) << ' ' << peer_text(c) << ' ';
        if (e.old_state) out << name_of(*e.old_state) << "->";
        if (e.old_qp_state) out << name_of(*e.old_qp_state) << "->";
        out << state_name(c);
        if (c.cm_id) out << " cm_id=" << *c.cm_id;
        if (c.via == Via::verbs && c.qp) {
            out << " qpn=" << c.qp->number;
            if (c.qp->remote_number) out << " rqpn=" << *c.qp->remote_number;
        }
        out << ' ' << printable(owner_text(c.owner));
        describe_event_facts(e, [&](std::string_view key, const auto& fact, Presence) {
            if (!fact) return;
            out << ' ' << key << '=';
            if constexpr (std::is_floating_point_v<std::remove_cvref_t<decltype(*fact)>>)
                out << fixed(*fact, 3);
            else if constexpr (std::is_enum_v<std::remove_cvref_t<decltype(*fact)>>)
                out << name_of(*fact);
            else
                out << *fact;
        });
        out << '\n';
    }
}

void render_life_header(std::ostream& out) {
    out << "TIME                     PID     COMM             DEVICE/PORT TRANSPORT "
           "LOCAL                  PEER                   HANDSHAKE_MS LIFETIME_MS END\n";
}

void render_life(std::ostream& out, const std::vector<ConnectionEvent>& events, WallTime t) {
    for (const ConnectionEvent& e : events) {
        const Connection& c = e.connection;
        auto ms = [](const std::optional<std::chrono::nanoseconds>& d) {
            if (!d) return std::string("-");
            char buf[32];
            std::snprintf(buf, sizeof(buf), "%.3f", milliseconds(*d));
            return std::string(buf);
        };
        std::string pid = c.owner.pid ? std::to_string(*c.owner.pid) : "-";
        std::string comm = printable(c.owner.comm     ? *c.owner.comm
                                     : c.owner.kernel ? "[" + *c.owner.kernel + "]"
                                                      : "-");
        std::string dev = (c.device.empty() ? "-" : printable(c.device)) + "/" +
                          (c.port ? std::to_string(*c.port) : "-");
        std::string end(e.ending ? name_of(*e.ending) : "closed");
        if (e.reason) end += ":" + *e.reason;
        char line[512];
        std::snprintf(line, sizeof(line), "%-24s %-7s %-16s %-11s %-9s %-22s %-22s %12s %11s %s\n",
                      timestamp_text(e.time ? *e.time : t).c_str(), pid.c_str(), comm.c_str(),
                      dev.c_str(), name_of(c.transport).c_str(), local_text(c).c_str(),
                      peer_text(c).c_str(), ms(e.handshake).c_str(), ms(e.lifetime).c_str(),
                      end.c_str());
        out << line;
    }
}

void render_watch_round(std::ostream& out, const WatchRound& round, const TextOptions& opts) {
    std::size_t appeared = 0, closed = 0;
    for (const MarkedConnection& r : round.rows) {
        appeared += r.mark == RowMark::appeared;
        closed += r.mark == RowMark::closed;
    }
    out << "rdmastat -w " << round.interval << " at " << timestamp_text(round.time) << ": "
        << round.rows.size() - closed << " shown, " << appeared << " appeared, " << closed
        << " closed\n";
    render_marked_listing(out, round.rows, opts);

    out << "\nPort counters\n";
    if (round.ports.empty()) {
        out << "n/a (no port counters were read)\n";
    }
    Table ports({"Device", "Port", "Counter", "Value", "Rate"});
    for (const PortCounters& p : round.ports) {
        std::vector<std::string> lead = {p.device, std::to_string(p.port)};
        if (p.counters.empty()) {
            ports.add({p.device, std::to_string(p.port), "n/a", "", ""});
            continue;
        }
        const PortCounters* before =
            round.previous ? find_port_counters(round.previous->port_counters, p.device, p.port)
                           : nullptr;
        counter_rows(ports, lead, p.counters, before ? &before->counters : nullptr, round.elapsed);
    }
    if (!ports.empty()) ports.write(out, opts.header);

    out << "\nQP counters\n";
    if (round.qp_counters.empty()) {
        out << "n/a (no device has counters bound to QPs)\n";
        return;
    }
    Table qps({"Device", "Port", "Counter-ID", "QPs", "Counter", "Value", "Rate"});
    for (const QpCounters& q : round.qp_counters) {
        std::string qpns;
        for (std::uint32_t n : q.qps)
            qpns += (qpns.empty() ? "" : ",") + std::to_string(n);
        const std::vector<Counter>* before = nullptr;
        if (round.previous)
            for (const QpCounters& old : round.previous->qp_counters)
                if (old.device == q.device && old.counter_id == q.counter_id)
                    before = &old.counters;
        counter_rows(qps, {q.device, std::to_string(q.port), std::to_string(q.counter_id), qpns},
                     q.counters, before, round.elapsed);
    }
    qps.write(out, opts.header);
}

} // namespace rdmastat
