// SPDX-License-Identifier: MIT
#include "render/text.h"

#include "common/format.h"
#include "model/names.h"
#include "render/table.h"

#include <set>
#include <sys/socket.h>

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
void append_address(std::string& out, const std::optional<Endpoint>& e,
                    const std::optional<Endpoint>& mapped, bool extended) {
    if (e)
        e->append_to(out);
    else
        out += "*:*";
    if (extended && mapped && mapped != e) {
        out += '(';
        mapped->append_to(out);
        out += ')';
    }
}

// A verbs connection's end: "10.0.0.1:qp17", the address of its GID (rdmastat.ko's
// QP dump) and the QP number where a TCP socket has its port; "*:qp17" while the
// address is unknown, "*:*" when the number is too.
void append_qp_end(std::string& out, const std::optional<Endpoint>& e,
                   std::optional<std::uint32_t> qpn) {
    if (e && e->address.family == AF_INET6) {
        out += '[';
        e->address.append_to(out);
        out += "]:";
    } else if (e) {
        e->address.append_to(out);
        out += ':';
    } else {
        out += "*:";
    }
    if (!qpn) {
        out += '*';
        return;
    }
    out += "qp";
    append_number(out, *qpn);
}

std::string user_text(const Owner& o, bool numeric) {
    if (o.kernel) return "kernel";
    if (o.user && !numeric) return *o.user;
    return num_or_dash(o.uid);
}

} // namespace

std::string container_text(const std::optional<Container>& c) {
    if (!c) return "-";
    return name_of(c->runtime) + ":" + c->id.substr(0, 12);
}

std::string container_text(const Owner& o) {
    return container_text(o.container);
}

void render_rdma_cgroups(std::ostream& out, const std::vector<CgroupRdma>& cgroups, bool header) {
    Table table({"RDMA Cgroup", "Container", "Pod", "Device", "HCA-Handles", "HCA-Objects"});
    const auto used = [](std::uint64_t now, const std::optional<std::uint64_t>& max) {
        return std::to_string(now) + "/" + (max ? std::to_string(*max) : "max");
    };
    for (const CgroupRdma& c : cgroups)
        for (const CgroupRdmaDevice& d : c.devices) {
            if (!d.accounted()) continue;
            table.add({c.path, container_text(c.container), c.pod ? c.pod->uid : "-", d.device,
                       used(d.hca_handle, d.hca_handle_max), used(d.hca_object, d.hca_object_max)});
        }
    if (table.empty()) return;
    out << '\n';
    table.flush(out, header);
}

std::string pod_text(const Owner& o) {
    return o.pod ? o.pod->uid : "-";
}

std::string endpoint_text(const std::optional<Endpoint>& e) {
    std::string text;
    append_address(text, e, std::nullopt, false);
    return text;
}

void append_local_text(std::string& out, const Connection& c, bool extended) {
    if (c.via == Via::verbs)
        append_qp_end(out, c.local, c.qp ? std::optional(c.qp->number) : std::nullopt);
    else
        append_address(out, c.local, c.mapped_local, extended);
}

std::string local_text(const Connection& c) {
    std::string text;
    append_local_text(text, c, false);
    return text;
}

std::string peer_text(const Connection& c) {
    std::string text;
    append_peer_text(text, c, false);
    return text;
}

void append_peer_text(std::string& out, const Connection& c, bool extended) {
    if (c.via == Via::verbs)
        append_qp_end(out, c.peer, c.qp ? c.qp->remote_number : std::nullopt);
    else
        append_address(out, c.peer, c.mapped_peer, extended);
}

std::string owner_text(const Owner& o) {
    if (o.kernel) return kernel_owner_text(*o.kernel);
    if (!o.pid) return "-";
    return std::to_string(*o.pid) + "/" + (o.comm ? *o.comm : "?");
}

namespace {

class TextListing final : public ListingWriter {
  public:
    TextListing(std::ostream& out, const TextOptions& opts, bool marked = false)
        : out_(out), opts_(opts), table_(headers(opts), marked) {}

    /// A row of a marked listing.
    void connection(const Connection& c, char mark) {
        table_.mark(mark);
        connection(c);
    }

    void begin(const Snapshot&) override {}
    // Cells of text no process chose are plain (Table::plain_cell): only
    // names (device, user, program, container, pod) are made printable.
    void connection(const Connection& c) override {
        const bool extended = opts_.extended;
        table_.plain_cell(name_of(c.transport));
        table_.cell(c.device);
        table_.plain_cell_by([&](std::string& out) { append_number_or_dash(out, c.port); });
        table_.plain_cell_by([&](std::string& out) { append_local_text(out, c, extended); });
        table_.plain_cell_by([&](std::string& out) { append_peer_text(out, c, extended); });
        table_.plain_cell(state_name(c));
        if (extended) {
            table_.cell(user_text(c.owner, opts_.numeric));
            table_.plain_cell(name_of(c.via));
            table_.plain_cell_by([&](std::string& out) {
                append_number_or_dash(out, c.cm_id);
                if (c.internal) out += "(internal)";
            });
            table_.plain_cell(name_or_dash(c.port_space));
            table_.plain_cell_by([&](std::string& out) {
                if (c.qp) {
                    append_number(out, c.qp->number);
                } else if (c.qp_unjoined) { // a number that is not this id's QP
                    append_number(out, c.qp_unjoined->number);
                    out += c.qp_unjoined->reason == QpUnjoined::gone ? "(gone)" : "(other)";
                } else {
                    out += '-';
                }
            });
            table_.plain_cell(c.qp ? name_or_dash(c.qp->type) : "-");
            table_.plain_cell(c.qp ? name_or_dash(c.qp->state) : "-");
            table_.plain_cell_by([&](std::string& out) { append_number_or_dash(out, c.netns); });
            table_.cell(container_text(c.owner));
            table_.cell(pod_text(c.owner));
            if (c.owner.cgroup) shown_cgroups_.insert(*c.owner.cgroup);
        }
        if (opts_.processes) table_.cell(owner_text(c.owner));
        table_.end_row();
        if (table_.size() >= listing_block_rows) table_.flush(out_, opts_.header);
    }
    void finish(const Snapshot& snap) override {
        table_.flush(out_, opts_.header);
        if (!opts_.extended) return;
        // The cgroups of the rows shown, and their ancestors the snapshot has.
        render_rdma_cgroups(out_, rdma_cgroups_covering(snap.rdma_cgroups, shown_cgroups_),
                            opts_.header);
    }

  private:
    static std::vector<std::string> headers(const TextOptions& opts) {
        // "Dev-Port": the RDMA device's port, not to be read as the TCP ports beside it.
        std::vector<std::string> h = {"Transport",     "Device",       "Dev-Port",
                                      "Local Address", "Peer Address", "State"};
        if (opts.extended)
            h.insert(h.end(), {"User", "Via", "CM-ID", "PS", "QPN", "QP-Type", "QP-State", "Netns",
                               "Container", "Pod"});
        if (opts.processes) h.push_back("PID/Program");
        return h;
    }

    std::ostream& out_;
    TextOptions opts_;
    Table table_;
    std::set<std::string> shown_cgroups_; ///< the owners' cgroups of the rows, with -e
};

} // namespace

std::unique_ptr<ListingWriter> text_listing_writer(std::ostream& out, const TextOptions& opts) {
    return std::make_unique<TextListing>(out, opts);
}

void render_listing(std::ostream& out, const std::vector<const Connection*>& connections,
                    const TextOptions& opts) {
    TextListing w(out, opts);
    write_listing(w, Snapshot{}, connections);
}

void render_marked_listing(std::ostream& out, const std::vector<MarkedConnection>& rows,
                           const TextOptions& opts) {
    TextListing w(out, opts, true);
    for (const MarkedConnection& r : rows)
        w.connection(*r.connection, r.mark == RowMark::appeared ? '+'
                                    : r.mark == RowMark::closed ? '-'
                                                                : ' ');
    w.finish(Snapshot{});
}

void render_devices(std::ostream& out, const std::vector<Device>& devices,
                    const TextOptions& opts) {
    Table table({"Device", "Index", "Transport", "Driver", "Node-Type", "Port", "State",
                 "Phys-State", "Netdev"});
    for (const Device& d : devices) {
        std::vector<std::string> common = {d.name, std::to_string(d.index), name_of(d.transport),
                                           or_dash(d.driver), name_or_dash(d.node_type)};
        if (d.ports.empty()) {
            common.insert(common.end(), {"-", "-", "-", "-"});
            table.add(std::move(common));
        }
        for (const Port& p : d.ports) {
            auto row = common;
            row.insert(row.end(), {std::to_string(p.index), name_or_dash(p.state),
                                   name_or_dash(p.phys_state), or_dash(p.netdev)});
            table.add(std::move(row));
        }
    }
    table.write(out, opts.header);

    // The GID tables, when collected, as show_gids lists them.
    Table gids({"Device", "Port", "Index", "GID", "Type", "Netdev", "VLAN", "Address"});
    for (const Device& d : devices)
        for (const Port& p : d.ports)
            for (const Gid& g : p.gids ? *p.gids : std::vector<Gid>{})
                gids.add({d.name, std::to_string(p.index), std::to_string(g.index),
                          g.gid.to_string(), name_or_dash(g.type), or_dash(g.netdev),
                          num_or_dash(g.vlan), g.address ? g.address->to_string() : "-"});
    if (gids.size()) {
        out << '\n';
        gids.write(out, opts.header);
    }
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
