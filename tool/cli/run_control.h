// SPDX-License-Identifier: MIT
#pragma once

/// What the long-running event commands (-E, life) share: stopping on SIGINT
/// and SIGTERM between rounds rather than dying in the middle of a line, a
/// wait that such a signal cuts short, and --stats.

#include "pipeline/poll.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <vector>

namespace rdmastat {

/// From now on SIGINT and SIGTERM set stop_requested() instead of killing.
void stop_on_signals();
bool stop_requested();

/// Sleeps until t, or until a signal asks to stop (checked every 100 ms).
void sleep_until_or_stop(std::chrono::steady_clock::time_point t);

/// The system's clocks, waiting with sleep_until_or_stop and stopping on
/// stop_requested(): what the polling loops run on.
class SystemRunClock final : public RunClock {
  public:
    std::chrono::steady_clock::time_point now() override {
        return std::chrono::steady_clock::now();
    }
    std::chrono::system_clock::time_point wall() override {
        return std::chrono::system_clock::now();
    }
    void wait_until(std::chrono::steady_clock::time_point t) override { sleep_until_or_stop(t); }
    bool stop_requested() override { return rdmastat::stop_requested(); }
};

/// --stats: what a run of -E or life cost, said once on stderr at its end.
class RunStats {
  public:
    RunStats();
    /// One event written; kernel_ns is its CLOCK_MONOTONIC time in the kernel
    /// (tracepoints), so the delay to now is the collector's.
    void written(std::uint64_t kernel_ns);
    /// Events written without a kernel time (polling).
    void written_polled(std::uint64_t n) { events_ += n; }
    /// "rdmastat: CONTEXT: stats: N events in S s (SOURCE), L lost; kernel to
    /// output p50 X ms, p99 Y ms, max Z ms; CPU U s user, K s system": the
    /// lost count only when given (polling loses nothing, it misses), the
    /// delays only when some event carried a kernel time.
    void say(std::ostream& err, const char* context, const char* source,
             std::optional<std::uint64_t> lost) const;

  private:
    std::chrono::steady_clock::time_point start_;
    std::uint64_t events_ = 0;
    std::vector<std::uint32_t> delays_us_;
};

} // namespace rdmastat
