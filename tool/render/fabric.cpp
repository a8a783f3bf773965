// SPDX-License-Identifier: MIT
#include "render/fabric.h"

#include "model/names.h"
#include "render/table.h"
#include "render/text.h"

namespace rdmastat {

namespace {

std::string state_text(const Connection& c) {
    std::string s = state_name(c);
    if (c.via == Via::cm && c.qp && c.qp->state) s += "/" + name_of(*c.qp->state);
    return s;
}

void end_cells(Table& t, const FabricEnd& e, bool extended) {
    const Connection& c = *e.connection;
    t.cell(e.host->name);
    t.cell(c.device);
    t.cell(local_text(c));
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
    t.cell(r.status == FabricStatus::listening ? "-" : peer_text(c));
    for (int i = 0; i < (extended ? 4 : 2); ++i)
        t.cell("-");
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
        // A pair joined by QP numbers alone is marked "?".
        t.cell(name_of(r.status) + (r.probable ? "?" : ""));
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

} // namespace rdmastat
