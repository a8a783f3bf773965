// SPDX-License-Identifier: MIT
#include "render/kping.h"

#include "common/format.h"
#include "render/json_common.h"

#include <cstdio>
#include <cstring>

namespace rdmastat {
namespace {

using json_common::json;

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

json run_json(const KpingRun& r) {
    json j{{"id", r.id},
           {"role", r.server ? "server" : "client"},
           {"mode", kping_mode_name(r.mode)},
           {"mem", kping_mem_name(r.mem)},
           {"state", kping_state_name(r.state)},
           {"address", json_common::endpoint(where(r))},
           {"count", r.count},
           {"size", r.size},
           {"depth", r.depth},
           {"validate", r.validate}};
    if (r.timeout_ms) j["timeout_ms"] = *r.timeout_ms;
    if (r.peer) j["peer"] = json_common::endpoint(*r.peer);
    if (!r.device.empty()) j["device"] = r.device;
    j["iters"] = r.iters;
    for (const OpCount& c : counters(r))
        j[c.name] = {{"ops", c.ops}, {"bytes", c.bytes}};
    j["reg_ops"] = r.reg_ops;
    j["inv_ops"] = r.inv_ops;
    j["remote_inv_ops"] = r.remote_inv_ops;
    if (r.lat_sum_ns && r.iters)
        j["latency_us"] = {{"min", us(r.lat_min_ns.value_or(0))},
                           {"mean", us(*r.lat_sum_ns / r.iters)},
                           {"max", us(r.lat_max_ns.value_or(0))}};
    j["seconds"] = seconds(r);
    if (r.error) j["error"] = {{"errno", *r.error}, {"message", r.error_msg}};
    return j;
}

} // namespace

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
        out << ", " << kping_mode_name(r.mode) << " mode, " << kping_mem_name(r.mem) << ", "
            << kping_state_name(r.state) << '\n';
        out << "  iters " << r.iters << "  count " << r.count << "  size " << r.size;
        if (r.mode == 2) out << "  depth " << r.depth; // RDMASTAT_KPING_MODE_WRITE_BW
        out << "  validate " << (r.validate ? "yes" : "no");
        if (r.timeout_ms) out << "  timeout " << fixed(*r.timeout_ms / 1000.0, 1) << " s";
        out << "  seconds " << fixed(seconds(r), 3) << '\n';
        for (const OpCount& c : counters(r))
            out << "  " << c.name << ' ' << c.ops << " ops " << c.bytes << " bytes";
        out << '\n';
        if (r.mem != 0)
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
    json list = json::array();
    for (const KpingRun& r : runs)
        list.push_back(run_json(r));
    json_common::emit(out, json{{"version", 1}, {"runs", list}}, pretty);
}

void write_kping_run_json(std::ostream& out, const KpingRun& run, bool pretty) {
    json_common::emit(out, run_json(run), pretty);
}

} // namespace rdmastat
