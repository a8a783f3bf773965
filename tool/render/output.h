// SPDX-License-Identifier: MIT
#pragma once

/// The output format, chosen once per run (cli's output_of, from -j and --pretty),
/// and one renderer per command and format: every command writes its result
/// through one of these, so a command supports text and JSON the same way and a
/// third format is one more case here.

#include "analysis/check.h"
#include "analysis/fabric.h"
#include "analysis/lsof.h"
#include "analysis/summary.h"
#include "model/kping.h"
#include "model/model.h"
#include "ping/stats.h"
#include "render/fabric.h"
#include "render/lsof.h"
#include "render/monitor.h"
#include "render/text.h"

#include <memory>
#include <ostream>
#include <vector>

namespace rdmastat {

enum class Format { text, json };

struct Output {
    Format format = Format::text;
    bool pretty = false; ///< JSON: indented (--pretty)
};

/// The listing, written as its connections come (text_listing_writer /
/// json_listing_writer).
std::unique_ptr<ListingWriter> listing_writer(std::ostream& out, const Output& o,
                                              const TextOptions& text);
/// -s (render_summary / write_summary_json).
void emit_summary(std::ostream& out, const Output& o, const Snapshot& snap, const Summary& s);
/// `devices` (render_devices / write_devices_json).
void emit_devices(std::ostream& out, const Output& o, const Snapshot& snap,
                  const TextOptions& text);
/// `check` (render_check / write_check_json).
void emit_check(std::ostream& out, const Output& o, const Snapshot& snap, const CheckReport& report,
                bool header);
/// `lsof` (render_lsof / write_lsof_json); the text table is omitted when nothing matched.
void emit_lsof(std::ostream& out, const Output& o, const Snapshot& snap, const LsofResult& r,
               const LsofTextOptions& text);
/// `fabric` (render_fabric / write_fabric_json).
void emit_fabric(std::ostream& out, const Output& o, const FabricInput& in, const FabricView& view,
                 const FabricTextOptions& text);
/// `kping show`: every run listed (write_kping_text / write_kping_json).
void emit_kping_runs(std::ostream& out, const Output& o, const std::vector<KpingRun>& runs);
/// `kping start|stop`: the one run (write_kping_text / write_kping_run_json).
void emit_kping_run(std::ostream& out, const Output& o, const KpingRun& run);
/// `ping`'s result (write_ping_text / write_ping_json); in text, a run that failed
/// before completing anything has no result to show (its error says it all).
void emit_ping_result(std::ostream& out, const Output& o, const ping::PingResult& r);
/// `-E`: one round's events (render_events / write_events_json).
void emit_events(std::ostream& out, const Output& o, const std::vector<ConnectionEvent>& events,
                 WallTime t, EventSource source);

} // namespace rdmastat
