// SPDX-License-Identifier: MIT
// `rdmastat check`: the port-sharing diagnosis and its exit status.
#include "analysis/check.h"
#include "cli/commands.h"
#include "render/check.h"

namespace rdmastat {

int run_check(const CommonOptions& o, std::ostream& out, std::ostream& err) {
    try {
        Acquired a = acquire(o.input, source_of(o), Needs{true, true, false});
        if (a.no_devices && !o.json) {
            out << *a.no_devices << '\n';
            return 0;
        }
        if (a.no_devices) err << "rdmastat: " << *a.no_devices << '\n';
        CheckReport report = check_ports(a.snapshot);
        if (o.json) {
            write_check_json(out, a.snapshot, report, o.pretty);
        } else {
            render_check(out, report, !o.no_header);
            for (const std::string& m : report.missing)
                err << "rdmastat: check: " << m << '\n';
        }
        if (report.found_problem()) return 1;
        if (std::size_t n = report.count(Verdict::unknown)) {
            if (!o.json)
                err << "rdmastat: check: " << n << " port" << (n == 1 ? "" : "s")
                    << " could not be judged (UNKNOWN): see the reason\n";
            return 2;
        }
        return 0;
    } catch (const Error& e) {
        err << "rdmastat: " << e.what() << '\n';
        return 2;
    }
}

} // namespace rdmastat
