// SPDX-License-Identifier: MIT
#include "render/fabric.h"

#include "model/names.h"
#include "model/schema.h"
#include "render/json_writer.h"
#include "render/table.h"
#include "render/text.h"

namespace rdmastat {

using schema::Presence;

namespace {

std::string state_text(const Connection& c) {
    std::string s = name_of(c.state);
    if (c.qp && c.qp->state) s += "/" + name_of(*c.qp->state);
    return s;
}

void end_cells(Table& t, const FabricEnd& e, bool extended) {
    const Connection& c = *e.connection;
    t.cell(e.host->name);
    t.cell(c.device);
    t.cell(endpoint_text(c.local));
    t.cell(state_text(c));
    t.cell(owner_text(c.owner));
    if (extended) {
        t.cell(container_text(c.owner));
        t.cell(pod_text(c.owner));
    }
}

// The end a row lacks: where its one end says the peer is.
void missing_cells(Table& t, const FabricRow& r, bool extended) {
    const Connection& c = *r.ends[0].connection;
    t.cell(r.peer_host ? r.peer_host->name : "-");
    t.cell("-");
    t.cell(r.status == FabricStatus::listening ? "-" : endpoint_text(c.peer));
    for (int i = 0; i < (extended ? 4 : 2); ++i)
        t.cell("-");
}

const char* origin_name(FabricOrigin o) {
    return o == FabricOrigin::prometheus ? "prometheus" : "files";
}

} // namespace

void render_fabric(std::ostream& out, const FabricView& view, const FabricTextOptions& opts) {
    std::vector<std::string> headers = {"Status", "Transport"};
    for (const char* side : {"", "Peer "})
        for (const char* h : {"Host", "Device", "Address", "State", "Owner", "Container", "Pod"}) {
            const std::string name = h;
            if (!opts.extended && (name == "Container" || name == "Pod")) continue;
            headers.push_back(side + name);
        }
    Table t(headers);
    for (const FabricRow& r : view.rows) {
        t.cell(name_of(r.status));
        t.cell(name_of(r.ends[0].connection->transport));
        end_cells(t, r.ends[0], opts.extended);
        if (r.ends.size() == 2)
            end_cells(t, r.ends[1], opts.extended);
        else
            missing_cells(t, r, opts.extended);
        t.end_row();
    }
    t.write(out, opts.header);
}

template <typename V> void describe(const FabricHost& h, V&& v) {
    v("name", h.name, Presence::required);
    v("connections", h.connections.size(), Presence::required);
    v("addresses", h.addresses, Presence::required);
}

template <typename V> void describe(const FabricEnd& e, V&& v) {
    v("host", e.host->name, Presence::required);
    v("connection", *e.connection, Presence::required);
}

template <typename V> void describe(const FabricRow& r, V&& v) {
    v("status", name_of(r.status), Presence::required);
    v("ends", r.ends, Presence::required);
    if (r.peer_host) v("peer_host", r.peer_host->name, Presence::required);
}

void write_fabric_json(std::ostream& out, const FabricInput& in, const FabricView& view,
                       bool pretty) {
    write_json(out, schema::members([&](auto& v) {
                   v("version", Snapshot::schema_version, Presence::required);
                   v("source", origin_name(in.origin), Presence::required);
                   v("hosts", in.hosts, Presence::required);
                   v("summary", schema::members([&](auto& counts) {
                         for (std::size_t s = 0; s < fabric_status_count; ++s)
                             counts(name_of(static_cast<FabricStatus>(s)), view.count[s],
                                    Presence::required);
                     }),
                     Presence::required);
                   v("connections", view.rows, Presence::required);
               }),
               pretty);
}

} // namespace rdmastat
