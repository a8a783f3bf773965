// SPDX-License-Identifier: MIT
// `rdmastat -w` and `rdmastat -E`: poll and diff. The kernel sends no netlink
// notification when a cm_id is created or destroyed, so both commands collect a
// snapshot per round and compare it with the previous one.
#include "analysis/diff.h"
#include "cli/commands.h"
#include "cli/monitor.h"
#include "cli/run_control.h"
#include "common/numbers.h"
#include "render/monitor.h"

#include <cmath>
#include <unistd.h>

namespace rdmastat {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<Connection> copies(const std::vector<const Connection*>& list) {
    std::vector<Connection> out;
    out.reserve(list.size());
    for (const Connection* c : list)
        out.push_back(*c);
    return out;
}

// Waits until the next tick of a fixed schedule (start + n * interval), so slow
// rounds do not stretch the period.
void wait_round(Clock::time_point start, unsigned round, double interval) {
    sleep_until_or_stop(start + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(interval * round)));
}

} // namespace

int run_monitor(MonitorOptions o, const CommonOptions& common, bool summary, Selection sel,
                const Filter& filter, const TextOptions& text, std::ostream& out,
                std::ostream& err) {
    auto usage = [&](const std::string& message) {
        err << "rdmastat: " << message << "\nTry 'rdmastat --help' for more information.\n";
        return 2;
    };
    if (o.watch_given() && o.events) return usage("-w and -E exclude each other");
    if (summary) return usage("-s does not apply to -w or -E");
    const Output output = output_of(common).take();
    if (o.watch_given() && output.format != Format::text)
        return usage("-w prints text: use -E -j for JSON lines");
    if (!(o.interval >= 0.01 && o.interval <= 86400))
        return usage("--interval: expected 0.01 to 86400 seconds");
    double interval = o.interval;
    if (!o.watch.empty()) {
        auto secs = parse_seconds(o.watch.front());
        if (!secs || !std::isfinite(*secs) || *secs < 0.01 || *secs > 86400)
            return usage(
                "-w: '" + o.watch.front() +
                "' is not a number of seconds (0.01-86400; write -w SECONDS before a FILTER)");
        interval = *secs;
    } else if (o.watch_given()) {
        interval = 1;
    }
    // Events cover listeners and idle ids too unless -l narrows them.
    if (o.events && sel.scope == Scope::connected) sel.scope = Scope::all;
    if (o.events && !common.input) {
        if (auto traced = run_traced_events(o, common, sel, filter, out, err)) return *traced;
    }
    const bool terminal = o.watch_given() && &out == &std::cout && isatty(STDOUT_FILENO);

    // -E stops between rounds, so that --stats has its say.
    if (o.events) stop_on_signals();
    RunStats stats;
    std::optional<Snapshot> previous;
    Clock::time_point start = Clock::now(), last_read{};
    for (unsigned round = 0; o.count == 0 || round < o.count; ++round) {
        if (round) wait_round(start, round, interval);
        if (stop_requested()) break;
        if (o.duration > 0 &&
            std::chrono::duration<double>(Clock::now() - start).count() > o.duration)
            break;
        Collection s = collect(common, Needs{.counters = o.watch_given()});
        require(s, Part::connections);
        Clock::time_point now = Clock::now();
        WallTime wall = std::chrono::system_clock::now();
        std::vector<Connection> selected = copies(select(s.snapshot, sel, filter));
        std::vector<ConnectionEvent> events;
        if (previous) events = diff_connections(copies(select(*previous, sel, filter)), selected);
        if (o.events) {
            emit_events(out, output, events, wall, EventSource::polling);
            stats.written_polled(events.size());
        } else {
            for (const PartError& e : s.errors)
                err << "rdmastat: " << e.message << '\n';
            WatchRound r;
            r.time = wall;
            r.interval = interval;
            r.connections = select(s.snapshot, sel, filter);
            for (const ConnectionEvent& e : events) {
                if (e.kind == EventKind::closed) r.closed.push_back(e.connection);
                if (e.kind == EventKind::appeared)
                    r.appeared.push_back(connection_key(e.connection));
            }
            r.ports = s.snapshot.port_counters;
            r.qp_counters = s.snapshot.qp_counters;
            r.previous = previous ? &*previous : nullptr;
            r.elapsed = previous ? std::chrono::duration<double>(now - last_read).count() : 0;
            if (terminal)
                out << "\033[H\033[2J"; // in place, as watch(1) and netstat -c
            else if (round)
                out << '\n';
            render_watch_round(out, r, text);
        }
        out.flush();
        previous = std::move(s.snapshot);
        last_read = now;
    }
    if (o.events && o.trace.stats) stats.say(err, "-E", "polling", std::nullopt);
    return 0;
}

} // namespace rdmastat
