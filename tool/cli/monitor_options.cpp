// SPDX-License-Identifier: MIT
// The options of -w, -E, export and serve, registered with run_cli's parser.
#include "cli/monitor.h"

#include <algorithm>
#include <unistd.h>

namespace rdmastat {
namespace {

void add_scrape_flags(CLI::App& cmd, ExportOptions& o) {
    cmd.add_option("--input", o.input, "Export a saved JSON snapshot instead of the kernel")
        ->type_name("FILE");
    add_source_option(cmd, o.source, "Where cm_ids come from (as for the listing)");
    cmd.add_flag("--per-process", o.per_process,
                 "Add rdmastat_process_connections, one series per process (cardinality!)");
    cmd.add_flag("--per-container", o.per_container,
                 "Add rdmastat_container_connections, one series per container or pod");
    cmd.add_flag("--per-connection", o.per_connection,
                 "Add rdmastat_connection_info, one series per cm_id, and "
                 "rdmastat_port_address_info (rdmastat fabric's input)");
}

// The ring buffer's size in KiB: the kernel wants a power of two pages.
const CLI::Validator ring_buffer_kib(
    [](std::string& word) -> std::string {
        unsigned long kib = 0;
        try {
            kib = std::stoul(word);
        } catch (const std::exception&) {
            return "not a number of KiB: " + word;
        }
        long page_kib = std::max(1L, sysconf(_SC_PAGESIZE) / 1024);
        if (kib < static_cast<unsigned long>(page_kib) || kib > (1UL << 20) || (kib & (kib - 1)))
            return "expected a power of two from " + std::to_string(page_kib) +
                   " (a page) to 1048576 KiB, not " + word;
        return {};
    },
    "", "power of two");

} // namespace

std::vector<CLI::Option*> add_trace_options(CLI::App& cmd, TraceOptions& o, bool stats) {
    std::vector<CLI::Option*> added{
        cmd.add_option("--events-buffer", o.buffer_kib,
                       "KiB of ring buffer between the tracepoints and rdmastat (default 1024); "
                       "events that find it full are counted as lost")
            ->type_name("KIB")
            ->check(ring_buffer_kib)};
    if (stats)
        added.push_back(cmd.add_flag("--stats", o.stats,
                                     "On exit, say on stderr how many events, how many lost, "
                                     "their delay from the kernel to the output, and CPU time"));
    return added;
}

std::vector<CLI::Option*> add_monitor_options(CLI::App& app, MonitorOptions& o) {
    CLI::Option* watch =
        app.add_option("-w,--watch", o.watch,
                       "Refresh the listing every SECONDS (default 1), marking ids that "
                       "appeared (+) or closed (-), with port counter rates")
            ->expected(0, 1)
            ->type_name("[SECONDS]");
    o.watch_option = watch;
    std::vector<CLI::Option*> added = {
        watch,
        app.add_flag("-E,--events", o.events,
                     "Print a line per cm_id that appears, changes state or closes (-j: JSON "
                     "lines)"),
        app.add_option("--interval", o.interval, "Seconds between polls of -E (default 1)")
            ->type_name("SECONDS"),
        app.add_option("--count", o.count,
                       "Stop -w or -E after N rounds (-E from tracepoints: N events)")
            ->type_name("N"),
        app.add_option("--duration", o.duration, "Stop -E after SECONDS")
            ->type_name("SECONDS")
            ->check(CLI::Range(0.0, 31'536'000.0).description("")),
    };
    CLI::Option* events = added[1];
    for (CLI::Option* opt : add_trace_options(app, o.trace, true))
        added.push_back(opt->needs(events));
    return added;
}

CLI::App* add_life_command(CLI::App& app, LifeOptions& o) {
    CLI::App* cmd = app.add_subcommand(
        "life", "A line per RDMA connection as it ends: owner, lifetime, handshake, how it ended");
    cmd->add_flag("-j,--json", o.json, "JSON lines (as -E -j's closed events)");
    cmd->add_flag("-H,--no-header", o.no_header, "Omit the header line");
    auto* v4 = cmd->add_flag("-4,--ipv4", o.ipv4, "Only IPv4 connections");
    cmd->add_flag("-6,--ipv6", o.ipv6, "Only IPv6 connections")->excludes(v4);
    cmd->add_option("--count", o.count, "Stop after N connections")->type_name("N");
    cmd->add_option("--duration", o.duration, "Stop after SECONDS")
        ->type_name("SECONDS")
        ->check(CLI::Range(0.0, 31'536'000.0).description(""));
    cmd->add_option("--interval", o.interval,
                    "Seconds between polls when the tracepoints cannot be used (default 1)")
        ->type_name("SECONDS")
        ->check(CLI::Range(0.01, 86400.0).description(""));
    add_source_option(*cmd, o.source, "Where the first dump and polls read cm_ids");
    add_trace_options(*cmd, o.trace, true);
    cmd->add_option("filter", o.filter, "ss-style filter, as the listing's");
    return cmd;
}

CLI::App* add_export_command(CLI::App& app, ExportOptions& o) {
    CLI::App* cmd = app.add_subcommand("export", "Print Prometheus metrics once");
    add_scrape_flags(*cmd, o);
    return cmd;
}

CLI::App* add_serve_command(CLI::App& app, ServeOptions& o) {
    CLI::App* cmd = app.add_subcommand("serve", "Serve Prometheus metrics at /metrics over HTTP");
    add_scrape_flags(*cmd, o);
    CLI::Option* listen =
        cmd->add_option("--listen", o.listen, "Address and port to listen on, e.g. 127.0.0.1:9876")
            ->type_name("ADDR:PORT");
    CLI::Option* systemd = cmd->add_flag("--systemd-socket", o.systemd_socket,
                                         "Serve on the socket systemd passes (socket activation)");
    listen->excludes(systemd);
    CLI::Option* events =
        cmd->add_flag("--events", o.events,
                      "Also count CM events, connect failures and handshake latency from the "
                      "rdma_cma tracepoints (root, or CAP_SYS_ADMIN)");
    for (CLI::Option* opt : add_trace_options(*cmd, o.trace, false))
        opt->needs(events);
    cmd->add_option("--web.config.file", o.web_config,
                    "TLS, basic auth and headers, in exporter-toolkit's web config format")
        ->type_name("FILE");
    cmd->add_option("--web.max-requests", o.limits.max_requests,
                    "Scrapes (and password checks) in progress at once; beyond: 503 (0: no "
                    "limit; default 40)")
        ->type_name("N");
    cmd->add_option("--web.max-connections", o.limits.max_connections,
                    "Connections open at once (default 4096)")
        ->type_name("N")
        ->check(CLI::Range(1u, 1'000'000u).description(""));
    cmd->add_option("--web.max-connections-per-client", o.limits.max_client_connections,
                    "Connections open at once from one address (0: no limit; default 128)")
        ->type_name("N");
    cmd->add_option("--web.idle-timeout", o.limits.idle_timeout,
                    "Seconds a connection may stay silent before it is closed (default 10)")
        ->type_name("SECONDS")
        ->check(CLI::Range(1u, 3600u).description(""));
    cmd->add_option("--web.request-timeout", o.limits.request_timeout,
                    "Seconds a connection has to send a whole request, from its start or its "
                    "last answer (0: no limit; default 10)")
        ->type_name("SECONDS")
        ->check(CLI::Range(0u, 3600u).description(""));
    return cmd;
}

} // namespace rdmastat
