// SPDX-License-Identifier: MIT
// `rdmastat ping`: options as rping spells them, plus the modes and outputs of
// a measuring tool. The runs themselves are in ping/.
#include "cli/commands.h"
#include "cli/parse_words.h"
#include "cli/say.h"
#include "ping/ping.h"
#include "render/ping.h"

#include <CLI/CLI.hpp>
#include <mutex>
#include <unistd.h>

namespace rdmastat {
namespace {

using ping::PingOptions;

struct PingApp {
    CLI::App app{"rping-compatible RDMA traffic: rdmastat ping -s | -c -a ADDR", "rdmastat ping"};
    PingArgs a;
    bool client = false, lat = false, bw = false;
    std::uint32_t size = 0, depth = ping::default_depth;
    std::uint64_t count = 0;
    double duration = 0;

    PingApp() {
        PingOptions& o = a.ping;
        auto* s = app.add_flag("-s,--server", o.server, "Run the server (listens, echoes pings)");
        auto* c = app.add_flag("-c,--client", client, "Run the client (connects to -a)");
        s->excludes(c);
        app.add_option("-a,--address", o.address,
                       "Server address: to connect to, or to bind (default 0.0.0.0)")
            ->type_name("ADDR");
        app.add_option("-I,--source", o.source, "Client's source address")->type_name("ADDR");
        app.add_option("-p,--port", o.port, "Port (default 7174, as rping)")
            ->type_name("PORT")
            ->check(CLI::Range(1, 65535));
        app.add_option("-S,--size", size,
                       "Bytes per ping (client, default 64) or largest accepted (server, "
                       "default 65535)")
            ->type_name("SIZE");
        app.add_option("-C,--count", count,
                       "Pings, round trips or writes (0: no limit); a server serves COUNT "
                       "pings and leaves, as rping -s -C")
            ->type_name("COUNT");
        app.add_option("--duration", duration, "Stop the client after SECONDS")
            ->type_name("SECONDS");
        auto* l = app.add_flag("--lat", lat, "RDMA WRITE ping-pong latency (both ends rdmastat)");
        auto* b = app.add_flag("--bw", bw, "RDMA WRITE bandwidth (both ends rdmastat)");
        l->excludes(b);
        app.add_option("--depth", depth, "Outstanding RDMA WRITEs in --bw (default 128)")
            ->type_name("N");
        app.add_flag("-P,--persistent", o.persistent,
                     "Server: serve clients at once and keep serving until interrupted");
        app.add_flag("-v,--verbose", o.verbose, "Print each ping's data, as rping -v");
        app.add_flag("-V,--validate", o.validate, "Check the echoed data, as rping -V");
        app.add_flag("-q", o.self_qp,
                     "Create the QP with verbs and move it through its states, as rping -q");
        app.add_flag("-d,--debug", o.debug,
                     "Say each connection step on standard error, as rping -d");
        app.add_flag("--quiet", a.quiet, "Print only the result (and errors)");
        app.add_flag("-j,--json", a.common.json,
                     "Print results as JSON (schema in rdmastat-ping(8))");
        app.add_flag("--pretty", a.common.pretty, "Indent JSON output (with -j)");
        app.add_option("--timeout", o.timeout_ms,
                       "Milliseconds for each rdma_cm step and each client wait (default 5000)")
            ->type_name("MS");
    }
};

} // namespace

std::string ping_help() {
    return PingApp().app.help();
}

Result<PingArgs> parse_ping_args(const std::vector<std::string>& args) {
    PingApp p;
    auto help = parse_words(p.app, args, "ping");
    if (!help) return help.failure();
    p.a.help = help.value();
    if (p.a.help) return p.a;
    PingOptions& o = p.a.ping;
    if (!o.server && !p.client) return Failure{"ping: give -s (server) or -c (client)"};
    if (p.app.count("-S")) o.size = p.size;
    if (p.app.count("-C")) o.count = p.count;
    if (p.app.count("--duration")) o.duration = p.duration;
    o.depth = p.depth;
    o.mode = p.lat ? ping::Mode::lat : p.bw ? ping::Mode::bw : ping::Mode::rping;
    if (p.app.count("--depth") && o.mode != ping::Mode::bw)
        return Failure{"ping: --depth applies to --bw only"};
    if (auto st = ping::check_options(o); !st) return Failure{"ping: " + st.error()};
    return p.a;
}

int run_ping(const std::vector<std::string>& args, const CommonOptions& inherited,
             std::ostream& out, std::ostream& err) {
    PingArgs a;
    if (auto done = start_command("ping", args, inherited, parse_ping_args, ping_help, out, err, a))
        return *done;
    const auto w = writer_for(output_of(a.common).take());
    // Lines beside the result (progress, rping's -v data, notes) are text only:
    // with a document format, stdout is the result documents alone.
    const bool text = !w->document();
    const bool progress = !a.quiet && text && isatty(STDERR_FILENO);

    std::mutex mu; // a persistent server reports from several threads
    ping::Hooks hooks;
    if (progress)
        hooks.progress = [&](const ping::PingResult& r) {
            std::lock_guard lock(mu);
            err << '\r' << ping_progress_line(r) << "\033[K" << std::flush;
        };
    for (const std::string& note : ping::ignored_options(a.ping))
        say(err, "ping", note);
    if (a.ping.verbose && text)
        hooks.data = [&](const std::string& line) {
            std::lock_guard lock(mu);
            out << line << '\n' << std::flush;
        };
    if (a.ping.debug)
        hooks.note = [&](const std::string& line) {
            std::lock_guard lock(mu);
            err << "debug: " << line << '\n' << std::flush;
        };
    else if (!a.quiet && text)
        hooks.note = [&](const std::string& line) {
            std::lock_guard lock(mu);
            out << line << '\n' << std::flush;
        };
    auto report = [&](const ping::PingResult& r) {
        std::lock_guard lock(mu);
        if (progress) err << "\r\033[K";
        if (r.error) say(err, "ping", *r.error);
        w->ping_result(out, r);
        out << std::flush;
    };

    ping::Cancel& cancel = ping::Cancel::process();
    if (!a.ping.server) {
        ping::PingResult r = ping::run_client(a.ping, cancel, hooks);
        report(r);
        return r.error ? 2 : 0;
    }
    hooks.finished = report;
    auto failed = ping::run_server(a.ping, cancel, hooks);
    if (!failed) return say_failed(err, "ping", failed.error());
    return failed.value() && !a.ping.persistent ? 2 : 0;
}

} // namespace rdmastat
