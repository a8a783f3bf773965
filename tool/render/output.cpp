// SPDX-License-Identifier: MIT
#include "render/output.h"

#include "render/check.h"
#include "render/json.h"
#include "render/json_writer.h"
#include "render/kping.h"
#include "render/ping.h"
#include "render/text.h"
#include "render/views.h"

namespace rdmastat {
namespace {

class TextWriter final : public Writer {
  public:
    bool document() const override { return false; }
    std::unique_ptr<ListingWriter> listing(std::ostream& out,
                                           const TextOptions& text) const override {
        return text_listing_writer(out, text);
    }
    void summary(std::ostream& out, const Snapshot&, const Summary& s) const override {
        render_summary(out, s);
    }
    void devices(std::ostream& out, const Snapshot& snap, const TextOptions& text) const override {
        render_devices(out, snap.devices, text);
    }
    void check(std::ostream& out, const Snapshot&, const CheckReport& report,
               bool header) const override {
        render_check(out, report, header);
    }
    void lsof(std::ostream& out, const Snapshot& snap, const LsofResult& r,
              const LsofTextOptions& text) const override {
        if (r.empty()) return;
        render_lsof(out, r, text);
        render_rdma_cgroups(out, holders_rdma_cgroups(snap, r), text.header);
    }
    void fabric(std::ostream& out, const FabricInput&, const FabricView& view,
                const FabricTextOptions& text) const override {
        render_fabric(out, view, text);
    }
    void kping_runs(std::ostream& out, const std::vector<KpingRun>& runs) const override {
        write_kping_text(out, runs);
    }
    void kping_run(std::ostream& out, const KpingRun& run) const override {
        write_kping_text(out, {run});
    }
    void ping_result(std::ostream& out, const ping::PingResult& r) const override {
        if (!r.error || r.completed) write_ping_text(out, r);
    }
    void events(std::ostream& out, const std::vector<ConnectionEvent>& events, WallTime t,
                EventSource) const override {
        render_events(out, events, t);
    }
    void life_start(std::ostream& out, bool header) const override {
        if (header) render_life_header(out);
    }
    void life(std::ostream& out, const std::vector<ConnectionEvent>& ended, WallTime t,
              EventSource) const override {
        render_life(out, ended, t);
    }
};

// Each command's document (render/views.h) through the one JSON writer.
class JsonFormat final : public Writer {
  public:
    explicit JsonFormat(bool pretty) : pretty_(pretty) {}
    bool document() const override { return true; }
    std::unique_ptr<ListingWriter> listing(std::ostream& out, const TextOptions&) const override {
        return json_listing_writer(out, pretty_);
    }
    void summary(std::ostream& out, const Snapshot& snap, const Summary& s) const override {
        write_json(out, summary_document(snap, s), pretty_);
    }
    void devices(std::ostream& out, const Snapshot& snap, const TextOptions&) const override {
        write_json(out, devices_document(snap), pretty_);
    }
    void check(std::ostream& out, const Snapshot& snap, const CheckReport& report,
               bool) const override {
        write_json(out, check_document(snap, report), pretty_);
    }
    void lsof(std::ostream& out, const Snapshot& snap, const LsofResult& r,
              const LsofTextOptions&) const override {
        write_json(out, lsof_document(snap, r), pretty_);
    }
    void fabric(std::ostream& out, const FabricInput& in, const FabricView& view,
                const FabricTextOptions&) const override {
        write_json(out, fabric_document(in, view), pretty_);
    }
    void kping_runs(std::ostream& out, const std::vector<KpingRun>& runs) const override {
        write_json(out, kping_document(runs), pretty_);
    }
    void kping_run(std::ostream& out, const KpingRun& run) const override {
        write_json(out, run, pretty_);
    }
    void ping_result(std::ostream& out, const ping::PingResult& r) const override {
        write_json(out, r, pretty_);
    }
    // Events are JSON lines, one object per line whatever --pretty says.
    void events(std::ostream& out, const std::vector<ConnectionEvent>& events, WallTime t,
                EventSource source) const override {
        event_lines(out, events, t, source);
    }
    void life_start(std::ostream&, bool) const override {}
    void life(std::ostream& out, const std::vector<ConnectionEvent>& ended, WallTime t,
              EventSource source) const override {
        event_lines(out, ended, t, source);
    }

  private:
    static void event_lines(std::ostream& out, const std::vector<ConnectionEvent>& events,
                            WallTime t, EventSource source) {
        const std::string batch_time = timestamp_text(t);
        for (const ConnectionEvent& e : events)
            write_json(out, EventLine{e, batch_time, source}, false);
    }

    bool pretty_;
};

} // namespace

std::unique_ptr<Writer> writer_for(const Output& o) {
    switch (o.format) {
    case Format::text:
        return std::make_unique<TextWriter>();
    case Format::json:
        return std::make_unique<JsonFormat>(o.pretty);
    }
    return nullptr;
}

} // namespace rdmastat
