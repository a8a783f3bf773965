// SPDX-License-Identifier: MIT
// `rdmastat check`: the port-sharing diagnosis and its exit status.
#include "analysis/check.h"
#include "cli/commands.h"
#include "cli/say.h"

namespace rdmastat {

int run_check(const CommonOptions& o, std::ostream& out, std::ostream& err) {
    const auto w = writer_for(output_of(o).take());
    Collection c = collect(o, Needs{.host_sockets = true, .processes = true, .verbs_peers = false});
    require_all(c);
    if (ends_on_no_devices(c, *w, out, err)) return 0;
    CheckReport report = check_ports(c.snapshot);
    w->check(out, c.snapshot, report, !o.no_header);
    // A document carries these in "missing" and the verdicts; text says them on stderr.
    const bool text = !w->document();
    if (text)
        for (const std::string& m : report.missing)
            say(err, "check", m);
    if (report.found_problem()) return 1;
    if (std::size_t n = report.count(Verdict::unknown)) {
        if (text)
            say(err, "check", n, " port", n == 1 ? "" : "s",
                " could not be judged (UNKNOWN): see the reason");
        return 2;
    }
    return 0;
}

} // namespace rdmastat
