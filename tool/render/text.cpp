// SPDX-License-Identifier: MIT
#include "render/text.h"

#include "common/format.h"
#include "model/names.h"
#include "render/table.h"

namespace rdmastat {
namespace {

std::string or_dash(const std::optional<std::string>& s) {
    return s ? *s : "-";
}

template <typename E> std::string name_or_dash(const std::optional<E>& v) {
    return v ? name_of(*v) : "-";
}

template <typename T> std::string num_or_dash(const std::optional<T>& v) {
    return v ? std::to_string(*v) : "-";
}

// "10.0.0.1:7174(10.0.0.1:20001)": the address on the wire after the one the
// application sees, only when the iWARP port mapper made them differ.
std::string address_text(const std::optional<Endpoint>& e, const std::optional<Endpoint>& mapped,
                         bool extended) {
    std::string text = endpoint_text(e);
    if (extended && mapped && mapped != e) text += "(" + mapped->to_string() + ")";
    return text;
}

std::string user_text(const Owner& o, bool numeric) {
    if (o.kernel) return "kernel";
    if (o.user && !numeric) return *o.user;
    return num_or_dash(o.uid);
}

} // namespace

std::string endpoint_text(const std::optional<Endpoint>& e) {
    return e ? e->to_string() : "*:*";
}

std::string owner_text(const Owner& o) {
    if (o.kernel) return kernel_owner_text(*o.kernel);
    if (!o.pid) return "-";
    return std::to_string(*o.pid) + "/" + (o.comm ? *o.comm : "?");
}

void render_listing(std::ostream& out, const std::vector<const Connection*>& connections,
                    const TextOptions& opts) {
    // "Dev-Port": the RDMA device's port, not to be read as the TCP ports beside it.
    std::vector<std::string> headers = {"Transport",     "Device",       "Dev-Port",
                                        "Local Address", "Peer Address", "State"};
    if (opts.extended)
        headers.insert(headers.end(),
                       {"User", "CM-ID", "PS", "QPN", "QP-Type", "QP-State", "Netns"});
    if (opts.processes) headers.push_back("PID/Program");
    Table table(std::move(headers));
    // Cells go straight into the table: a listing may have a million rows.
    for (const Connection* c : connections) {
        table.cell(transport_name(c->transport));
        table.cell(c->device);
        table.cell(num_or_dash(c->port));
        table.cell(address_text(c->local, c->mapped_local, opts.extended));
        table.cell(address_text(c->peer, c->mapped_peer, opts.extended));
        table.cell(cm_state_name(c->state));
        if (opts.extended) {
            table.cell(user_text(c->owner, opts.numeric));
            table.cell(std::to_string(c->cm_id) + (c->internal ? "(internal)" : ""));
            table.cell(name_or_dash(c->port_space));
            if (c->qp)
                table.cell(std::to_string(c->qp->number));
            else if (c->qp_unjoined) // a number that is not this id's QP
                table.cell(std::to_string(c->qp_unjoined->number) +
                           (c->qp_unjoined->reason == QpUnjoined::gone ? "(gone)" : "(other)"));
            else
                table.cell("-");
            table.cell(c->qp ? name_or_dash(c->qp->type) : "-");
            table.cell(c->qp ? name_or_dash(c->qp->state) : "-");
            table.cell(num_or_dash(c->netns));
        }
        if (opts.processes) table.cell(owner_text(c->owner));
        table.end_row();
    }
    table.write(out, opts.header);
}

void render_devices(std::ostream& out, const std::vector<Device>& devices,
                    const TextOptions& opts) {
    Table table({"Device", "Index", "Transport", "Driver", "Node-Type", "Port", "State",
                 "Phys-State", "Netdev"});
    for (const Device& d : devices) {
        std::vector<std::string> common = {d.name, std::to_string(d.index),
                                           std::string(transport_name(d.transport)),
                                           or_dash(d.driver), or_dash(d.node_type)};
        if (d.ports.empty()) {
            common.insert(common.end(), {"-", "-", "-", "-"});
            table.add(std::move(common));
        }
        for (const Port& p : d.ports) {
            auto row = common;
            row.insert(row.end(), {std::to_string(p.index), or_dash(p.state), or_dash(p.phys_state),
                                   or_dash(p.netdev)});
            table.add(std::move(row));
        }
    }
    table.write(out, opts.header);
}

void render_summary(std::ostream& out, const Summary& s) {
    out << "Connections: " << s.total << " (with peer " << s.with_peer << ", listening "
        << s.listening << ", other " << s.other << ")\n";
    auto section = [&](const char* title, const std::map<std::string, std::size_t>& counts) {
        out << title << ":\n";
        Table t({"", ""});
        for (const auto& [key, n] : counts)
            t.add({"  " + key, std::to_string(n)});
        t.write(out, false);
    };
    section("By device", s.by_device);
    section("By transport", s.by_transport);
    section("By state", s.by_state);
    out << "By process:\n";
    Table t({"", ""});
    for (const auto& p : s.by_process)
        t.add({"  " + owner_text(p.owner), std::to_string(p.count)});
    t.write(out, false);
}

} // namespace rdmastat
