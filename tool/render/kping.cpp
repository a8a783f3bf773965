// SPDX-License-Identifier: MIT
#include "render/kping.h"

#include "common/format.h"
#include "render/views.h"

#include <cstdio>
#include <cstring>

namespace rdmastat {

void write_kping_text(std::ostream& out, const std::vector<KpingRun>& runs) {
    if (runs.empty()) out << "no kping runs\n";
    for (const KpingRun& r : runs) {
        // A server names its own address and its client; a client, the server
        // it connects to (its peer once connected: the same address).
        out << "run " << r.id << ": ";
        if (r.server) {
            out << "server " << kping_address(r).to_string();
            if (r.peer) out << " <-> " << r.peer->to_string();
        } else {
            out << "client -> " << (r.peer ? *r.peer : kping_address(r)).to_string();
        }
        if (!r.device.empty()) out << " on " << r.device;
        out << ", " << name_of(r.mode) << " mode, " << name_of(r.mem) << ", " << name_of(r.state)
            << '\n';
        out << "  iters " << r.iters << "  count " << r.count << "  size " << r.size;
        if (r.mode == KpingMode::write_bw) out << "  depth " << r.depth;
        out << "  validate " << (r.validate ? "yes" : "no");
        if (r.timeout_ms) out << "  timeout " << fixed(*r.timeout_ms / 1000.0, 1) << " s";
        out << "  seconds " << fixed(kping_seconds(r), 3) << '\n';
        for (const KpingOps& c : kping_ops(r))
            out << "  " << c.name << ' ' << c.ops << " ops " << c.bytes << " bytes";
        out << '\n';
        if (r.mem != KpingMem::dma)
            out << "  reg_ops " << r.reg_ops << "  inv_ops " << r.inv_ops << "  remote_inv_ops "
                << r.remote_inv_ops << '\n';
        if (r.lat_sum_ns && r.iters) {
            out << "  latency_us";
            write_figures(out, kping_latency(r), 1);
            out << '\n';
        }
        if (r.error)
            out << "  error: " << r.error_msg << ": " << std::strerror(static_cast<int>(*r.error))
                << '\n';
    }
}

} // namespace rdmastat
