// SPDX-License-Identifier: MIT
#include "render/ping.h"

#include "common/format.h"
#include "render/views.h"

#include <cstdio>

namespace rdmastat {
namespace {
using ping::Mode;

std::string where(const ping::Endpoint& e) {
    return e.address.empty() ? "?" : e.address + " port " + std::to_string(e.port);
}

} // namespace

Rates ping_rates(const ping::PingResult& r) {
    if (r.seconds <= 0) return {};
    return Rates{static_cast<double>(r.bytes) * 8 / r.seconds / 1e9,
                 static_cast<double>(r.bytes) / r.seconds / (1024.0 * 1024.0),
                 static_cast<double>(r.completed) / r.seconds};
}

void write_ping_text(std::ostream& out, const ping::PingResult& r) {
    out << (r.server ? "server " : "client ") << where(r.local) << " -> " << where(r.peer);
    if (!r.device.empty()) out << " on " << r.device;
    if (r.qp) out << " QP " << *r.qp;
    out << ", " << ping::mode_name(r.mode) << " mode";
    if (r.error)
        out << ": error: " << *r.error;
    else if (r.interrupted)
        out << ": interrupted";
    out << '\n';
    // A bw server sees writes land without completions: only the client counts.
    const bool counted = !(r.server && r.mode == Mode::bw);
    if (counted) out << "completed " << r.completed << "  ";
    out << "size " << r.size;
    if (counted) out << "  bytes " << r.bytes;
    out << "  seconds " << fixed(r.seconds, 3);
    if (r.depth) out << "  depth " << r.depth;
    if (!r.server && r.mode != Mode::bw) out << "  validated " << (r.validate ? "yes" : "no");
    if (!counted) out << "  (the client counts the writes)";
    out << '\n';
    if (r.latency) {
        out << "latency_us";
        write_figures(out, *r.latency, 1);
        out << '\n';
    }
    if (r.mode == Mode::bw && !r.server) {
        Rates b = ping_rates(r);
        out << "bandwidth  gbit_per_s " << fixed(b.gbit_per_s, 3) << "  mib_per_s "
            << fixed(b.mib_per_s, 1) << "  ops_per_s " << fixed(b.ops_per_s, 0) << '\n';
    }
}

namespace ping {



} // namespace ping

std::string ping_progress_line(const ping::PingResult& r) {
    std::string s = "completed " + std::to_string(r.completed) + "  seconds " + fixed(r.seconds, 0);
    if (r.mode == Mode::bw) {
        Rates b = ping_rates(r);
        s += "  gbit_per_s " + fixed(b.gbit_per_s, 3);
    } else if (r.latency) {
        s += "  p50_us " + fixed(r.latency->p50, 1) + "  p99_us " + fixed(r.latency->p99, 1);
    }
    return s;
}

} // namespace rdmastat
