// SPDX-License-Identifier: MIT
#include "pipeline/follow.h"

#include "analysis/cm_trace.h"
#include "analysis/qp_trace.h"
#include "collect/cgroup.h"
#include "pipeline/device_feed.h"
#include "pipeline/pipeline.h"

namespace rdmastat {

void follow(TraceFeed& feed, Source& source, RunClock& clock, double duration,
            const FollowHandlers& h, DeviceFeed* devices) {
    // The feed is attached first, then the dump: an id made in between is in
    // both rather than in neither (its first record then tells whether it was
    // born since). A verbs QP's records from before the dump began are
    // already in it (CLOCK_MONOTONIC, the records' clock).
    auto now_ns = [&clock] {
        return static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(clock.now().time_since_epoch())
                .count());
    };
    const std::uint64_t seed_ns = now_ns();
    Collection seed = source.collect(Needs{});
    require(seed, Part::connections);
    // The ids born since the seed: their processes' containers and pods, for
    // the filters and the output, read once per process and round.
    CgroupCache cgroups;
    CmTracker tracker([&cgroups](Owner& o) { cgroups.fill(o); });
    tracker.seed(seed.snapshot);
    QpTracker qps([&cgroups](Owner& o) { cgroups.fill(o); });
    qps.seed(seed.snapshot, seed_ns);
    if (h.started) h.started();

    const auto start = clock.now();
    auto past = [&] {
        return duration > 0 &&
               std::chrono::duration<double>(clock.now() - start).count() >= duration;
    };
    // The kernel's CLOCK_MONOTONIC (the clock's steady time) to wall time,
    // taken anew each round.
    std::chrono::system_clock::duration offset{};
    std::uint64_t lost_noted = 0;
    std::vector<ConnectionEvent> batch;
    std::vector<std::uint64_t> batch_ns;
    TraceFeed::Sink sink = [&](Result<TraceEvent> record) {
        if (!record) {
            if (h.note) h.note(record.error());
            return;
        }
        // A device added since the seed: one more dump tells its transport.
        if (const std::string& device = record.value().connection.device;
            tracker.new_device(device))
            tracker.learn(source.collect(Needs{}).snapshot, device);
        const TraceEvent& r = record.value();
        auto take = [&](ConnectionEvent& e) {
            if (!h.admit(e)) return;
            batch.push_back(std::move(e));
            batch_ns.push_back(r.time_ns);
        };
        if (r.qp_change) {
            for (ConnectionEvent& e : qps.add(
                     r, tracker.transport_of(r.connection.device, r.connection.transport), offset))
                take(e);
            return;
        }
        // An id's QP is the id's, not a verbs connection.
        if (r.tracked && r.connection.qp) qps.claim(r.connection.device, r.connection.qp->number);
        if (std::optional<ConnectionEvent> e = tracker.add(r, offset)) take(*e);
    };
    std::uint64_t overruns_noted = 0;
    bool more = true, last = false;
    while (more && !last) {
        // A stop (signal, duration) still writes what the kernel queued
        // before it: the last round takes what is there without waiting.
        last = clock.stop_requested() || past();
        offset = clock.wall().time_since_epoch() -
                 std::chrono::duration_cast<std::chrono::system_clock::duration>(
                     clock.now().time_since_epoch());
        cgroups.forget();
        if (auto polled = feed.poll(!last, sink); !polled) throw Error(polled.error());
        if (devices)
            for (ConnectionEvent& e :
                 take_device_events(*devices, clock, h.note, h.note_lost, overruns_noted))
                if (h.admit(e)) {
                    batch.push_back(std::move(e));
                    batch_ns.push_back(now_ns());
                }
        more = h.emit(batch, batch_ns);
        batch.clear();
        batch_ns.clear();
        if (!h.note_lost || !h.note) continue;
        // The last round's count is exact: nothing is lost unsaid.
        if (TraceLost lost = last ? feed.lost() : feed.lost_recently(); lost.total() > lost_noted) {
            h.note(std::to_string(lost.total() - lost_noted) + " events lost (" +
                   std::to_string(lost.total()) + " in all: " + std::to_string(lost.full) +
                   " found the ring buffer full, " + std::to_string(lost.busy) +
                   " were skipped by the kernel, their program already running on that CPU)");
            lost_noted = lost.total();
        }
    }
}

} // namespace rdmastat
