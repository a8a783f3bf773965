// SPDX-License-Identifier: MIT
#include "render/check.h"

#include "common/text.h"
#include "model/names.h"
#include "render/json_writer.h"
#include "render/table.h"
#include "render/text.h"

namespace rdmastat {

using schema::Presence;

/// A host socket as check and lsof show it: the snapshot's members, and after
/// "fd" the comm of the process holding it.
struct HeldSocket {
    const HostSocket& socket;
    const std::optional<std::string>& comm;
};
template <typename V> void describe(const HeldSocket& h, V&& v) {
    schema::describe(h.socket, [&](std::string_view key, const auto& m, Presence p) {
        v(key, m, p);
        if (key == "fd" && h.socket.pid) v("comm", h.comm, Presence::optional);
    });
}

template <typename V> void describe(const PortCheck& c, V&& v) {
    v("verdict", name_of(c.verdict), Presence::required);
    v("device", c.device, Presence::required);
    v("transport", c.transport, Presence::required);
    v("driver", c.driver, Presence::optional);
    v("address", c.local.address, Presence::required);
    v("port", c.local.port, Presence::required);
    v("port_space", c.port_space, Presence::optional);
    v("wire", c.wire, Presence::optional);
    v("cm_ids", c.cm_ids, Presence::required);
    v("owner", c.owner, Presence::required);
    std::optional<HeldSocket> held;
    if (c.host_socket) held.emplace(HeldSocket{*c.host_socket, c.host_socket_comm});
    if (held || c.sockets_known) v("host_socket", held, Presence::nullable);
    v("reason", c.reason, Presence::required);
}

void render_check(std::ostream& out, const CheckReport& report, bool header) {
    if (report.checks.empty()) {
        out << "no RDMA ports in use\n";
        return;
    }
    Table table({"Verdict", "Device", "Address", "PS", "PID/Program", "Reason"});
    for (const PortCheck& c : report.checks) {
        std::string address = c.local.to_string();
        if (c.wire) address += "(" + c.wire->to_string() + ")";
        table.add({name_of(c.verdict), c.device, address,
                   c.port_space ? name_of(*c.port_space) : "-", owner_text(c.owner), c.reason});
    }
    table.write(out, header);
}

void write_check_json(std::ostream& out, const Snapshot& snap, const CheckReport& report,
                      bool pretty) {
    write_json(out, schema::members([&](auto& v) {
                   describe_header(snap, v);
                   v("checks", report.checks, Presence::required);
                   v("summary", schema::members([&](auto& counts) {
                         for (std::size_t i = 0; i < verdict_count; ++i) {
                             const auto verdict = static_cast<Verdict>(i);
                             counts(lower(name_of(verdict)), report.count(verdict),
                                    Presence::required);
                         }
                     }),
                     Presence::required);
                   v("missing", report.missing, Presence::required);
               }),
               pretty);
}

} // namespace rdmastat
