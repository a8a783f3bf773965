// SPDX-License-Identifier: MIT
// `rdmastat -w` and `rdmastat -E` by polling (pipeline/poll.h): each round is
// written as it comes.
#include "cli/commands.h"
#include "cli/monitor.h"
#include "cli/run_control.h"
#include "cli/say.h"
#include "common/numbers.h"
#include "pipeline/device_feed.h"
#include "pipeline/poll.h"
#include "render/monitor.h"

#include <cmath>
#include <unistd.h>

namespace rdmastat {

std::unique_ptr<DeviceFeed> device_feed(std::ostream& err, const char* context,
                                        const char* instead) {
    std::string why;
    std::unique_ptr<DeviceFeed> feed = open_device_feed(why);
    if (!feed) say(err, context, why, instead);
    return feed;
}

int run_monitor(MonitorOptions o, const CommonOptions& common, bool summary, Selection sel,
                const Filter& filter, const TextOptions& text, std::ostream& out,
                std::ostream& err) {
    auto usage = [&](const std::string& message) { return say_usage(err, "", message); };
    if (o.watch_given() && o.events) return usage("-w and -E exclude each other");
    if (summary) return usage("-s does not apply to -w or -E");
    const auto w = writer_for(output_of(common).take());
    if (o.watch_given() && w->document()) return usage("-w prints text: use -E -j for JSON lines");
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

    // -E stops between rounds, so that --stats has its say. Device events
    // need no privilege: polling, -E reports them all the same.
    if (o.events) stop_on_signals();
    std::unique_ptr<DeviceFeed> devices;
    if (o.events && !common.input)
        devices = device_feed(err, "-E", "; device and netdev changes are not reported");
    std::uint64_t overruns_noted = 0;
    RunStats stats;
    SystemRunClock clock;
    PollPlan plan{interval, o.count, o.duration, Needs{.counters = o.watch_given()}, sel, filter};
    poll(*options_source(common), clock, plan, [&](const PollRound& r) {
        if (o.events) {
            std::vector<ConnectionEvent> events = r.events;
            if (devices)
                for (ConnectionEvent& e : take_device_events(
                         *devices, clock, [&](const std::string& line) { say(err, "-E", line); },
                         true, overruns_noted))
                    events.push_back(std::move(e));
            w->events(out, events, r.wall, EventSource::polling);
            stats.written_polled(events.size());
        } else {
            for (const PartError& e : r.collection.errors)
                say(err, "", e.message);
            WatchRound round;
            round.time = r.wall;
            round.interval = interval;
            round.rows = mark_rows(r.selected, r.events);
            round.ports = r.collection.snapshot.port_counters;
            round.qp_counters = r.collection.snapshot.qp_counters;
            round.previous = r.previous;
            round.elapsed = r.elapsed;
            if (terminal)
                out << "\033[H\033[2J"; // in place, as watch(1) and netstat -c
            else if (r.index)
                out << '\n';
            render_watch_round(out, round, text);
        }
        out.flush();
        return true;
    });
    if (o.events && o.trace.stats) stats.say(err, "-E", "polling", std::nullopt);
    return 0;
}

} // namespace rdmastat
