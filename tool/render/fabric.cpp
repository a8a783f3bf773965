// SPDX-License-Identifier: MIT
#include "render/fabric.h"

#include "model/names.h"
#include "model/schema.h"
#include "render/json_writer.h"
#include "render/table.h"
#include "render/text.h"

namespace rdmastat {
namespace {

std::string state_text(const Connection& c) {
    std::string s = cm_state_name(c.state);
    if (c.qp && c.qp->state) s += "/" + qp_state_name(*c.qp->state);
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
        t.cell(fabric_status_name(r.status));
        t.cell(transport_name(r.ends[0].connection->transport));
        end_cells(t, r.ends[0], opts.extended);
        if (r.ends.size() == 2)
            end_cells(t, r.ends[1], opts.extended);
        else
            missing_cells(t, r, opts.extended);
        t.end_row();
    }
    t.write(out, opts.header);
}

void write_fabric_json(std::ostream& out, const FabricInput& in, const FabricView& view,
                       bool pretty) {
    std::string buf;
    JsonWriter w(buf, pretty);
    w.begin_object();
    w.key("version");
    w.number(Snapshot::schema_version);
    w.key("source");
    w.string(origin_name(in.origin));
    w.key("hosts");
    w.begin_array();
    for (const FabricHost& h : in.hosts) {
        w.begin_object();
        w.key("name");
        w.string(h.name);
        w.key("connections");
        w.number(h.connections.size());
        w.key("addresses");
        schema::write(h.addresses, w);
        w.end_object();
    }
    w.end_array();
    w.key("summary");
    w.begin_object();
    for (std::size_t s = 0; s < fabric_status_count; ++s) {
        w.key(fabric_status_name(static_cast<FabricStatus>(s)));
        w.number(view.count[s]);
    }
    w.end_object();
    w.key("connections");
    w.begin_array();
    for (const FabricRow& r : view.rows) {
        w.begin_object();
        w.key("status");
        w.string(fabric_status_name(r.status));
        w.key("ends");
        w.begin_array();
        for (const FabricEnd& e : r.ends) {
            w.begin_object();
            w.key("host");
            w.string(e.host->name);
            w.key("connection");
            schema::write(*e.connection, w);
            w.end_object();
        }
        w.end_array();
        if (r.peer_host) {
            w.key("peer_host");
            w.string(r.peer_host->name);
        }
        w.end_object();
        if (buf.size() >= 64 * 1024) {
            out << buf;
            buf.clear();
        }
    }
    w.end_array();
    w.end_object();
    out << buf << '\n';
}

} // namespace rdmastat
