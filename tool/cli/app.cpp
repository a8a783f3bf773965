// SPDX-License-Identifier: MIT
#include "cli/app.h"

#include "analysis/filter.h"
#include "analysis/select.h"
#include "analysis/summary.h"
#include "cli/commands.h"
#include "cli/monitor.h"
#include "cli/say.h"
#include "common/error.h"
#include "render/output.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <mutex>
#include <set>
#include <sys/socket.h>

#ifndef RDMASTAT_VERSION
#define RDMASTAT_VERSION "0"
#endif

namespace rdmastat {

void add_source_option(CLI::App& app, std::optional<SourceChoice>& to, const std::string& what) {
    app.add_option_function<std::string>(
           "--source", [&to](const std::string& name) { to = enum_from_name<SourceChoice>(name); },
           what)
        ->type_name("auto|nldev|module")
        ->check(CLI::IsMember({"auto", "nldev", "module"}).description(""));
}

namespace {

struct Options : CommonOptions {
    bool all = false, listening = false, processes = false, extended = false;
    bool summary = false, ipv4 = false, ipv6 = false;
    std::vector<std::string> filter;
    MonitorOptions monitor;
};

TextOptions text_options(const Options& o) {
    return TextOptions{!o.no_header, o.numeric, o.processes, o.extended};
}

void add_output_flags(CLI::App& app, CommonOptions& o, bool numeric = true) {
    app.add_flag("-j,--json", o.json, "Print JSON (schema in rdmastat(8))");
    app.add_flag("--pretty", o.pretty, "Indent JSON output (with -j)");
    app.add_flag("-H,--no-header", o.no_header, "Omit the header line");
    if (numeric) app.add_flag("-n,--numeric", o.numeric, "Show uids instead of user names");
    app.add_option("--input", o.input,
                   "Read a saved JSON snapshot (- for stdin) instead of the kernel")
        ->type_name("FILE");
    add_source_option(app, o.source,
                      "Where cm_ids come from: the rdmastat module when loaded (auto), "
                      "NLDEV, or the module only");
}


int run_listing(const Options& o, std::ostream& out, std::ostream& err) {
    auto filter = Filter::parse(o.filter);
    if (!filter) throw Error(filter.error());
    Selection sel;
    // A state in the filter or -s widen the default to every id, as in ss.
    if (o.all || o.summary || filter.value().mentions_state()) sel.scope = Scope::all;
    if (o.listening) sel.scope = Scope::listening;
    if (o.ipv4 || o.ipv6) sel.family = o.ipv4 ? AF_INET : AF_INET6; // not both: excluded

    if (o.monitor.active())
        return run_monitor(o.monitor, o, o.summary, sel, filter.value(), text_options(o), out, err);

    const auto w = writer_for(output_of(o).take());
    if (o.summary) {
        Collection c = collect(o);
        require_all(c);
        if (ends_on_no_devices(c, *w, out, err)) return 0;
        w->summary(out, c.snapshot, summarize(select(c.snapshot, sel, filter.value())));
        return 0;
    }
    // The connections stream through the selection to the writer: a saved
    // snapshot of any size is listed in bounded memory.
    auto writer = w->listing(out, text_options(o));
    SelectingSink selection(sel, filter.value(), *writer);
    // A JSON listing is a snapshot: with its ports' addresses, `fabric` can
    // tell which host holds an address no id is bound to.
    Collection c = collect(o, Needs{.addresses = w->document()}, &selection);
    require_all(c);
    if (ends_on_no_devices(c, *w, out, err)) return 0;
    writer->finish(c.snapshot);
    return 0;
}

int run_devices(const CommonOptions& o, std::ostream& out, std::ostream& err) {
    const auto w = writer_for(output_of(o).take());
    Collection c = collect(o, Needs{.gids = true, .verbs_peers = false});
    require_all(c);
    if (ends_on_no_devices(c, *w, out, err)) return 0;
    w->devices(out, c.snapshot, TextOptions{!o.no_header, o.numeric});
    return 0;
}

} // namespace

void inherit(CommonOptions& sub, const CommonOptions& global) {
    sub.json |= global.json;
    sub.pretty |= global.pretty;
    sub.no_header |= global.no_header;
    sub.numeric |= global.numeric;
    if (!sub.input) sub.input = global.input;
    if (!sub.source) sub.source = global.source;
}

Collection collect(const CommonOptions& o, Needs needs, ConnectionSink* sink) {
    Collection c =
        run_pipeline(Request{o.input, o.source.value_or(SourceChoice::automatic), needs, sink});
    for (const std::string& w : c.warnings)
        warn_once(w);
    return c;
}

std::unique_ptr<Source> options_source(const CommonOptions& o) {
    class OptionsSource final : public Source {
      public:
        explicit OptionsSource(const CommonOptions& o) : o_(o) {}
        Collection collect(const Needs& needs) override { return rdmastat::collect(o_, needs); }

      private:
        CommonOptions o_;
    };
    return std::make_unique<OptionsSource>(o);
}

void warn_once(const std::string& what) {
    static std::mutex lock;
    static std::set<std::string> said;
    std::lock_guard<std::mutex> guard(lock);
    if (said.insert(what).second) say(std::cerr, "warning", what);
}

Result<Output> output_of(const CommonOptions& o) {
    if (o.pretty && !o.json) return Failure{"--pretty needs -j"};
    return Output{o.json ? Format::json : Format::text, o.pretty};
}

bool ends_on_no_devices(const Collection& c, const Writer& w, std::ostream& out,
                        std::ostream& err) {
    if (!c.no_devices) return false;
    if (w.document()) {
        say(err, "", *c.no_devices);
        return false;
    }
    out << *c.no_devices << '\n';
    return true;
}

namespace {

// Parses args and runs the one command they name.
int dispatch(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    Options o;
    CommonOptions dev_o, check_o;
    ExportOptions export_o;
    ServeOptions serve_o;
    LifeOptions life_o;
    CLI::App app("List RDMA connections (rdma_cm ids) like netstat lists TCP sockets.", "rdmastat");
    app.set_version_flag("-V,--version", RDMASTAT_VERSION);
    // Listing options: the devices command takes none of them.
    std::vector<CLI::Option*> listing = {
        app.add_flag("-a,--all", o.all, "Show every connection, listening or not"),
        app.add_flag("-l,--listening", o.listening,
                     "Show only listening cm_ids and UD QPs connected with verbs"),
        app.add_flag("-p,--processes", o.processes, "Show the owning PID/program"),
        app.add_flag("-e,--extend", o.extended,
                     "Show user, cm id, port space, QP and mapped addresses"),
        app.add_flag("-s,--summary", o.summary,
                     "Show counts per device, transport, state, process"),
        app.add_flag("-4,--ipv4", o.ipv4, "Only IPv4 cm_ids"),
        app.add_flag("-6,--ipv6", o.ipv6, "Only IPv6 cm_ids"),
    };
    listing[0]->excludes(listing[1]);
    listing[5]->excludes(listing[6]);
    for (CLI::Option* opt : add_monitor_options(app, o.monitor))
        listing.push_back(opt);
    add_output_flags(app, o);
    listing.push_back(app.add_option("filter", o.filter,
                                     "ss-style filter: state, src, dst, sport, dport, dev, pid, "
                                     "comm, user, transport; and/or/not/( )"));
    CLI::App* devices = app.add_subcommand("devices", "List RDMA devices and their ports");
    add_output_flags(*devices, dev_o);
    CLI::App* lsof = app.add_subcommand(
        "lsof", "List processes' RDMA files like lsof (rdmastat lsof --help for its options)");
    lsof->prefix_command(); // lsof's own options: cli/lsof_command.cpp parses them
    lsof->set_help_flag();
    CLI::App* ping = app.add_subcommand(
        "ping", "rping-compatible RDMA traffic generator (rdmastat ping --help for its options)");
    ping->prefix_command(); // ping's own options: cli/ping_command.cpp parses them
    ping->set_help_flag();
    CLI::App* kping = app.add_subcommand(
        "kping", "RDMA ping from the kernel, rdmastat_kping.ko (rdmastat kping --help)");
    kping->prefix_command(); // kping's own commands: cli/kping_command.cpp parses them
    kping->set_help_flag();
    CLI::App* check = app.add_subcommand("check", "Diagnose iWARP port sharing with host TCP");
    add_output_flags(*check, check_o, false);
    CLI::App* exporter = add_export_command(app, export_o);
    CLI::App* server = add_serve_command(app, serve_o);
    CLI::App* life = add_life_command(app, life_o);
    FabricOptions fabric_o;
    CLI::App* fabric = add_fabric_command(app, fabric_o);
    app.require_subcommand(0, 1);

    auto usage_error = [&](const std::string& message) { return say_usage(err, "", message); };
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    try {
        app.parse(reversed);
    } catch (const CLI::CallForHelp&) {
        out << app.help();
        return 0;
    } catch (const CLI::CallForVersion&) {
        out << "rdmastat " << RDMASTAT_VERSION << '\n';
        return 0;
    } catch (const CLI::ParseError& e) {
        return usage_error(e.what());
    }
    CLI::App* command = devices->parsed()    ? devices
                        : lsof->parsed()     ? lsof
                        : check->parsed()    ? check
                        : exporter->parsed() ? exporter
                        : server->parsed()   ? server
                        : ping->parsed()     ? ping
                        : kping->parsed()    ? kping
                        : life->parsed()     ? life
                        : fabric->parsed()   ? fabric
                                             : nullptr;
    if (command) {
        const std::string name = command->get_name();
        for (const CLI::Option* opt : listing)
            if (opt->count())
                return usage_error(opt->get_positional()
                                       ? "the " + name + " command takes no FILTER"
                                       : opt->get_name() + " does not apply to " + name);
    }
    if (lsof->parsed()) return run_lsof(lsof->remaining(), o, out, err);
    if (ping->parsed()) return run_ping(ping->remaining(), o, out, err);
    if (exporter->parsed() || server->parsed()) {
        ExportOptions& e = exporter->parsed() ? export_o : serve_o;
        inherit(e, o);
        if (e.json || e.pretty) return usage_error("-j does not apply to " + command->get_name());
        return exporter->parsed() ? run_export(e, out, err) : run_serve(serve_o, out, err);
    }
    if (kping->parsed()) return run_kping(kping->remaining(), o, out, err);
    if (fabric->parsed()) {
        inherit(fabric_o, o);
        return run_fabric(fabric_o, out, err);
    }
    if (life->parsed()) {
        inherit(life_o, o);
        if (life_o.pretty) return usage_error("--pretty does not apply to life (JSON lines)");
        return run_life(life_o, out, err);
    }
    inherit(dev_o, o);
    inherit(check_o, o);
    const CommonOptions& chosen = devices->parsed() ? dev_o : check->parsed() ? check_o : o;
    if (auto output = output_of(chosen); !output) return usage_error(output.error());
    if (check->parsed()) return run_check(check_o, out, err);

    if (devices->parsed()) return run_devices(dev_o, out, err);
    return run_listing(o, out, err);
}

} // namespace

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    // A fatal error of any command, said once; main says anything else.
    try {
        return dispatch(args, out, err);
    } catch (const Error& e) {
        return say_failed(err, "", e.what());
    }
}

} // namespace rdmastat
