// SPDX-License-Identifier: MIT
#pragma once

/// Output of `rdmastat check`: one line per port, or JSON.

#include "analysis/check.h"
#include "model/model.h"

#include <ostream>

namespace rdmastat {

/// Verdict, Device, Address (address:port as the listing writes it, followed by the
/// one on the wire in parentheses when the port mapper moved it), PS, PID/Program
/// and Reason. With no checks, the line "no RDMA ports in use".
void render_check(std::ostream& out, const CheckReport& report, bool header);

/// {"version", "source", "checks": [{"verdict", "device", "transport", "driver",
/// "address", "port", "port_space", "wire", "cm_ids", "owner", "host_socket",
/// "reason"}], "summary": {"ok", "info", "unknown", "unreserved", "conflict"},
/// "missing": [...]}. host_socket is null when host sockets were read and none is
/// named, absent when they were not read; driver, port_space and wire absent when
/// unknown or not applicable.
void write_check_json(std::ostream& out, const Snapshot& snap, const CheckReport& report,
                      bool pretty);

} // namespace rdmastat
