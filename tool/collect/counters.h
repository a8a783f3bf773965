// SPDX-License-Identifier: MIT
#pragma once

/// Port and QP counters of RDMA devices: NLDEV statistics (what `rdma statistic`
/// shows), with sysfs hw_counters for a port whose statistics NLDEV refuses.

#include "collect/nldev.h"
#include "model/model.h"

#include <string>
#include <vector>

namespace rdmastat {

/// The numbers in DIR/* (one counter per file, as sysfs hw_counters has them),
/// sorted by name; files that are not a number (lifespan is one) are skipped.
/// nullopt when DIR does not exist.
std::optional<std::vector<Counter>> read_counter_dir(const std::string& dir);

/// Fills snap.port_counters (one entry per port of snap.devices) and
/// snap.qp_counters from nldev, and sets counters_collected. Per port: NLDEV
/// statistics; when the kernel refuses them (a device without hardware
/// counters), the files of SYSFS_ROOT/DEV/ports/N/hw_counters (source "sysfs");
/// else no counters. QP counters that a device does not support are simply
/// absent. Failure when a reply does not parse, naming device and port; snap
/// is then left as it was.
Status collect_counters(NldevSource& nldev, Snapshot& snap,
                        const std::string& sysfs_root = "/sys/class/infiniband");

} // namespace rdmastat
