// SPDX-License-Identifier: MIT
#include "render/json.h"

#include "model/names.h"
#include "model/schema.h"
#include "render/json_common.h"
#include "render/json_writer.h"

#include <nlohmann/json.hpp>

namespace rdmastat {
namespace {

using json_common::document;
using json_common::json;

// The arrays only some commands collect, each present only when collected.
void put_host_data(json& j, const Snapshot& snap) {
    if (snap.host_sockets_collected) j["host_sockets"] = document(snap.host_sockets);
    if (snap.processes_collected) j["processes"] = document(snap.processes);
    if (snap.resources_collected) j["resources"] = document(snap.resources);
    if (snap.counters_collected) {
        j["port_counters"] = document(snap.port_counters);
        j["qp_counters"] = document(snap.qp_counters);
    }
}

using json_common::emit;
using json_common::header;

} // namespace

namespace {

class JsonListing final : public ListingWriter {
  public:
    JsonListing(std::ostream& out, bool pretty) : out_(out), w_(buf_, pretty) {}

    void begin(const Snapshot& head) override {
        w_.begin_object();
        const json head_members = header(head);
        for (const auto& [key, value] : head_members.items()) {
            w_.key(key);
            w_.value(value);
        }
        w_.key("devices");
        w_.value(document(head.devices));
        w_.key("connections");
        w_.begin_array();
    }
    void connection(const Connection& c) override {
        schema::write(c, w_);
        if (buf_.size() >= 64 * 1024) {
            out_ << buf_;
            buf_.clear();
        }
    }
    void finish(const Snapshot& snap) override {
        w_.end_array();
        json host = json::object();
        put_host_data(host, snap);
        for (const auto& [key, value] : host.items()) {
            w_.key(key);
            w_.value(value);
        }
        w_.end_object();
        out_ << buf_ << '\n';
        buf_.clear();
    }

  private:
    std::ostream& out_;
    std::string buf_;
    JsonWriter w_;
};

} // namespace

std::unique_ptr<ListingWriter> json_listing_writer(std::ostream& out, bool pretty) {
    return std::make_unique<JsonListing>(out, pretty);
}

void write_snapshot_json(std::ostream& out, const Snapshot& snap,
                         const std::vector<const Connection*>& connections, bool pretty) {
    JsonListing w(out, pretty);
    write_listing(w, snap, connections);
}

void write_devices_json(std::ostream& out, const Snapshot& snap, bool pretty) {
    json j = header(snap);
    j["devices"] = document(snap.devices);
    emit(out, j, pretty);
}

void write_summary_json(std::ostream& out, const Snapshot& snap, const Summary& s, bool pretty) {
    json j = header(snap);
    json processes = json::array();
    for (const auto& p : s.by_process)
        processes.push_back(json{{"owner", json_common::owner(p.owner)}, {"count", p.count}});
    json& summary = j["summary"];
    summary["total"] = s.total;
    summary["with_peer"] = s.with_peer;
    summary["listening"] = s.listening;
    summary["other"] = s.other;
    summary["by_device"] = s.by_device;
    summary["by_transport"] = s.by_transport;
    summary["by_state"] = s.by_state;
    summary["by_process"] = std::move(processes);
    emit(out, j, pretty);
}

} // namespace rdmastat
