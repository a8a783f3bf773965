// SPDX-License-Identifier: MIT
#include "render/check.h"

#include "common/text.h"
#include "model/names.h"
#include "render/json_common.h"
#include "render/table.h"
#include "render/text.h"

namespace rdmastat {
namespace {

using json_common::json;
using json_common::put;

json check_json(const PortCheck& c) {
    json j;
    j["verdict"] = verdict_name(c.verdict);
    j["device"] = c.device;
    j["transport"] = transport_name(c.transport);
    put(j, "driver", c.driver);
    j["address"] = c.local.address.to_string();
    j["port"] = c.local.port;
    put(j, "port_space", c.port_space);
    if (c.wire) j["wire"] = json_common::endpoint(*c.wire);
    j["cm_ids"] = c.cm_ids;
    j["owner"] = json_common::owner(c.owner);
    if (c.host_socket)
        j["host_socket"] = json_common::host_socket(*c.host_socket, c.host_socket_comm);
    else if (c.sockets_known)
        j["host_socket"] = nullptr;
    j["reason"] = c.reason;
    return j;
}

} // namespace

void render_check(std::ostream& out, const CheckReport& report, bool header) {
    if (report.checks.empty()) {
        out << "no RDMA ports in use\n";
        return;
    }
    Table table({"Verdict", "Device", "Address", "PS", "PID/Program", "Reason"});
    for (const PortCheck& c : report.checks) {
        std::string address = c.local.to_string();
        if (c.wire) address += "(" + c.wire->to_string() + ")";
        table.add({std::string(verdict_name(c.verdict)), c.device, address,
                   c.port_space ? port_space_name(*c.port_space) : "-", owner_text(c.owner),
                   c.reason});
    }
    table.write(out, header);
}

void write_check_json(std::ostream& out, const Snapshot& snap, const CheckReport& report,
                      bool pretty) {
    json j = json_common::header(snap);
    json checks = json::array();
    for (const PortCheck& c : report.checks)
        checks.push_back(check_json(c));
    j["checks"] = std::move(checks);
    json& summary = j["summary"];
    for (Verdict v :
         {Verdict::ok, Verdict::info, Verdict::unknown, Verdict::unreserved, Verdict::conflict}) {
        summary[lower(verdict_name(v))] = report.count(v);
    }
    j["missing"] = report.missing;
    json_common::emit(out, j, pretty);
}

} // namespace rdmastat
