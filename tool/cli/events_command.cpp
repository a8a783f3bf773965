// SPDX-License-Identifier: MIT
// `rdmastat -E` and `rdmastat life` from the kernel's rdma_cma tracepoints. One
// NLDEV dump seeds what is known of the ids that already exist; from then on
// every tracepoint hit is an event, so an id that lives for milliseconds, a
// rejected connect and the reason for it are all seen, which polling cannot do.
#include "analysis/cm_trace.h"
#include "analysis/event_metrics.h"
#include "cli/commands.h"
#include "cli/monitor.h"
#include "cli/run_control.h"
#include "collect/cgroup.h"
#include "render/monitor.h"
#include "render/output.h"
#include "trace/decode.h"
#include "trace/tracer.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <mutex>
#include <sys/socket.h>
#include <thread>

namespace rdmastat {
namespace {

using Clock = std::chrono::steady_clock;

// CLOCK_MONOTONIC (the kernel's bpf_ktime_get_ns, steady_clock here) to wall time.
std::chrono::system_clock::duration monotonic_to_wall() {
    return std::chrono::system_clock::now().time_since_epoch() -
           std::chrono::duration_cast<std::chrono::system_clock::duration>(
               Clock::now().time_since_epoch());
}

bool past(Clock::time_point start, double duration) {
    return duration > 0 && std::chrono::duration<double>(Clock::now() - start).count() >= duration;
}

// The tracer, or why there is none (said once by the caller).
std::unique_ptr<Tracer> open_tracer(const TraceOptions& o, std::string& why) {
    if (auto no = tracepoints_unavailable()) {
        why = *no;
        return nullptr;
    }
    auto opened = Tracer::open({.buffer_bytes = std::size_t(o.buffer_kib) * 1024});
    if (!opened) {
        why = opened.error();
        return nullptr;
    }
    return std::move(opened.value());
}

// Runs the tracer until a signal, duration, or emit() says stop: each event
// admit() takes (and may change) goes to emit() in batches, in order.
// Undecodable records are said on err as they happen, and with own_signals
// (SIGINT and SIGTERM stop it) lost ones too; serve counts them instead.
// stats, when given, hears of each event emitted.
void trace_events(Tracer& tracer, const CommonOptions& common, double duration,
                  const std::function<bool(ConnectionEvent&)>& admit,
                  const std::function<bool(std::vector<ConnectionEvent>&)>& emit, std::ostream& err,
                  const char* context, bool own_signals = true, RunStats* stats = nullptr) {
    if (!tracer.missing().empty())
        err << "rdmastat: " << context << ": this kernel hides " << tracer.missing() << '\n';
    // Attached first, then the dump: an id made in between is in both rather
    // than in neither (its first record then tells whether it was born since).
    Collection seed = collect(common);
    require(seed, Part::connections);
    // The ids born since the seed: their processes' containers and pods, for
    // the filters and the output, read once per process and round.
    CgroupCache cgroups;
    CmTracker tracker([&cgroups](Owner& o) { cgroups.fill(o); });
    tracker.seed(seed.snapshot);
    if (own_signals) stop_on_signals();

    Clock::time_point start = Clock::now();
    std::uint64_t lost_reported = 0;
    std::vector<ConnectionEvent> batch;
    std::vector<std::uint64_t> batch_ns; // the kernel's times, for stats
    auto offset = monotonic_to_wall();
    Tracer::Sink sink = [&](const void* data, std::size_t size) {
        auto decoded = decode_trace_record(data, size);
        if (!decoded) {
            err << "rdmastat: " << context << ": " << decoded.error() << '\n';
            return;
        }
        // A device added since the seed: one more dump tells its transport.
        if (const std::string& device = decoded.value().connection.device;
            tracker.new_device(device))
            tracker.learn(collect(common).snapshot, device);
        std::optional<ConnectionEvent> e = tracker.add(decoded.value(), offset);
        if (e && admit(*e)) {
            batch.push_back(std::move(*e));
            batch_ns.push_back(decoded.value().time_ns);
        }
    };
    bool more = true, last = false;
    while (more && !last) {
        // A stop (signal, --duration) still writes what the kernel queued
        // before it: the last round takes what is there without waiting.
        last = stop_requested() || past(start, duration);
        offset = monotonic_to_wall();
        cgroups.forget();
        auto polled = tracer.poll(last ? 0 : Tracer::poll_ms, sink);
        if (!polled) throw Error(polled.error());
        more = emit(batch);
        if (stats)
            for (std::uint64_t ns : batch_ns)
                stats->written(ns);
        batch.clear();
        batch_ns.clear();
        if (!own_signals) continue;
        // The last round's count is exact: nothing is lost unsaid.
        if (Tracer::Lost lost = last ? tracer.lost() : tracer.lost_recently();
            lost.total() > lost_reported) {
            err << "rdmastat: " << context << ": " << lost.total() - lost_reported
                << " events lost (" << lost.total() << " in all: " << lost.full
                << " found the ring buffer full, " << lost.busy
                << " were skipped by the kernel, their program already running on that CPU)\n";
            lost_reported = lost.total();
        }
    }
}

// A connection, for the life view: an id with a peer that is not a listener.
bool is_connection(const Connection& c) {
    return c.state != CmState::listen && has_peer(c);
}

} // namespace

std::optional<int> run_traced_events(const MonitorOptions& o, const CommonOptions& common,
                                     const Selection& sel, const Filter& filter, std::ostream& out,
                                     std::ostream& err) {
    std::string why;
    std::unique_ptr<Tracer> tracer = open_tracer(o.trace, why);
    if (!tracer) {
        err << "rdmastat: -E: " << why << "; polling every " << o.interval
            << " s instead (short-lived ids and reject reasons are not seen)\n";
        return std::nullopt;
    }
    const auto w = writer_for(output_of(common).take());
    unsigned shown = 0;
    auto admit = [&](ConnectionEvent& e) {
        if (o.count && shown >= o.count) return false;
        if (!selected(e.connection, sel, filter)) return false;
        ++shown;
        return true;
    };
    auto emit = [&](std::vector<ConnectionEvent>& batch) {
        w->events(out, batch, std::chrono::system_clock::now(), EventSource::tracepoints);
        out.flush();
        return !o.count || shown < o.count;
    };
    RunStats stats;
    trace_events(*tracer, common, o.duration, admit, emit, err, "-E", true,
                 o.trace.stats ? &stats : nullptr);
    if (o.trace.stats) stats.say(err, "-E", "tracepoints", tracer->lost().total());
    return 0;
}

int run_life(const LifeOptions& o, std::ostream& out, std::ostream& err) {
    auto filter = Filter::parse(o.filter);
    if (!filter) throw Error("life", filter.error());
    Selection sel;
    sel.scope = Scope::all;
    if (o.ipv4 || o.ipv6) sel.family = o.ipv4 ? AF_INET : AF_INET6;
    const auto w = writer_for(output_of(o).take());
    w->life_start(out, !o.no_header);

    unsigned shown = 0;
    auto admit = [&](ConnectionEvent& e) {
        if (e.kind != EventKind::closed || (o.count && shown >= o.count)) return false;
        if (!is_connection(e.connection) || !selected(e.connection, sel, filter.value()))
            return false;
        ++shown;
        return true;
    };
    auto show = [&](std::vector<ConnectionEvent>& batch, EventSource source) {
        w->life(out, batch, std::chrono::system_clock::now(), source);
        out.flush();
        return !o.count || shown < o.count;
    };

    std::string why;
    if (!o.input) {
        if (std::unique_ptr<Tracer> tracer = open_tracer(o.trace, why)) {
            RunStats stats;
            trace_events(
                *tracer, o, o.duration, admit,
                [&](std::vector<ConnectionEvent>& b) { return show(b, EventSource::tracepoints); },
                err, "life", true, o.trace.stats ? &stats : nullptr);
            if (o.trace.stats) stats.say(err, "life", "tracepoints", tracer->lost().total());
            return 0;
        }
        err << "rdmastat: life: " << why << "; polling every " << o.interval
            << " s instead (lifetimes to the poll's resolution, no handshake or reasons, and "
               "shorter connections not seen)\n";
    }
    // Polling (pipeline/poll.h): lifetimes from the rounds (PolledLives).
    stop_on_signals();
    RunStats stats;
    SystemRunClock clock;
    PolledLives lives;
    // --duration ends the run after the round in which it passes: the round due
    // at the deadline still reports what ended before it.
    PollPlan plan{o.interval, 0, 0, Needs{}, Selection{Scope::all, std::nullopt}, Filter()};
    const Clock::time_point start = Clock::now();
    poll(*options_source(o), clock, plan, [&](const PollRound& r) {
        std::vector<ConnectionEvent> batch;
        for (ConnectionEvent& e : lives.ended(r.events, r.read))
            if (admit(e)) batch.push_back(std::move(e));
        stats.written_polled(batch.size());
        return show(batch, EventSource::polling) && !past(start, o.duration);
    });
    if (o.trace.stats) stats.say(err, "life", "polling", std::nullopt);
    return 0;
}

struct EventCollector::State {
    std::unique_ptr<Tracer> tracer;
    mutable std::mutex mutex;
    EventMetrics metrics;
    std::atomic<bool> stop{false};
    std::atomic<bool> running{false}; ///< the thread follows the tracepoints
    std::thread thread;
};

EventCollector::EventCollector(const CommonOptions& common, const TraceOptions& trace,
                               std::ostream& err)
    : state_(std::make_unique<State>()) {
    std::string why;
    state_->tracer = open_tracer(trace, why);
    if (!state_->tracer) {
        err << "rdmastat: serve: --events: " << why << "; serving rdmastat_events_up 0\n";
        return;
    }
    State* s = state_.get();
    s->running = true;
    s->thread = std::thread([s, common, &err] {
        auto count = [s](ConnectionEvent& e) {
            std::lock_guard<std::mutex> lock(s->mutex);
            s->metrics.add(e);
            return false; // counted: nothing to emit
        };
        auto keep = [s](std::vector<ConnectionEvent>&) {
            const std::uint64_t lost = s->tracer->lost_recently().total();
            std::lock_guard<std::mutex> lock(s->mutex);
            s->metrics.set_lost(lost);
            return !s->stop.load();
        };
        // Whatever ends the thread, rdmastat_events_up says so from then on.
        try {
            trace_events(*s->tracer, common, 0, count, keep, err, "serve: --events", false);
        } catch (const std::exception& e) {
            err << "rdmastat: serve: --events: " << e.what() << "; serving rdmastat_events_up 0"
                << std::endl;
        } catch (...) {
            err << "rdmastat: serve: --events: stopped; serving rdmastat_events_up 0" << std::endl;
        }
        s->running = false;
    });
}

EventCollector::~EventCollector() {
    state_->stop = true;
    if (state_->thread.joinable()) state_->thread.join();
}

std::vector<MetricFamily> EventCollector::families() const {
    std::vector<MetricFamily> out;
    out.push_back(MetricFamily{"rdmastat_events_up",
                               "1 when serve --events follows the rdma_cma tracepoints",
                               MetricType::gauge,
                               {Sample{{}, state_->running ? 1.0 : 0.0}}});
    if (!state_->tracer) return out;
    std::lock_guard<std::mutex> lock(state_->mutex);
    for (MetricFamily& f : state_->metrics.families())
        out.push_back(std::move(f));
    return out;
}

} // namespace rdmastat
