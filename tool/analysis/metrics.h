// SPDX-License-Identifier: MIT
#pragma once

/// The Prometheus metrics of a snapshot (`rdmastat export`, `serve`): families
/// of labelled samples, names and labels as rdmastat(8) documents them. The
/// renderer (render/prometheus.h) only formats them.

#include "model/model.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace rdmastat {

enum class MetricType { gauge, counter, histogram };

struct Sample {
    std::vector<std::pair<std::string, std::string>> labels;
    double value = 0;
    /// Appended to the family's name: a histogram's "_bucket", "_sum", "_count".
    std::string suffix = {};
};

struct MetricFamily {
    std::string name;
    std::string help;
    MetricType type = MetricType::gauge;
    std::vector<Sample> samples; ///< sorted by labels
};

/// What the scrape itself measured: the caller times collection and analysis.
struct ScrapeStats {
    double duration_seconds = 0;
    /// Failed reads by source ("connections", "counters", "host_sockets");
    /// cumulative over the life of `serve`.
    std::map<std::string, std::uint64_t> errors;
};

/// The sources a scrape reads; each gets a scrape error series, zero or not.
inline const char* const scrape_sources[] = {"connections", "counters", "host_sockets"};

struct MetricsOptions {
    bool per_process = false;   ///< rdmastat_process_connections (one series per process)
    bool per_container = false; ///< rdmastat_container_connections (one per container or pod)
    /// rdmastat_connection_info (one series per cm_id) and
    /// rdmastat_port_address_info: the fabric view's input.
    bool per_connection = false;
};

/// Every family for snap, in the order rdmastat(8) lists them:
/// rdmastat_connections{device,port,transport,port_space,state} (every cm_id that
/// `rdmastat -a` lists), rdmastat_qps{device,type,state} (NLDEV's QPs when
/// resources were collected, else the QPs of the cm_ids),
/// rdmastat_port_checks{verdict} (check_ports, every verdict),
/// rdmastat_port_counters_available{device,port,source},
/// rdmastat_port_statistic_total{device,port,counter},
/// rdmastat_qp_statistic_total{device,port,counter_id,counter},
/// rdmastat_process_connections{pid,comm} (with per_process),
/// rdmastat_container_connections{runtime,container,pod,qos} (with per_container:
/// ids whose owner is in a container or pod),
/// rdmastat_connection_info{<the id's JSON members, nested keys joined by
/// '_': device, cm_id, state, local_address, local_port, owner_pid, ...>} and
/// rdmastat_port_address_info{device,port,netdev,address} (with per_connection;
/// internal ids are left out),
/// rdmastat_cgroup_rdma_usage{cgroup,runtime,container,pod,device,resource} and
/// rdmastat_cgroup_rdma_limit{...} (when the snapshot has the rdma cgroups:
/// those that set a limit, and with per_container every one that holds
/// something; devices neither used nor limited left out; a limit only where
/// set),
/// then the scrape's own (scrape_metrics).
/// An unknown label value (a cm_id without port space) is the empty string.
std::vector<MetricFamily> build_metrics(const Snapshot& snap, const MetricsOptions& opts = {});

/// What a scrape says of itself, after every other family:
/// rdmastat_scrape_duration_seconds, rdmastat_scrape_errors_total{source}.
std::vector<MetricFamily> scrape_metrics(const ScrapeStats& stats);

} // namespace rdmastat
