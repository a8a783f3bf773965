// SPDX-License-Identifier: MIT
#include "pipeline/poll.h"

#include "pipeline/pipeline.h"

#include <optional>
#include <utility>

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

} // namespace

void poll(Source& source, RunClock& clock, const PollPlan& plan,
          const std::function<bool(const PollRound&)>& on_round) {
    std::optional<Snapshot> previous;
    std::vector<Connection> previous_selected;
    const Clock::time_point start = clock.now();
    Clock::time_point last_read{};
    for (unsigned round = 0; plan.count == 0 || round < plan.count; ++round) {
        if (round)
            clock.wait_until(start + std::chrono::duration_cast<Clock::duration>(
                                         std::chrono::duration<double>(plan.interval * round)));
        if (clock.stop_requested()) break;
        if (plan.duration > 0 &&
            std::chrono::duration<double>(clock.now() - start).count() >= plan.duration)
            break;
        PollRound r;
        r.index = round;
        r.collection = source.collect(plan.needs);
        require(r.collection, Part::connections);
        r.read = clock.now();
        r.wall = clock.wall();
        r.selected = select(r.collection.snapshot, plan.selection, plan.filter);
        std::vector<Connection> selected = copies(r.selected);
        if (previous) {
            r.events = diff_connections(previous_selected, selected);
            r.previous = &*previous;
            r.elapsed = std::chrono::duration<double>(r.read - last_read).count();
        }
        if (!on_round(r)) break;
        previous = std::move(r.collection.snapshot);
        previous_selected = std::move(selected);
        last_read = r.read;
    }
}

} // namespace rdmastat
