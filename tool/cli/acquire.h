// SPDX-License-Identifier: MIT
#pragma once

/// Where a command's Snapshot comes from: the live kernel or a saved file.

#include "model/model.h"

#include <optional>
#include <string>

namespace rdmastat {

/// Which kernel interface reports the cm_ids (--source).
enum class SourceChoice {
    automatic, ///< the rdmastat module when its family is registered, else NLDEV
    nldev,     ///< the kernel's RDMA netlink, owners from /proc
    module,    ///< the rdmastat module; an error when it is not loaded
};

/// "auto", "nldev", "module" → SourceChoice; nullopt for anything else.
std::optional<SourceChoice> source_choice_from_name(const std::string& name);

struct Acquired {
    Snapshot snapshot;
    /// Set when the system has no RDMA devices: the line to show instead of data.
    std::optional<std::string> no_devices;
};

/// What a command needs beyond devices and cm_ids (lsof and check need more).
struct Needs {
    bool host_sockets = false; ///< TCP sockets from sock_diag
    bool processes = false;    ///< the /proc fd scan (sockets and /dev/infiniband fds)
    bool resources = false;    ///< NLDEV QP, CQ, MR, PD and context dumps
};

/// Reads input (a snapshot file, "-" for stdin) when given, whatever source says.
/// Otherwise collects the cm_ids from the chosen source and the devices from NLDEV,
/// and joins: with NLDEV, owners come from /proc; with the module, as the module
/// sent them plus user names. Throws Error on failure.
/// What needs asks for is collected too (Snapshot::*_collected set); a snapshot
/// file provides what it holds.
Acquired acquire(const std::optional<std::string>& input,
                 SourceChoice source = SourceChoice::automatic, Needs needs = {});

/// Prints "rdmastat: warning: WHAT" on stderr, once per distinct text per run
/// (serve and watch acquire again and again; a condition is said once).
void warn_once(const std::string& what);

} // namespace rdmastat
