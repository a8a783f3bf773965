// SPDX-License-Identifier: MIT
#pragma once

/// Output of `rdmastat lsof`: lsof's table, its -t PID list, and JSON.

#include "analysis/lsof.h"
#include "model/model.h"

#include <ostream>
#include <string>

namespace rdmastat {

struct LsofTextOptions {
    bool header = true;   ///< false with -H
    bool numeric = false; ///< -n: uids instead of user names
};

/// The TYPE column: "RDMA_CM", the resource kind in upper case ("QP", "CQ", "MR",
/// "PD", "CTX", "SRQ"), "CHR", "IPv4" or "IPv6".
std::string lsof_type(const LsofFile& f);

/// The NAME column, as lsof writes it: "10.0.0.1:7174->10.0.0.2:40312 (CONNECT)",
/// "*:7174 (LISTEN)" (the any address and port 0 read "*"; IPv6 in brackets; an
/// address the iWARP port mapper changed is followed by the one on the wire in
/// parentheses; " [internal]" after an internal id); "qpn 17 RC RTS", "cqn 3 cqe 256",
/// "mrn 5 length 4096" (the resource's number, then its details: the values of
/// "type" and "state", "KEY VALUE" for the others but an MR's "lkey" and "rkey",
/// which only JSON shows); the path of a chardev; and for a
/// socket no process holds that is attributed to a cm_id, the socket's NAME followed by
/// "[siw0 cm_id 3 of 123/rping]".
std::string lsof_name(const LsofFile& f);

/// COMMAND PID USER FD TYPE DEVICE NAME, one row per file. COMMAND is the command
/// name, "[module]" for a kernel owner, "-" when unknown; unknown cells read "-".
void render_lsof(std::ostream& out, const LsofResult& r, const LsofTextOptions& opts);

/// -t: the PIDs of the listed processes, once each, ascending, one per line.
/// Returns how many it wrote.
std::size_t render_lsof_pids(std::ostream& out, const LsofResult& r);

} // namespace rdmastat
