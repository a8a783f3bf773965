// SPDX-License-Identifier: MIT
#pragma once

/// The ports' GID tables, from sysfs: what `rdmastat devices` lists, and the
/// addresses a verbs connection's GID index stands for. Read as rdma-core's
/// show_gids reads them, loading no verbs library.

#include "common/error.h"
#include "model/model.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rdmastat {

/// One entry's files as sysfs holds them, their text without the newline:
/// ports/N/gids/I ("fe80:0000:...:bd69"), gid_attrs/types/I ("IB/RoCE v1",
/// "RoCE v2"; absent where the kernel refuses it: iWARP, an empty entry) and
/// gid_attrs/ndevs/I (absent likewise).
struct GidFiles {
    std::uint32_t index = 0;
    std::string gid;
    std::optional<std::string> type;
    std::optional<std::string> ndev;
};

/// The entry files describe on a device of transport; nullopt for an empty
/// entry (the zero GID); a Failure naming the file for text that is no GID.
/// "IB/RoCE v1" is ib on InfiniBand and roce_v1 elsewhere; iWARP's entries
/// have no type (siw's sysfs says "IB/RoCE v1" all the same); a RoCE GID's
/// address is the IPv4 address it maps or the IPv6 address it is.
Result<std::optional<Gid>> parse_gid_entry(const GidFiles& files, Transport transport);

/// The VLAN id in /proc/net/vlan/NETDEV's text ("... VID: 100 ..."); nullopt
/// when it names none.
std::optional<std::uint16_t> parse_vlan_id(const std::string& text);

/// Fills every port's gids of devices from sysfs_root/DEV/ports/N/ (and the
/// VLAN ids from vlan_root/NETDEV, which only root may read: others get none).
/// A port without a gids directory has an empty table; an unreadable or
/// malformed entry fails the collection, and then no port's table is set.
Status collect_gid_tables(std::vector<Device>& devices,
                          const std::string& sysfs_root = "/sys/class/infiniband",
                          const std::string& vlan_root = "/proc/net/vlan");

} // namespace rdmastat
