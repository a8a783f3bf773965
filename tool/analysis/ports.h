// SPDX-License-Identifier: MIT
#pragma once

/// When two bound addresses claim the same TCP port: shared by attribution, lsof
/// and check, so "the same address" means one thing everywhere.

#include "model/address.h"
#include "model/model.h"

#include <optional>

namespace rdmastat {

/// Whether a socket bound to a and one bound to b would share a port's address
/// space, as Linux decides bind conflicts: equal addresses (IPv4-mapped IPv6 counts
/// as IPv4), or either one the any address of the same family, or either one the
/// IPv6 any address (a dual-stack bind, the Linux default, also covers IPv4).
/// An address of no family overlaps nothing.
bool addresses_overlap(const IpAddress& a, const IpAddress& b);

/// Whether a covers b: equal, or a is the any address of b's family, or a is the
/// IPv6 any address (dual-stack). What a wildcard listener catches.
bool address_covers(const IpAddress& a, const IpAddress& b);

/// Same port and addresses_overlap.
bool endpoints_overlap(const Endpoint& a, const Endpoint& b);

/// The endpoint of c on the wire: mapped_local when the source reported one (an
/// iWARP port mapper may move it), else local.
std::optional<Endpoint> wire_local(const Connection& c);

/// The device of snap named name, or nullptr.
const Device* find_device(const Snapshot& snap, const std::string& name);

/// Whether d is soft iWARP: driver "siw", which runs iWARP over the host's own
/// kernel TCP sockets. False when the driver is unknown.
bool is_siw(const Device& d);

} // namespace rdmastat
