// SPDX-License-Identifier: MIT
#pragma once

/// The one way a command gets its data: a request (a saved snapshot or the live
/// system, which cm_id source, what else is needed) in, a Collection out. Every
/// command, listing, lsof, check, export, serve, -w and -E, runs this; they
/// differ only in what they do with errors (see require()).

#include "pipeline/source.h"

namespace rdmastat {

struct Request {
    std::optional<std::string> input; ///< a snapshot file ("-": stdin) instead of the system
    SourceChoice choice = SourceChoice::automatic;
    Needs needs;
    /// When set, the connections go to it instead of the Collection's snapshot:
    /// as they are read from a snapshot file (see parse_snapshot_json), else
    /// after the collection, unless the connections failed. Either way the sink
    /// gets begin() first, and at most once.
    ConnectionSink* sink = nullptr;
};

/// Collects request from input when given, else from system.
Collection run_pipeline(const Request& request, System& system);
/// The same on the live system (a new one each call: a module loaded since the
/// last call is seen).
Collection run_pipeline(const Request& request);

/// The error policy, one for every command: each part of a collection fails on
/// its own, and a command says which parts it cannot do without. require_all is
/// for the commands that show a whole picture or none (listing, devices, lsof,
/// check): it throws Error with the first failure. -w and -E require the
/// connections and show the other failures; the exporters require nothing and
/// count failures in their metrics.
void require_all(const Collection& collection);
/// Throws Error with the first failure of part, if any.
void require(const Collection& collection, Part part);

} // namespace rdmastat
