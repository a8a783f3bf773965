// SPDX-License-Identifier: MIT
#include "render/json.h"

#include "model/names.h"
#include "model/schema.h"
#include "render/json_writer.h"
#include "render/views.h"

namespace rdmastat {
namespace {

// The arrays only some commands collect, each present only when collected.
template <typename V> void describe_host_data(const Snapshot& snap, V& v) {
    if (snap.host_sockets_collected) v("host_sockets", snap.host_sockets, Presence::required);
    if (snap.processes_collected) v("processes", snap.processes, Presence::required);
    if (snap.resources_collected) v("resources", snap.resources, Presence::required);
    if (snap.counters_collected) {
        v("port_counters", snap.port_counters, Presence::required);
        v("qp_counters", snap.qp_counters, Presence::required);
    }
    if (snap.rdma_cgroups_collected) v("rdma_cgroups", snap.rdma_cgroups, Presence::required);
}

// A member visitor that writes each member as schema::write writes a record's:
// the listing's top level, written in pieces as its connections come.
auto member_writer(JsonWriter& w) {
    return [&w](std::string_view key, const auto& m, Presence) {
        w.schema_key(key);
        schema::write(m, w);
    };
}

class JsonListing final : public ListingWriter {
  public:
    JsonListing(std::ostream& out, bool pretty) : w_(out, pretty) {}

    void begin(const Snapshot& head) override {
        w_.begin_object();
        auto v = member_writer(w_);
        describe_header(head, v);
        v("devices", head.devices, Presence::required);
        w_.key("connections");
        w_.begin_array();
    }
    void connection(const Connection& c) override { schema::write(c, w_); }
    void finish(const Snapshot& snap) override {
        w_.end_array();
        auto v = member_writer(w_);
        describe_host_data(snap, v);
        w_.end_object();
        w_.end();
    }

  private:
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

} // namespace rdmastat
