// SPDX-License-Identifier: MIT
#pragma once

/// The fabric view's input: each host's cm_ids, as a Prometheus server scraped
/// them from `rdmastat serve --per-connection` or as snapshot files hold them.

#include "model/model.h"

#include <string>
#include <vector>

namespace rdmastat {

struct FabricHost {
    /// Prometheus's instance label, or the name given to a snapshot file.
    std::string name;
    std::vector<Connection> connections;
    /// The addresses of the host's RDMA ports (Port::addresses); empty when
    /// its source did not collect them.
    std::vector<IpAddress> addresses;
};

/// Where the hosts came from.
enum class FabricOrigin { prometheus, files };

struct FabricInput {
    FabricOrigin origin = FabricOrigin::files;
    std::vector<FabricHost> hosts; ///< sorted by name
    /// Conditions worth a line on stderr that lose little: a series whose
    /// labels could not be read, a snapshot without port addresses.
    std::vector<std::string> warnings;
};

} // namespace rdmastat
