// SPDX-License-Identifier: MIT
#pragma once

/// How `rdmastat kping` shows runs: text blocks and JSON with the same key names
/// (documented in rdmastat-kping(8)).

#include "model/kping.h"

#include <ostream>
#include <vector>

namespace rdmastat {

/// One block per run: its identity and state, its counters, its latency and its
/// error; "no kping runs" when there are none.
void write_kping_text(std::ostream& out, const std::vector<KpingRun>& runs);

/// {"version": 1, "runs": [...]} (show) or one run object (start, stop).
void write_kping_json(std::ostream& out, const std::vector<KpingRun>& runs, bool pretty);
void write_kping_run_json(std::ostream& out, const KpingRun& run, bool pretty);

} // namespace rdmastat
