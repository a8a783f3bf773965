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

} // namespace rdmastat
