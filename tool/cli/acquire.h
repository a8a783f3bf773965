// SPDX-License-Identifier: MIT
#pragma once

/// Where a command's Snapshot comes from: the live kernel or a saved file.

#include "model/model.h"

#include <optional>
#include <string>

namespace rdmastat {

struct Acquired {
    Snapshot snapshot;
    /// Set when the system has no RDMA devices: the line to show instead of data.
    std::optional<std::string> no_devices;
};

/// Reads input (a snapshot file, "-" for stdin) when given, else collects from
/// NLDEV and /proc and joins. Throws Error on failure.
Acquired acquire(const std::optional<std::string>& input);

} // namespace rdmastat
