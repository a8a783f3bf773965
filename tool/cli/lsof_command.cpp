// SPDX-License-Identifier: MIT
// `rdmastat lsof`: lsof's options, parsed as lsof parses them (CLI11 cannot take
// -i's optional value or lsof's glued forms), then selection and output.
#include "analysis/attribution.h"
#include "analysis/lsof.h"
#include "cli/commands.h"
#include "cli/say.h"
#include "render/lsof.h"

namespace rdmastat {
namespace {

Failure usage(const std::string& message) {
    return Failure{"lsof: " + message};
}

/// A long option: --name or --name=value.
Status parse_long(const std::vector<std::string>& args, std::size_t& i, LsofArgs& a) {
    std::string name = args[i];
    std::optional<std::string> value;
    if (auto eq = name.find('='); eq != name.npos) {
        value = name.substr(eq + 1);
        name.resize(eq);
    }
    CommonOptions& c = a.common;
    bool* flag = name == "--json"        ? &c.json
                 : name == "--pretty"    ? &c.pretty
                 : name == "--no-header" ? &c.no_header
                 : name == "--numeric"   ? &c.numeric
                 : name == "--help"      ? &a.help
                                         : nullptr;
    if (flag) {
        if (value) return usage(name + " takes no value");
        *flag = true;
        return Ok{};
    }
    if (name != "--input" && name != "--source") return usage("unknown option '" + name + "'");
    if (!value) {
        if (i + 1 >= args.size()) return usage(name + " needs a value");
        value = args[++i];
    }
    if (name == "--input") {
        c.input = *value;
    } else if (!(c.source = enum_from_name<SourceChoice>(*value))) {
        return usage("--source: '" + *value + "' is not auto, nldev or module");
    }
    return Ok{};
}

/// A group of short options, "-at", "-p123", "-i:80", whose last letter may take the
/// rest of the word or the next word as its value.
Status parse_short(const std::vector<std::string>& args, std::size_t& i, LsofArgs& a) {
    const std::string& w = args[i];
    for (std::size_t k = 1; k < w.size(); ++k) {
        char ch = w[k];
        std::string value = w.substr(k + 1);
        switch (ch) {
        case 'a':
            a.selectors.all_of = true;
            continue;
        case 't':
            a.terse = true;
            continue;
        case 'n':
            a.common.numeric = true;
            continue;
        case 'j':
            a.common.json = true;
            continue;
        case 'H':
            a.common.no_header = true;
            continue;
        case 'h':
            a.help = true;
            continue;
        case 'p':
        case 'c':
        case 'u': {
            if (value.empty()) {
                if (i + 1 >= args.size()) return usage(std::string("-") + ch + " needs a value");
                value = args[++i];
            }
            Status s = ch == 'p'   ? add_pid_list(a.selectors, value)
                       : ch == 'c' ? add_command(a.selectors, value)
                                   : add_user_list(a.selectors, value);
            if (!s) return s;
            return Ok{};
        }
        case 'i': {
            if (value.empty() && i + 1 < args.size() && !args[i + 1].starts_with("-"))
                value = args[++i];
            auto spec = parse_inet_spec(value);
            if (!spec) return spec.failure();
            a.selectors.inets.push_back(std::move(spec.value()));
            return Ok{};
        }
        default:
            return usage("unknown option '-" + std::string(1, ch) + "'");
        }
    }
    return Ok{};
}

void warn(std::ostream& err, const Snapshot& snap, const LsofArgs& a, const LsofResult& r) {
    if (!snap.processes_collected)
        say(err, "lsof", "processes were not looked up: no file descriptors shown");
    if (a.selectors.inet() && !snap.host_sockets_collected)
        say(err, "lsof", "host TCP sockets were not read: -i matched cm_ids only");
    for (const Process* p : r.uninspected)
        say(err, "lsof", "cannot read /proc/", p->pid, "/fd: permission denied");
    if (r.other_uninspected)
        say(err, "lsof", r.other_uninspected,
            " other processes could not be inspected: a socket listed without a process may be "
            "theirs");
}

} // namespace

Result<LsofArgs> parse_lsof_args(const std::vector<std::string>& args) {
    LsofArgs a;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& w = args[i];
        Status s = w.starts_with("--") ? parse_long(args, i, a)
                   : w.size() >= 2 && w.front() == '-'
                       ? parse_short(args, i, a)
                       : Status(usage("unexpected argument '" + w +
                                      "' (rdmastat lsof takes no file names)"));
        if (!s) return s.failure();
    }
    return a;
}

std::string lsof_help() {
    return R"(List the RDMA files of processes the way lsof lists open files.
Usage: rdmastat lsof [-a] [-t] [-n] [-p PID[,PID...]] [-c COMM] [-u USER[,USER...]]
                     [-i [4|6][tcp|udp][@ADDR][:PORT[,PORT|,LOW-HIGH...]]]
                     [-j [--pretty]] [-H] [--input FILE] [--source auto|nldev|module]

Rows per process: its cm_ids (TYPE RDMA_CM), QPs, CQs, MRs, PDs, contexts and SRQs,
its /dev/infiniband/* file descriptors (CHR) and, with -i, its TCP sockets (IPv4, IPv6).
-i :PORT lists every holder of the port: host TCP sockets, with or without a process,
and cm_ids in every RDMA port space.

Options:
  -p PID[,PID...]      Processes with these PIDs; ^PID excludes one
  -c COMM              Processes whose command name starts with COMM (repeatable); ^COMM excludes
  -u USER[,USER...]    Processes of these users, by name or uid; ^USER excludes one
  -i [SPEC]            Internet files: cm_ids and host TCP sockets matching
                       [4|6][tcp|udp][@ADDR][:PORT[,PORT|,LOW-HIGH...]]; IPv6 as [ADDR]
  -a                   AND the selections (default: OR); exclusions always apply
  -t                   PIDs only, one per line
  -n,--numeric         Show uids instead of user names
  -j,--json            Print JSON (schema in rdmastat(8))
  --pretty             Indent JSON output (with -j)
  -H,--no-header       Omit the header line
  --input FILE         Read a saved JSON snapshot (- for stdin) instead of the kernel
  --source SOURCE      Where cm_ids come from: auto, nldev or module
  -h,--help            Print this help and exit

Exit status: 0 when something was listed, 1 when nothing matched, 2 on errors.
)";
}

int run_lsof(const std::vector<std::string>& args, const CommonOptions& inherited,
             std::ostream& out, std::ostream& err) {
    auto usage_error = [&](const std::string& message) { return say_usage(err, "lsof", message); };
    auto parsed = parse_lsof_args(args);
    if (!parsed) return usage_error(parsed.error());
    LsofArgs a = std::move(parsed.value());
    if (a.help) {
        out << lsof_help();
        return 0;
    }
    CommonOptions& o = a.common;
    inherit(o, inherited);
    auto output = output_of(o);
    if (!output) return usage_error(output.error());
    const auto w = writer_for(output.value());
    if (a.terse && w->document()) return usage_error("lsof: -t and -j exclude each other");

    Collection c = collect(o, Needs{.host_sockets = a.selectors.inet(),
                                    .processes = true,
                                    .resources = true,
                                    .verbs_peers = false});
    require_all(c);
    if (c.no_devices && (w->document() || a.terse))
        say(err, "", *c.no_devices);
    else if (c.no_devices)
        out << *c.no_devices << '\n';
    Snapshot snap = with_attribution(std::move(c.snapshot));
    LsofResult r = select_lsof(snap, a.selectors);
    if (a.terse) return render_lsof_pids(out, r) ? 0 : 1;
    warn(err, snap, a, r);
    w->lsof(out, snap, r, LsofTextOptions{!o.no_header, o.numeric});
    return r.empty() ? 1 : 0;
}

} // namespace rdmastat
