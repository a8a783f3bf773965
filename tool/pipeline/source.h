// SPDX-License-Identifier: MIT
#pragma once

/// Sources of a Snapshot and what one collection hands a command: the snapshot,
/// the line to show when there is nothing to show, and every failure, by part.

#include "model/model.h"
#include "model/names.h"
#include "pipeline/system.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdmastat {

/// Which kernel interface reports the cm_ids (--source).
enum class SourceChoice {
    automatic, ///< the rdmastat module when its family is registered, else NLDEV
    nldev,     ///< the kernel's RDMA netlink, owners from /proc
    module,    ///< the rdmastat module; an error when it is not loaded
};

/// "auto", "nldev", "module".
RDMASTAT_NAMES(SourceChoice, "source", false, "auto", "nldev", "module");

/// What a command needs beyond devices and cm_ids.
struct Needs {
    bool host_sockets = false; ///< TCP sockets (sock_diag, or /proc/net)
    bool processes = false;    ///< the /proc fd scan (sockets and /dev/infiniband fds)
    bool resources = false;    ///< every ResourceKind
    bool counters = false;     ///< port and QP counters
    bool addresses = false;    ///< each port's netdev IP addresses (Port::addresses)
    bool gids = false;         ///< each port's GID table (Port::gids)
    /// Verbs connections' paths and peer addresses (rdmastat.ko's QP dump,
    /// CAP_NET_ADMIN only; otherwise a warning says why they are unknown).
    /// Each connected QP it reports is a driver query: commands that show no
    /// peers turn it off.
    bool verbs_peers = true;
    /// When set, a part not begun by then is skipped and fails as timed out
    /// (serve under Prometheus's scrape timeout); the cm_ids are always read.
    std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt;
};

/// The parts of a collection, each of which fails on its own.
enum class Part { connections, resources, host_sockets, processes, counters };

/// The names of analysis/metrics.h's scrape error series.
RDMASTAT_NAMES(Part, "part", false, "connections", "resources", "host_sockets", "processes",
               "counters");

struct PartError {
    Part part;
    std::string message; ///< "context: reason", as main prints a fatal error
};

/// One collection. A part that failed is in errors and left empty (its
/// *_collected flag unset); the others are there. Warnings are conditions worth
/// one line on stderr that lose nothing (a fallback taken, a dump retried).
struct Collection {
    Snapshot snapshot;
    /// Set when the system has no RDMA devices: the line to show instead of data.
    std::optional<std::string> no_devices;
    std::vector<PartError> errors;
    std::vector<std::string> warnings;

    bool failed(Part part) const;
};

/// Where a collection comes from.
class Source {
  public:
    virtual ~Source() = default;
    /// One collection of the devices and cm_ids plus what needs asks for.
    /// Never throws: every failure is returned in the Collection.
    virtual Collection collect(const Needs& needs) = 0;
};

/// The running system: cm_ids from the rdmastat module or NLDEV as choice says
/// (automatic: the module when registered, else NLDEV), devices from NLDEV,
/// owners from the module or /proc, and the rest from system.
std::unique_ptr<Source> system_source(System& system, SourceChoice choice);

/// A saved snapshot ("-" for stdin): it holds what it holds, whatever the needs.
/// With a sink, its connections stream to it where the file allows (see
/// parse_snapshot_json).
std::unique_ptr<Source> file_source(std::string path, ConnectionSink* sink = nullptr);

} // namespace rdmastat
