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

struct PrometheusRequest {
    std::string url;                          ///< the server's http:// or https:// URL
    std::optional<std::string> http_config;   ///< --http.config.file
    std::chrono::milliseconds timeout{10000}; ///< each query
};

/// The hosts of saved snapshots, sorted by name: each word "NAME=PATH", or a
/// PATH whose file name less ".json" names the host; a host's addresses are
/// its ports' (in a snapshot that has them). Two files of one name or an
/// unreadable file are failures.
Result<FabricInput> load_fabric_files(const std::vector<std::string>& files);

/// The hosts a Prometheus server knows, sorted by name
/// (pipeline/fabric_query.cpp: it links libcurl, so only rdmastat-full has
/// it). A bad URL or config file, or an unreachable server, is a failure; a
/// config that turns certificate checks off is a warning.
Result<FabricInput> load_fabric_prometheus(const PrometheusRequest& request);

} // namespace rdmastat
