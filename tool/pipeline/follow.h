// SPDX-License-Identifier: MIT
#pragma once

/// The loop of the commands that follow the kernel's rdma_cma tracepoints: -E,
/// life and serve --events. One collection seeds what is known of the ids that
/// already exist; from then on every record is an event, so an id that lives
/// for milliseconds, a rejected connect and the reason for it are all seen,
/// which polling cannot do. The records come through a TraceFeed (cli adapts
/// trace/tracer.h's Tracer), time and stopping from a RunClock, the seed from
/// a Source: a test drives the loop with fakes of all three.

#include "analysis/diff.h"
#include "common/error.h"
#include "model/cm_event.h"
#include "pipeline/poll.h"
#include "pipeline/source.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace rdmastat {

/// Decoded tracepoint records, as they come.
class TraceFeed {
  public:
    using Sink = std::function<void(Result<TraceEvent> record)>;

    virtual ~TraceFeed() = default;
    /// Hands sink the records that come within the feed's own period (the
    /// tracer's poll_ms), or with wait false those already queued, each
    /// decoded or the reason it could not be. A failure of the feed itself is
    /// returned.
    virtual Status poll(bool wait, const Sink& sink) = 0;
    /// Every loss since the start; lost_recently() may be up to a few hundred
    /// ms old, and is what a loop asks each round.
    virtual TraceLost lost() = 0;
    virtual TraceLost lost_recently() = 0;
};

/// RDMA netlink's monitor messages (collect/nldev_monitor.h), as they come.
class DeviceFeed {
  public:
    using Sink = std::function<void(Result<DeviceEvent> message)>;

    virtual ~DeviceFeed() = default;
    /// Hands sink the messages queued now, without waiting; a failure of the
    /// feed itself is returned, and the feed is down from then on.
    virtual Status poll(const Sink& sink) = 0;
    /// Whether the feed still reads (any thread may ask).
    virtual bool up() const = 0;
    /// How many times since the start the kernel dropped messages (one or
    /// more each time) because the reader fell behind.
    virtual std::uint64_t overruns() = 0;
};

/// What the loop does with what it hears.
struct FollowHandlers {
    /// Takes (and may change) each event; false leaves it out.
    std::function<bool(ConnectionEvent&)> admit;
    /// One round's admitted events, in order, each with its kernel time
    /// (CLOCK_MONOTONIC ns); false ends the run after this round.
    std::function<bool(std::vector<ConnectionEvent>&, const std::vector<std::uint64_t>&)> emit;
    /// A line for the user: a record that did not decode, and, when set,
    /// events lost since the last such line.
    std::function<void(const std::string&)> note;
    bool note_lost = true;
    /// Called once the seed is read, before the first poll: where a command
    /// starts taking SIGINT as a request to stop (a signal during the seed
    /// still ends it at once).
    std::function<void()> started;
};

/// Seeds from source (its connections required: Error when they fail), then
/// follows feed, and devices when given, until the clock asks to stop,
/// duration seconds pass (0: no limit) or emit says stop. A stop still emits
/// what the kernel queued before it, and the last round's lost count is exact.
/// Each round's device events (kind device, timed when read) follow its
/// tracepoint records.
void follow(TraceFeed& feed, Source& source, RunClock& clock, double duration,
            const FollowHandlers& handlers, DeviceFeed* devices = nullptr);

} // namespace rdmastat
