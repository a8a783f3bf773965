// SPDX-License-Identifier: MIT
#pragma once

/// What a ping run measured, and the bounded-memory latency histogram behind
/// its percentiles. Pure: no clocks are read here.

#include "ping/wire.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace rdmastat::ping {

/// Latencies in nanoseconds, log-linear buckets: 128 per power of two, so a
/// percentile is within 1% of the exact sample (min and max are exact). Memory
/// is fixed whatever the run's length.
class Histogram {
  public:
    void add(std::uint64_t ns);
    std::uint64_t count() const { return count_; }
    std::uint64_t min() const { return count_ ? min_ : 0; }
    std::uint64_t max() const { return max_; }
    double mean() const { return count_ ? static_cast<double>(sum_) / count_ : 0; }
    /// The q-quantile (0 < q <= 1): the bucket holding the ceil(q*count)-th
    /// smallest sample, reported as that bucket's upper bound clamped to
    /// [min, max]; 0 when empty.
    std::uint64_t quantile(double q) const;

  private:
    static constexpr int sub_bits = 7;
    static constexpr int buckets = (64 - sub_bits + 1) << sub_bits;
    static int index(std::uint64_t v);
    static std::uint64_t upper(int index);
    std::array<std::uint64_t, buckets> counts_{};
    std::uint64_t count_ = 0, sum_ = 0, min_ = UINT64_MAX, max_ = 0;
};

/// Round-trip latency summary, microseconds.
struct LatencySummary {
    double min = 0, p50 = 0, p99 = 0, max = 0, mean = 0;
};
LatencySummary summarize(const Histogram& h);

struct Endpoint {
    std::string address;
    std::uint16_t port = 0;
};

/// One connection's outcome, client or server side.
struct PingResult {
    Mode mode = Mode::rping;
    bool server = false;
    std::string device; ///< empty before the route is resolved
    Endpoint local, peer;
    std::optional<std::uint32_t> qp; ///< the local QP number once created
    std::uint32_t size = 0;          ///< bytes per ping / per RDMA WRITE
    std::uint64_t completed = 0;     ///< pings, round trips or writes done
    std::uint64_t bytes = 0;         ///< payload bytes moved by this side's operations
    double seconds = 0;              ///< from the first operation to the last completion
    bool validate = false;           ///< -V was asked (and every completed ping matched)
    std::uint32_t depth = 0;         ///< outstanding writes (bw mode)
    std::optional<LatencySummary> latency;
    bool interrupted = false;         ///< ended by SIGINT/SIGTERM
    std::optional<std::string> error; ///< what ended it, when not a clean end
};

} // namespace rdmastat::ping
