// SPDX-License-Identifier: MIT
// `rdmastat -E`, `rdmastat life` and `serve --events` from the kernel's
// rdma_cma tracepoints (pipeline/follow.h), or by polling where they cannot be
// used.
#include "analysis/event_metrics.h"
#include "cli/commands.h"
#include "cli/monitor.h"
#include "cli/run_control.h"
#include "cli/say.h"
#include "pipeline/follow.h"
#include "render/monitor.h"
#include "render/output.h"
#include "trace/decode.h"
#include "trace/tracer.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <iomanip>
#include <mutex>
#include <sstream>
#include <sys/socket.h>
#include <thread>

namespace rdmastat {
namespace {

using Clock = std::chrono::steady_clock;

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

// The tracer's records, decoded, for pipeline/follow.h.
class TracerFeed final : public TraceFeed {
  public:
    explicit TracerFeed(Tracer& tracer) : tracer_(tracer) {}
    Status poll(bool wait, const Sink& sink) override {
        auto polled =
            tracer_.poll(wait ? Tracer::poll_ms : 0, [&](const void* data, std::size_t n) {
                sink(decode_trace_record(data, n));
            });
        if (!polled) return polled.failure();
        return Ok{};
    }
    TraceLost lost() override { return tracer_.lost(); }
    TraceLost lost_recently() override { return tracer_.lost_recently(); }

  private:
    Tracer& tracer_;
};

// Follows the tracer (pipeline/follow.h), and devices when given, seeding
// from the options' source; its notes go to err under context, and stats,
// when given, hears of each event emitted.
void trace_events(Tracer& tracer, DeviceFeed* devices, const CommonOptions& common, double duration,
                  const std::function<bool(ConnectionEvent&)>& admit,
                  const std::function<bool(std::vector<ConnectionEvent>&)>& emit, std::ostream& err,
                  const char* context, bool own_signals = true, RunStats* stats = nullptr) {
    if (!tracer.missing().empty()) say(err, context, "this kernel hides ", tracer.missing());
    TracerFeed feed(tracer);
    SystemRunClock clock;
    FollowHandlers h;
    h.admit = admit;
    h.emit = [&](std::vector<ConnectionEvent>& batch, const std::vector<std::uint64_t>& ns) {
        const bool more = emit(batch);
        if (stats)
            for (std::uint64_t t : ns)
                stats->written(t);
        return more;
    };
    h.note = [&](const std::string& line) { say(err, context, line); };
    h.note_lost = own_signals;
    // Every program is attached and the seed read: what happens from here on
    // is reported, and the user (or a script) can start the workload.
    h.started = [&] {
        if (own_signals) stop_on_signals();
        say(err, context, "ready: tracing; what happens from now on is reported");
    };
    follow(feed, *options_source(common), clock, duration, h, devices);
}

// --stats: whether second programs were loaded, and the programs' kernel
// time per run, when the kernel counts it.
void say_programs(std::ostream& err, const char* context, const Tracer& tracer) {
    say(err, context, "stats: ", tracer.preemption());
    const auto costs = tracer.costs();
    if (!costs) return;
    auto group = [](std::ostream& out, const char* name, const Tracer::Cost& c) {
        out << name << ' ' << c.runs << " runs, "
            << (c.runs ? static_cast<double>(c.ns) / static_cast<double>(c.runs) / 1000.0 : 0.0)
            << " us a run";
    };
    std::ostringstream line;
    line << std::fixed << std::setprecision(3) << "stats: programs in the kernel: ";
    group(line, "rdma_cm", costs->cm);
    line << "; ";
    group(line, "QP", costs->qp);
    say(err, context, line.str());
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
        say(err, "-E", why, "; polling every ", o.interval,
            " s instead (short-lived ids and reject reasons are not seen)");
        return std::nullopt;
    }
    const std::unique_ptr<DeviceFeed> devices =
        device_feed(err, "-E", "; device and netdev changes are not reported");
    const auto w = writer_for(output_of(common).take());
    unsigned shown = 0;
    auto admit = [&](ConnectionEvent& e) {
        if (o.count && shown >= o.count) return false;
        // A device event names no connection for the filter to judge.
        if (!e.device_event && !selected(e.connection, sel, filter)) return false;
        ++shown;
        return true;
    };
    auto emit = [&](std::vector<ConnectionEvent>& batch) {
        w->events(out, batch, std::chrono::system_clock::now(), EventSource::tracepoints);
        out.flush();
        return !o.count || shown < o.count;
    };
    RunStats stats;
    trace_events(*tracer, devices.get(), common, o.duration, admit, emit, err, "-E", true,
                 o.trace.stats ? &stats : nullptr);
    if (o.trace.stats) {
        stats.say(err, "-E", "tracepoints", tracer->lost().total());
        say_programs(err, "-E", *tracer);
    }
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
                *tracer, nullptr, o, o.duration, admit,
                [&](std::vector<ConnectionEvent>& b) { return show(b, EventSource::tracepoints); },
                err, "life", true, o.trace.stats ? &stats : nullptr);
            if (o.trace.stats) {
                stats.say(err, "life", "tracepoints", tracer->lost().total());
                say_programs(err, "life", *tracer);
            }
            return 0;
        }
        say(err, "life", why, "; polling every ", o.interval,
            " s instead (lifetimes to the poll's resolution, no handshake or reasons, and "
            "shorter connections not seen)");
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
    std::unique_ptr<DeviceFeed> devices;
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
        say(err, "serve: --events", why, "; serving rdmastat_events_up 0");
        return;
    }
    state_->devices = device_feed(err, "serve: --events", "; serving rdmastat_device_events_up 0");
    State* s = state_.get();
    s->running = true;
    s->thread = std::thread([s, common, &err] {
        auto count = [s](ConnectionEvent& e) {
            std::lock_guard<std::mutex> lock(s->mutex);
            s->metrics.add(e);
            return false; // counted: nothing to emit
        };
        auto keep = [s](std::vector<ConnectionEvent>&) {
            const TraceLost lost = s->tracer->lost_recently();
            std::lock_guard<std::mutex> lock(s->mutex);
            s->metrics.set_lost(lost);
            if (s->devices) s->metrics.set_overruns(s->devices->overruns());
            return !s->stop.load();
        };
        // Whatever ends the thread, rdmastat_events_up says so from then on.
        try {
            trace_events(*s->tracer, s->devices.get(), common, 0, count, keep, err,
                         "serve: --events", false);
        } catch (const std::exception& e) {
            say(err, "serve: --events", e.what(), "; serving rdmastat_events_up 0");
        } catch (...) {
            say(err, "serve: --events", "stopped; serving rdmastat_events_up 0");
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
    out.push_back(MetricFamily{
        "rdmastat_device_events_up",
        "1 when serve --events follows RDMA netlink's device events",
        MetricType::gauge,
        {Sample{{}, state_->running && state_->devices && state_->devices->up() ? 1.0 : 0.0}}});
    if (!state_->tracer) return out;
    std::lock_guard<std::mutex> lock(state_->mutex);
    for (MetricFamily& f : state_->metrics.families())
        out.push_back(std::move(f));
    return out;
}

} // namespace rdmastat
