// SPDX-License-Identifier: MIT
#pragma once

/// How `rdmastat kping` shows runs: text blocks and JSON with the same key names
/// (documented in rdmastat-kping(8)).

#include "model/kping.h"

#include <ostream>
#include <vector>

namespace rdmastat {

/// One block per run: its identity and state, its counters, its latency and its
/// error; "no kping runs" when there are none.
void write_kping_text(std::ostream& out, const std::vector<KpingRun>& runs);

/// What text and JSON show of a run: its address, its operations' counts,
/// its seconds (0 before it measured any), a time in microseconds.
inline Endpoint kping_address(const KpingRun& r) {
    return Endpoint{r.address, r.port};
}
struct KpingOps {
    const char* name;
    std::uint64_t ops, bytes;
};
inline std::vector<KpingOps> kping_ops(const KpingRun& r) {
    return {{"send", r.send_ops, r.send_bytes},
            {"recv", r.recv_ops, r.recv_bytes},
            {"write", r.write_ops, r.write_bytes},
            {"read", r.read_ops, r.read_bytes}};
}
inline double kping_seconds(const KpingRun& r) {
    return r.elapsed_ns ? static_cast<double>(*r.elapsed_ns) / 1e9 : 0;
}
inline double kping_us(std::uint64_t ns) {
    return static_cast<double>(ns) / 1e3;
}

} // namespace rdmastat
