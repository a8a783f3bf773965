// SPDX-License-Identifier: MIT
// `rdmastat -E` from the kernel's rdma_cma tracepoints. One NLDEV dump seeds
// what is known of the ids that already exist; from then on every tracepoint
// hit is a line, so an id that lives for milliseconds, a rejected connect and
// the reason for it are all seen, which polling cannot do.
#include "analysis/cm_trace.h"
#include "cli/commands.h"
#include "cli/monitor.h"
#include "render/monitor.h"
#include "render/output.h"
#include "trace/decode.h"
#include "trace/tracer.h"

#include <csignal>
#include <iomanip>

namespace rdmastat {
namespace {

volatile std::sig_atomic_t stop_requested = 0;

void request_stop(int) {
    stop_requested = 1;
}

// CLOCK_MONOTONIC (the kernel's bpf_ktime_get_ns, steady_clock here) to wall time.
std::chrono::system_clock::duration monotonic_to_wall() {
    return std::chrono::system_clock::now().time_since_epoch() -
           std::chrono::duration_cast<std::chrono::system_clock::duration>(
               std::chrono::steady_clock::now().time_since_epoch());
}

} // namespace

std::optional<int> run_traced_events(const MonitorOptions& o, const CommonOptions& common,
                                     const Selection& sel, const Filter& filter, std::ostream& out,
                                     std::ostream& err) {
    std::optional<std::string> why = tracepoints_unavailable();
    std::unique_ptr<Tracer> tracer;
    if (!why) {
        auto opened = Tracer::open({});
        if (opened)
            tracer = std::move(opened.value());
        else
            why = opened.error();
    }
    if (why) {
        err << "rdmastat: -E: " << *why << "; polling every " << o.interval
            << " s instead (short-lived ids and reject reasons are not seen)\n";
        return std::nullopt;
    }
    if (!tracer->missing().empty())
        err << "rdmastat: -E: this kernel hides " << tracer->missing() << '\n';
    const Output output = output_of(common).take();
    // Attached first, then the dump: an id made in between is in both, which
    // costs nothing, rather than in neither.
    Collection seed = collect(common);
    require(seed, Part::connections);
    CmTracker tracker;
    tracker.seed(seed.snapshot);

    struct sigaction sa {};
    sa.sa_handler = request_stop;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);

    unsigned shown = 0;
    std::uint64_t lost_reported = 0;
    bool done = false;
    std::vector<ConnectionEvent> batch;
    auto offset = monotonic_to_wall();
    Tracer::Sink sink = [&](const void* data, std::size_t size) {
        if (done) return;
        auto decoded = decode_trace_record(data, size);
        if (!decoded) {
            err << "rdmastat: -E: " << decoded.error() << '\n';
            return;
        }
        std::optional<ConnectionEvent> e = tracker.add(decoded.value(), offset);
        if (!e || !selected(e->connection, sel, filter)) return;
        batch.push_back(std::move(*e));
        if (o.count && ++shown >= o.count) done = true;
    };
    while (!done && !stop_requested) {
        offset = monotonic_to_wall();
        auto polled = tracer->poll(200, sink);
        if (!polled) throw Error(polled.error());
        emit_events(out, output, batch, std::chrono::system_clock::now(), EventSource::tracepoints);
        batch.clear();
        out.flush();
        if (std::uint64_t lost = tracer->lost(); lost > lost_reported) {
            err << "rdmastat: -E: " << lost - lost_reported
                << " events lost: the ring buffer was full (" << lost << " in all)\n";
            lost_reported = lost;
        }
    }
    return 0;
}

} // namespace rdmastat
