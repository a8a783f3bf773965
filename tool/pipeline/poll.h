// SPDX-License-Identifier: MIT
#pragma once

/// The loop of the commands that poll: -w, and -E and life where the
/// tracepoints cannot be used. The kernel sends no netlink notification when a
/// cm_id is created or destroyed, so these collect on a fixed schedule and
/// compare each round's selected connections with the previous round's. Time
/// and stopping come from a RunClock, so that a test drives the loop with a
/// fake clock and a fake Source.

#include "analysis/diff.h"
#include "analysis/filter.h"
#include "analysis/select.h"
#include "pipeline/source.h"

#include <chrono>
#include <functional>
#include <vector>

namespace rdmastat {

/// Time, waiting and stopping for a run that repeats. cli's implementation is
/// the system's clocks and SIGINT/SIGTERM (cli/run_control.h).
class RunClock {
  public:
    virtual ~RunClock() = default;
    virtual std::chrono::steady_clock::time_point now() = 0;
    /// The wall-clock time rounds are stamped with.
    virtual std::chrono::system_clock::time_point wall() = 0;
    /// Waits until t, or less when the run is asked to stop.
    virtual void wait_until(std::chrono::steady_clock::time_point t) = 0;
    /// Whether the run has been asked to stop.
    virtual bool stop_requested() = 0;
};

/// What to poll, how often and for how long.
struct PollPlan {
    /// Seconds from one round's start to the next: a fixed schedule (start + n *
    /// interval), so a slow round does not stretch the period.
    double interval = 1;
    unsigned count = 0;  ///< rounds, then stop (0: no limit)
    double duration = 0; ///< seconds after the start past which no round begins (0: no limit)
    Needs needs;         ///< what each collection reads beyond devices and cm_ids
    Selection selection; ///< the connections compared: as the listing selects them
    Filter filter;
};

/// One round, handed to the command.
struct PollRound {
    unsigned index = 0; ///< 0 for the first
    Collection collection;
    /// collection's connections that plan's selection and filter admit.
    std::vector<const Connection*> selected;
    /// Against the previous round's selection (diff_connections); none in the first round.
    std::vector<ConnectionEvent> events;
    const Snapshot* previous = nullptr; ///< the previous round's snapshot; none in the first
    std::chrono::steady_clock::time_point read;  ///< when the collection ended
    std::chrono::system_clock::time_point wall;  ///< the same on the wall clock
    double elapsed = 0; ///< seconds since the previous round's collection ended (0 in the first)
};

/// Runs plan's rounds from source, handing each to on_round, until plan's count
/// or duration, a stop request (checked before each round) or on_round
/// returning false. Every round needs its connections: a collection that failed
/// to read them throws Error (pipeline.h's require); its other failures are in
/// the round's collection.
void poll(Source& source, RunClock& clock, const PollPlan& plan,
          const std::function<bool(const PollRound&)>& on_round);

} // namespace rdmastat
