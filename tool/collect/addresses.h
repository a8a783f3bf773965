// SPDX-License-Identifier: MIT
#pragma once

/// The IP addresses of the host's network devices, by device name: which
/// addresses an RDMA port answers on (Port::addresses, the fabric view).

#include "common/error.h"
#include "model/address.h"

#include <map>
#include <string>
#include <vector>

namespace rdmastat {

/// Netdev name → its IPv4 and IPv6 addresses, each list sorted and without
/// duplicates. Devices without an address are absent.
using NetdevAddresses = std::map<std::string, std::vector<IpAddress>>;

/// The running system's addresses (getifaddrs: one RTM_GETADDR dump).
Result<NetdevAddresses> collect_netdev_addresses();

} // namespace rdmastat
