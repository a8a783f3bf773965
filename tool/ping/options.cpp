// SPDX-License-Identifier: MIT
#include "ping/ping.h"

namespace rdmastat::ping {

std::uint32_t effective_size(const PingOptions& o) {
    if (o.size) return *o.size;
    return o.server ? default_server_size : default_size;
}

std::uint64_t effective_count(const PingOptions& o) {
    if (o.count) return *o.count;
    if (o.duration) return 0;
    switch (o.mode) {
    case Mode::lat:
        return default_lat_count;
    case Mode::bw:
        return default_bw_count;
    case Mode::rping:
        break;
    }
    return 0; // rping pings until stopped
}

Status check_options(const PingOptions& o) {
    const std::uint32_t size = effective_size(o);
    // rping takes -I on a server and -P on a client and does nothing with
    // them; so does this (ignored_options() says so).
    if (o.server) {
        if (o.duration) return Failure{"--duration applies to the client (-c) only"};
        if (o.mode != Mode::rping)
            return Failure{"--lat and --bw are chosen by the client; the server follows it"};
    } else {
        if (o.address.empty()) return Failure{"the client needs the server's address (-a)"};
    }
    if (o.mode == Mode::rping && (size < rping_min_size || size > max_buffer))
        return Failure{"-S " + std::to_string(size) + ": rping mode needs " +
                       std::to_string(rping_min_size) + " to " + std::to_string(max_buffer) +
                       " bytes (rping itself takes at most " + std::to_string(rping_max_size) +
                       ")"};
    if (o.mode != Mode::rping && (size < 1 || size > max_buffer))
        return Failure{"-S " + std::to_string(size) + ": needs 1 to " + std::to_string(max_buffer) +
                       " bytes"};
    if (o.depth < 1 || o.depth > 4096) return Failure{"--depth needs 1 to 4096"};
    if (o.duration && !(*o.duration > 0)) return Failure{"--duration needs a positive number"};
    if (o.timeout_ms < 1) return Failure{"--timeout needs a positive number of milliseconds"};
    return Ok{};
}

std::vector<std::string> ignored_options(const PingOptions& o) {
    std::vector<std::string> out;
    if (o.server && !o.source.empty())
        out.push_back("-I applies to a client: ignored, as rping does");
    if (!o.server && o.persistent) out.push_back("-P applies to a server: ignored, as rping does");
    return out;
}

} // namespace rdmastat::ping
