// SPDX-License-Identifier: MIT
#include "render/kping.h"

#include "common/format.h"
#include "render/json_writer.h"

#include <cstdio>
#include <cstring>

namespace rdmastat {
namespace {

double us(std::uint64_t ns) {
    return static_cast<double>(ns) / 1e3;
}

struct OpCount {
    const char* name;
    std::uint64_t ops, bytes;
};

std::vector<OpCount> counters(const KpingRun& r) {
    return {{"send", r.send_ops, r.send_bytes},
            {"recv", r.recv_ops, r.recv_bytes},
            {"write", r.write_ops, r.write_bytes},
            {"read", r.read_ops, r.read_bytes}};
}

Endpoint where(const KpingRun& r) {
    return Endpoint{r.address, r.port};
}

double seconds(const KpingRun& r) {
    return r.elapsed_ns ? static_cast<double>(*r.elapsed_ns) / 1e9 : 0;
}

} // namespace

template <typename V> void describe(const KpingRun& r, V&& v) {
    using schema::members;
    using schema::Presence;
    v("id", r.id, Presence::required);
    v("role", r.server ? "server" : "client", Presence::required);
    v("mode", name_of(r.mode), Presence::required);
    v("mem", name_of(r.mem), Presence::required);
    v("state", name_of(r.state), Presence::required);
    v("address", where(r), Presence::required);
    v("count", r.count, Presence::required);
    v("size", r.size, Presence::required);
    v("depth", r.depth, Presence::required);
    v("validate", r.validate, Presence::required);
    v("timeout_ms", r.timeout_ms, Presence::optional);
    v("peer", r.peer, Presence::optional);
    if (!r.device.empty()) v("device", r.device, Presence::required);
    v("iters", r.iters, Presence::required);
    for (const OpCount& c : counters(r))
        v(c.name, members([&](auto& op) {
              op("ops", c.ops, Presence::required);
              op("bytes", c.bytes, Presence::required);
          }),
          Presence::required);
    v("reg_ops", r.reg_ops, Presence::required);
    v("inv_ops", r.inv_ops, Presence::required);
    v("remote_inv_ops", r.remote_inv_ops, Presence::required);
    if (r.lat_sum_ns && r.iters)
        v("latency_us", members([&](auto& lat) {
              lat("min", us(r.lat_min_ns.value_or(0)), Presence::required);
              lat("mean", us(*r.lat_sum_ns / r.iters), Presence::required);
              lat("max", us(r.lat_max_ns.value_or(0)), Presence::required);
          }),
          Presence::required);
    v("seconds", seconds(r), Presence::required);
    if (r.error)
        v("error", members([&](auto& err) {
              err("errno", *r.error, Presence::required);
              err("message", r.error_msg, Presence::required);
          }),
          Presence::required);
}

void write_kping_text(std::ostream& out, const std::vector<KpingRun>& runs) {
    if (runs.empty()) out << "no kping runs\n";
    for (const KpingRun& r : runs) {
        // A server names its own address and its client; a client, the server
        // it connects to (its peer once connected: the same address).
        out << "run " << r.id << ": ";
        if (r.server) {
            out << "server " << where(r).to_string();
            if (r.peer) out << " <-> " << r.peer->to_string();
        } else {
            out << "client -> " << (r.peer ? *r.peer : where(r)).to_string();
        }
        if (!r.device.empty()) out << " on " << r.device;
        out << ", " << name_of(r.mode) << " mode, " << name_of(r.mem) << ", " << name_of(r.state)
            << '\n';
        out << "  iters " << r.iters << "  count " << r.count << "  size " << r.size;
        if (r.mode == KpingMode::write_bw) out << "  depth " << r.depth;
        out << "  validate " << (r.validate ? "yes" : "no");
        if (r.timeout_ms) out << "  timeout " << fixed(*r.timeout_ms / 1000.0, 1) << " s";
        out << "  seconds " << fixed(seconds(r), 3) << '\n';
        for (const OpCount& c : counters(r))
            out << "  " << c.name << ' ' << c.ops << " ops " << c.bytes << " bytes";
        out << '\n';
        if (r.mem != KpingMem::dma)
            out << "  reg_ops " << r.reg_ops << "  inv_ops " << r.inv_ops << "  remote_inv_ops "
                << r.remote_inv_ops << '\n';
        if (r.lat_sum_ns && r.iters)
            out << "  latency_us  min " << fixed(us(r.lat_min_ns.value_or(0)), 1) << "  mean "
                << fixed(us(*r.lat_sum_ns / r.iters), 1) << "  max "
                << fixed(us(r.lat_max_ns.value_or(0)), 1) << '\n';
        if (r.error)
            out << "  error: " << r.error_msg << ": " << std::strerror(static_cast<int>(*r.error))
                << '\n';
    }
}

void write_kping_json(std::ostream& out, const std::vector<KpingRun>& runs, bool pretty) {
    write_json(out, schema::members([&](auto& v) {
                   v("version", 1, schema::Presence::required);
                   v("runs", runs, schema::Presence::required);
               }),
               pretty);
}

void write_kping_run_json(std::ostream& out, const KpingRun& run, bool pretty) {
    write_json(out, run, pretty);
}

} // namespace rdmastat
