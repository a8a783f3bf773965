// SPDX-License-Identifier: MIT
#include "render/check.h"

#include "common/text.h"
#include "model/names.h"
#include "render/table.h"
#include "render/text.h"

namespace rdmastat {

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

} // namespace rdmastat
