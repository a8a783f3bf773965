// SPDX-License-Identifier: MIT
#pragma once

/// How `rdmastat ping` reports a connection's end (text and JSON with the same
/// key names; the JSON is documented in rdmastat(8)) and its live progress line.

#include "ping/stats.h"

#include <ostream>
#include <string>

namespace rdmastat {

/// Three lines at most: who talked to whom, the counts, and latency or
/// bandwidth when measured. An error or interruption is said in the first line.
void write_ping_text(std::ostream& out, const ping::PingResult& r);

/// The progress line a client rewrites in place on a terminal (no newline).
std::string ping_progress_line(const ping::PingResult& r);

/// Bandwidth of r: gigabits and mebibytes per second, operations per second
/// (all 0 when no time passed).
struct Rates {
    double gbit_per_s = 0, mib_per_s = 0, ops_per_s = 0;
};
Rates ping_rates(const ping::PingResult& r);

} // namespace rdmastat
