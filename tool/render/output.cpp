// SPDX-License-Identifier: MIT
#include "render/output.h"

#include "render/check.h"
#include "render/json.h"
#include "render/kping.h"
#include "render/ping.h"

namespace rdmastat {

// Every function is one switch on the format, with no default: a new Format
// that some command cannot write is a compiler warning (-Wswitch), not a surprise.

std::unique_ptr<ListingWriter> listing_writer(std::ostream& out, const Output& o,
                                              const TextOptions& text) {
    switch (o.format) {
    case Format::text:
        return text_listing_writer(out, text);
    case Format::json:
        return json_listing_writer(out, o.pretty);
    }
    return nullptr;
}

void emit_summary(std::ostream& out, const Output& o, const Snapshot& snap, const Summary& s) {
    switch (o.format) {
    case Format::text:
        return render_summary(out, s);
    case Format::json:
        return write_summary_json(out, snap, s, o.pretty);
    }
}

void emit_devices(std::ostream& out, const Output& o, const Snapshot& snap,
                  const TextOptions& text) {
    switch (o.format) {
    case Format::text:
        return render_devices(out, snap.devices, text);
    case Format::json:
        return write_devices_json(out, snap, o.pretty);
    }
}

void emit_check(std::ostream& out, const Output& o, const Snapshot& snap, const CheckReport& report,
                bool header) {
    switch (o.format) {
    case Format::text:
        return render_check(out, report, header);
    case Format::json:
        return write_check_json(out, snap, report, o.pretty);
    }
}

void emit_fabric(std::ostream& out, const Output& o, const FabricInput& in, const FabricView& view,
                 const FabricTextOptions& text) {
    switch (o.format) {
    case Format::text:
        return render_fabric(out, view, text);
    case Format::json:
        return write_fabric_json(out, in, view, o.pretty);
    }
}

void emit_lsof(std::ostream& out, const Output& o, const Snapshot& snap, const LsofResult& r,
               const LsofTextOptions& text) {
    switch (o.format) {
    case Format::text:
        if (!r.empty()) render_lsof(out, r, text);
        return;
    case Format::json:
        return write_lsof_json(out, snap, r, o.pretty);
    }
}

void emit_kping_runs(std::ostream& out, const Output& o, const std::vector<KpingRun>& runs) {
    switch (o.format) {
    case Format::text:
        return write_kping_text(out, runs);
    case Format::json:
        return write_kping_json(out, runs, o.pretty);
    }
}

void emit_kping_run(std::ostream& out, const Output& o, const KpingRun& run) {
    switch (o.format) {
    case Format::text:
        return write_kping_text(out, {run});
    case Format::json:
        return write_kping_run_json(out, run, o.pretty);
    }
}

void emit_ping_result(std::ostream& out, const Output& o, const ping::PingResult& r) {
    switch (o.format) {
    case Format::text:
        if (!r.error || r.completed) write_ping_text(out, r);
        return;
    case Format::json:
        return write_ping_json(out, r, o.pretty);
    }
}

void emit_events(std::ostream& out, const Output& o, const std::vector<ConnectionEvent>& events,
                 WallTime t, EventSource source) {
    switch (o.format) {
    case Format::text:
        return render_events(out, events, t);
    case Format::json:
        return write_events_json(out, events, t, source);
    }
}

} // namespace rdmastat
