// SPDX-License-Identifier: MIT
#include "analysis/ports.h"

#include <algorithm>
#include <sys/socket.h>

namespace rdmastat {

bool address_covers(const IpAddress& a_in, const IpAddress& b_in) {
    IpAddress a = unmapped(a_in), b = unmapped(b_in);
    if (!a.family || !b.family) return false;
    if (a.family == AF_INET6 && a.is_any()) return true;
    return a.family == b.family && (a.is_any() || a == b);
}

bool addresses_overlap(const IpAddress& a, const IpAddress& b) {
    return address_covers(a, b) || address_covers(b, a);
}

bool endpoints_overlap(const Endpoint& a, const Endpoint& b) {
    return a.port == b.port && addresses_overlap(a.address, b.address);
}

std::optional<Endpoint> wire_local(const Connection& c) {
    return c.mapped_local ? c.mapped_local : c.local;
}

const Device* find_device(const Snapshot& snap, const std::string& name) {
    for (const Device& d : snap.devices)
        if (d.name == name) return &d;
    return nullptr;
}

bool is_siw(const Device& d) {
    return d.driver == "siw";
}

} // namespace rdmastat
