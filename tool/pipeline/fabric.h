// SPDX-License-Identifier: MIT
#pragma once

/// Where `rdmastat fabric` reads its hosts from: a Prometheus server that
/// scrapes `rdmastat serve --per-connection` on each host, or one saved
/// snapshot per host.

#include "common/error.h"
#include "model/fabric.h"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace rdmastat {

struct FabricRequest {
    std::optional<std::string> prometheus; ///< the server's http:// URL
    /// "NAME=PATH", or a PATH whose file name less ".json" names the host.
    std::vector<std::string> files;
    std::chrono::milliseconds timeout{10000}; ///< each Prometheus query
};

/// The hosts, sorted by name. From files, a host's addresses are its ports'
/// (in a snapshot that has them). Two files of one name, an unreadable file
/// or an unreachable server are failures.
Result<FabricInput> load_fabric(const FabricRequest& request);

} // namespace rdmastat
