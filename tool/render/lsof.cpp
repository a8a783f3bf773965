// SPDX-License-Identifier: MIT
#include "render/lsof.h"

#include "analysis/select.h"
#include "common/format.h"
#include "model/names.h"
#include "render/table.h"
#include "render/text.h"

#include <set>
#include <sys/socket.h>

namespace rdmastat {

namespace {

/// lsof's form: "*" for the any address and for port 0.
void append_lsof_endpoint(std::string& out, const Endpoint& e) {
    if (e.address.is_any() || !e.address.family) {
        out += '*';
    } else if (e.address.family == AF_INET6) {
        out += '[';
        e.address.append_to(out);
        out += ']';
    } else {
        e.address.append_to(out);
    }
    out += ':';
    if (e.port)
        out += std::to_string(e.port);
    else
        out += '*';
}

std::string lsof_endpoint(const Endpoint& e) {
    std::string text;
    append_lsof_endpoint(text, e);
    return text;
}

void append_with_wire(std::string& out, const Endpoint& e, const std::optional<Endpoint>& wire) {
    append_lsof_endpoint(out, e);
    if (wire && *wire != e) {
        out += '(';
        append_lsof_endpoint(out, *wire);
        out += ')';
    }
}

// Addresses, a state and a flag: printable by construction (Table::plain_cell).
void append_connection_name(std::string& out, const Connection& c) {
    if (c.via == Via::verbs) {
        append_local_text(out, c, false);
        if (has_peer(c)) {
            out += "->";
            append_peer_text(out, c, false);
        }
    } else if (c.local)
        append_with_wire(out, *c.local, c.mapped_local);
    else
        out += "*:*";
    if (c.via == Via::cm && has_peer(c)) {
        out += "->";
        append_with_wire(out, *c.peer, c.mapped_peer);
    }
    out += " (";
    out += state_name(c);
    out += ')';
    if (c.internal) out += " [internal]";
}

std::string connection_name(const Connection& c) {
    std::string name;
    append_connection_name(name, c);
    return name;
}

std::string resource_name(const Resource& r) {
    std::string name = name_of(r.kind) + "n " + std::to_string(r.number);
    for (const auto& [key, value] : r.details) {
        if (key == "lkey" || key == "rkey") continue; // memory keys: JSON only
        name += (key == "type" || key == "state" ? " " : " " + key + " ") + value;
    }
    return name;
}

std::string socket_name(const HostSocket& s, const Connection* carries) {
    std::string name = lsof_endpoint(s.local);
    if (s.state != TcpState::listen && s.peer.port) name += "->" + lsof_endpoint(s.peer);
    name += " (" + name_of(s.state) + ")";
    if (carries)
        name += " [" + carries->device + " cm_id " + std::to_string(carries->cm_id.value_or(0)) +
                " of " + owner_text(carries->owner) + "]";
    return name;
}

std::string command_text(const LsofHolder& h) {
    if (h.kernel) return kernel_owner_text(*h.kernel);
    return h.comm.value_or("-");
}

std::string user_text(const LsofHolder& h, bool numeric) {
    if (h.user && !numeric) return *h.user;
    return h.uid ? std::to_string(*h.uid) : "-";
}

} // namespace

std::string lsof_type(const LsofFile& f) {
    switch (f.kind) {
    case LsofKind::cm_id:
        return "RDMA_CM";
    case LsofKind::resource: {
        std::string kind = name_of(f.resource->kind);
        for (char& ch : kind)
            if (ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
        return kind;
    }
    case LsofKind::chardev:
        return "CHR";
    case LsofKind::socket:
        return f.socket->local.address.family == AF_INET6 ? "IPv6" : "IPv4";
    }
    return "-";
}

std::string lsof_name(const LsofFile& f) {
    if (f.connection) return connection_name(*f.connection);
    if (f.resource) return resource_name(*f.resource);
    if (f.open_file) return f.open_file->target;
    if (f.socket) return socket_name(*f.socket, f.carries);
    return "-";
}

void render_lsof(std::ostream& out, const LsofResult& r, const LsofTextOptions& opts) {
    Table table({"COMMAND", "PID", "USER", "FD", "TYPE", "DEVICE", "NAME"});
    // Names a process chose (command, user, device, paths) are made printable;
    // numbers, types and a cm_id's addresses are plain (Table::plain_cell).
    auto number_or_dash = [](const std::optional<std::uint32_t>& n) {
        return [n](std::string& text) { append_number_or_dash(text, n); };
    };
    for (const LsofHolder& h : r.holders) {
        const std::string command = command_text(h);
        const std::string user = h.kernel ? "-" : user_text(h, opts.numeric);
        for (const LsofFile& f : h.files) {
            table.cell(command);
            table.plain_cell_by(number_or_dash(h.pid));
            table.cell(user);
            table.plain_cell_by(number_or_dash(f.fd));
            table.plain_cell(lsof_type(f));
            table.cell(f.connection ? f.connection->device : f.resource ? f.resource->device : "-");
            if (f.connection)
                table.plain_cell_by(
                    [&](std::string& name) { append_connection_name(name, *f.connection); });
            else
                table.cell(lsof_name(f));
            table.end_row();
        }
    }
    table.write(out, opts.header);
}

std::size_t render_lsof_pids(std::ostream& out, const LsofResult& r) {
    std::set<std::uint32_t> pids;
    for (const LsofHolder& h : r.holders)
        if (h.pid) pids.insert(*h.pid);
    for (std::uint32_t pid : pids)
        out << pid << '\n';
    return pids.size();
}

} // namespace rdmastat
