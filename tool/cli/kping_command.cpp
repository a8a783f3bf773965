// SPDX-License-Identifier: MIT
// `rdmastat kping start|stop|show`: drives rdmastat_kping.ko over its generic
// netlink family (collect/kping) and shows its runs (render/kping).
#include "cli/commands.h"
#include "cli/parse_words.h"
#include "cli/say.h"
#include "collect/kping.h"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <chrono>
#include <linux/rdmastat_kping.h>
#include <thread>

namespace rdmastat {
namespace {

struct KpingApp {
    CLI::App app{"RDMA ping from the kernel: rdmastat_kping.ko's runs", "rdmastat kping"};
    KpingArgs a;
    bool client = false;
    std::string address, mode = "ping", mem = "frwr-local";
    std::uint32_t count = 0, size = 0, depth = 0;
    std::uint32_t timeout_ms = 0;
    CLI::App *start, *stop, *show;

    KpingApp() {
        app.require_subcommand(1, 1);
        add_output(app);
        start = app.add_subcommand("start", "Start a run (needs CAP_NET_ADMIN)");
        auto* s = start->add_flag("-s,--server", a.start.server, "Serve one client");
        auto* c = start->add_flag("-c,--client", client, "Connect to the server at -a");
        s->excludes(c);
        start
            ->add_option("-a,--address", address,
                         "Server address: to connect to, or to bind (default 0.0.0.0)")
            ->type_name("ADDR");
        start->add_option("-p,--port", a.start.port, "Port (default 7174, as rping)")
            ->type_name("PORT")
            ->check(CLI::Range(1, 65535));
        start->add_option("-C,--count", count, "Operations (0, the default: no limit)")
            ->type_name("COUNT");
        start
            ->add_option("-S,--size", size,
                         "Bytes per operation (client default 64; server default 65535)")
            ->type_name("SIZE");
        start->add_flag("-V,--validate", a.start.validate, "Client: check the echoed data");
        start->add_option("--mode", mode, "ping (rping's cycle), write-lat, write-bw, read-lat")
            ->type_name("MODE");
        start->add_option("--depth", depth, "Outstanding writes in write-bw (default 128)")
            ->type_name("N");
        start
            ->add_option("--mem", mem,
                         "frwr-local (default), frwr-remote or dma (needs the module parameter "
                         "allow_unsafe_global_rkey=1)")
            ->type_name("MEM");
        start
            ->add_option("--timeout", timeout_ms,
                         "Milliseconds any step of the run waits for its peer before the run "
                         "fails, as rdmastat ping's (100 to 3600000, default 10000)")
            ->type_name("MS");
        start->add_flag("-w,--wait", a.wait, "Wait for the run to end and show its last record");
        start
            ->add_option("--wait-timeout", a.wait_timeout_s,
                         "Seconds --wait waits before it stops the run (default 60)")
            ->type_name("SECONDS");
        add_output(*start);
        stop = app.add_subcommand("stop", "Stop a run and forget it (needs CAP_NET_ADMIN)");
        stop->add_option("id", a.id, "The run's id")->required();
        add_output(*stop);
        show = app.add_subcommand("show", "Show runs and their statistics");
        show->add_option("id", a.id, "Only this run");
        add_output(*show);
    }

    void add_output(CLI::App& sub) {
        sub.add_flag("-j,--json", a.common.json, "JSON output (schema in rdmastat-kping(8))");
        sub.add_flag("--pretty", a.common.pretty, "Indent JSON output (with -j)");
    }
};

Result<KpingSource> open_source() {
    auto src = KpingSource::open();
    if (!src) return Failure{"kping: " + src.error(), src.error_code()};
    if (!src.value())
        return Failure{
            "kping: rdmastat_kping.ko is not loaded (load it as root: modprobe rdmastat_kping)"};
    return std::move(*src.value());
}

// Polls until the run ended; stops it after timeout seconds.
Result<KpingRun> wait_for_end(KpingSource& src, std::uint32_t id, double timeout) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
    for (;;) {
        auto run = src.get(id);
        if (!run && run.error_code() == ENOENT)
            return Failure{"kping: run " + std::to_string(id) + " was stopped meanwhile"};
        if (!run) return run.failure();
        if (run.value().state >= KpingState::done) return run;
        if (std::chrono::steady_clock::now() > deadline) {
            auto last = src.stop(id);
            if (!last) return last.failure();
            return Failure{"kping: run " + std::to_string(id) + " still running after " +
                           std::to_string(static_cast<int>(timeout)) + " s: stopped it"};
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

} // namespace

std::string kping_help() {
    KpingApp p;
    return p.app.help() + "\n" + p.start->help() + "\n" + p.stop->help() + "\n" + p.show->help();
}

Result<KpingArgs> parse_kping_args(const std::vector<std::string>& args) {
    KpingApp p;
    auto help = parse_words(p.app, args, "kping");
    if (!help) return help.failure();
    p.a.help = help.value();
    if (p.a.help) return p.a;
    KpingArgs& a = p.a;
    a.command = p.start->parsed() ? "start" : p.stop->parsed() ? "stop" : "show";
    if (a.command != "start") return a;
    if (!a.start.server && !p.client)
        return Failure{"kping: start: give -s (server) or -c (client)"};
    if (p.address.empty() && p.client) return Failure{"kping: start: a client needs -a ADDR"};
    auto ip = IpAddress::parse(p.address.empty() ? "0.0.0.0" : p.address);
    if (!ip) return Failure{"kping: start: '" + p.address + "' is not an IPv4 or IPv6 address"};
    a.start.address = *ip;
    auto mode = enum_from_name<KpingMode>(p.mode, false);
    if (!mode) return Failure{"kping: start: unknown --mode '" + p.mode + "'"};
    auto mem = enum_from_name<KpingMem>(p.mem, false);
    if (!mem) return Failure{"kping: start: unknown --mem '" + p.mem + "'"};
    if (a.start.server && *mode != KpingMode::ping)
        return Failure{"kping: start: --mode is the client's (a server follows its client)"};
    a.start.mode = *mode;
    a.start.mem = *mem;
    if (p.start->count("-C")) a.start.count = p.count;
    if (p.start->count("-S")) a.start.size = p.size;
    if (p.start->count("--depth")) a.start.depth = p.depth;
    // The kernel's policy refuses a value out of its range, naming the attribute.
    if (p.start->count("--timeout")) a.start.timeout_ms = p.timeout_ms;
    return a;
}

int run_kping(const std::vector<std::string>& args, const CommonOptions& inherited,
              std::ostream& out, std::ostream& err) {
    KpingArgs a;
    if (auto done =
            start_command("kping", args, inherited, parse_kping_args, kping_help, out, err, a))
        return *done;
    const auto w = writer_for(output_of(a.common).take());
    auto src = open_source();
    if (!src) return say_failed(err, "", src.error());
    if (a.command == "show" && a.id) {
        auto r = src.value().get(*a.id);
        if (!r && r.error_code() == ENOENT) return say_failed(err, "kping", "no run ", *a.id);
        if (!r) return say_failed(err, "", r.error());
        w->kping_runs(out, {r.value()});
        return 0;
    }
    if (a.command == "show") {
        auto runs = src.value().collect();
        if (!runs) return say_failed(err, "kping", runs.error());
        w->kping_runs(out, runs.value());
        return 0;
    }
    Result<KpingRun> r =
        a.command == "stop" ? src.value().stop(a.id.value_or(0)) : src.value().start(a.start);
    if (r && a.command == "start" && a.wait)
        r = wait_for_end(src.value(), r.value().id, a.wait_timeout_s);
    if (!r) return say_failed(err, "", r.error());
    w->kping_run(out, r.value());
    return r.value().state == KpingState::failed ? 2 : 0;
}

} // namespace rdmastat
