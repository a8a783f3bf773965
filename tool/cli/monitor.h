// SPDX-License-Identifier: MIT
#pragma once

/// The monitoring commands: `-w` (watch), `-E` (events), `export` and `serve`.
/// run_cli (cli/app.cpp) registers their options with the add_* functions and
/// calls the run_* ones; each returns the exit code and says its errors (say.h).

#include "analysis/metrics.h"
#include "analysis/select.h"
#include "cli/commands.h"
#include "render/text.h"
#include "serve/http_server.h"

#include <CLI/CLI.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rdmastat {

/// How the tracepoints are followed: -E, life and serve --events.
struct TraceOptions {
    unsigned buffer_kib = 1024; ///< --events-buffer KIB: the ring buffer (a power of two)
    bool stats = false;         ///< --stats: say on exit what the run cost (-E, life)
};

/// Adds --events-buffer (and, with stats, --stats) to cmd; returns them.
std::vector<CLI::Option*> add_trace_options(CLI::App& cmd, TraceOptions& o, bool stats);

struct MonitorOptions {
    std::vector<std::string> watch; ///< -w given: empty or its one SECONDS word
    bool events = false;            ///< -E
    double interval = 1;            ///< --interval SECONDS (-E; -w's SECONDS wins for -w)
    unsigned count = 0;  ///< --count N: stop after N rounds (-E from tracepoints: events)
    double duration = 0; ///< --duration SECONDS: stop -E after that long (0: never)
    TraceOptions trace;  ///< --events-buffer, --stats
    const CLI::Option* watch_option = nullptr;
    bool watch_given() const { return watch_option && watch_option->count() > 0; }
    bool active() const { return watch_given() || events; }
};

/// Adds -w [SECONDS], -E, --interval, --count, --duration, --events-buffer and
/// --stats to the listing options;
/// returns them, for run_cli's check that a subcommand was not given them.
std::vector<CLI::Option*> add_monitor_options(CLI::App& app, MonitorOptions& o);

/// -w or -E on the listing's selection: sel and filter as the listing would use
/// them. Returns 2 on a usage error (-w with -E, -j or -s), runs until --count
/// rounds (or forever) otherwise; a runtime error is thrown as Error.
int run_monitor(MonitorOptions o, const CommonOptions& common, bool summary, Selection sel,
                const Filter& filter, const TextOptions& text, std::ostream& out,
                std::ostream& err);

/// -E from the kernel's tracepoints (cli/events_command.cpp, in rdmastat-full;
/// rdmastat execs that): an event line per tracepoint hit the selection and
/// filter admit, until --count events or a signal. Returns the exit code, or
/// nullopt when the tracepoints cannot be used here, after saying why once on
/// err: the caller then polls.
std::optional<int> run_traced_events(const MonitorOptions& o, const CommonOptions& common,
                                     const Selection& sel, const Filter& filter, std::ostream& out,
                                     std::ostream& err);

class DeviceFeed;

/// RDMA netlink's device events for -E and serve --events
/// (pipeline/device_feed.h), or nullptr once err has been told why, under
/// context, followed by instead (what the command does without them).
std::unique_ptr<DeviceFeed> device_feed(std::ostream& err, const char* context,
                                        const char* instead);

/// `rdmastat life`'s options: the listing's -4/-6 and FILTER, -E's --count
/// (connections) and --duration, and --interval for the polling fallback.
struct LifeOptions : CommonOptions {
    std::vector<std::string> filter;
    bool ipv4 = false, ipv6 = false;
    unsigned count = 0;
    double duration = 0;
    double interval = 1;
    TraceOptions trace;
};

CLI::App* add_life_command(CLI::App& app, LifeOptions& o);

/// `rdmastat life` (cli/events_command.cpp, in rdmastat-full; rdmastat execs
/// that): a line per connection as it ends, like tcplife: owner, device,
/// addresses, handshake latency, lifetime and how it ended. From the
/// tracepoints, else by polling (saying why once; lifetimes to the poll's
/// resolution, no handshake or reasons, and short ones missed).
int run_life(const LifeOptions& o, std::ostream& out, std::ostream& err);

struct ExportOptions : CommonOptions {
    bool per_process = false;   ///< --per-process
    bool per_container = false; ///< --per-container
    bool per_connection = false; ///< --per-connection
};

/// serve's own options.
struct ServeOptions : ExportOptions {
    std::string listen;          ///< --listen ADDR:PORT
    bool systemd_socket = false; ///< --systemd-socket
    std::string web_config;      ///< --web.config.file
    ServerLimits limits;         ///< --web.max-requests ... --web.request-timeout
    bool events = false;         ///< --events: the tracepoints' metrics too
    TraceOptions trace;          ///< --events-buffer
};

/// serve --events (cli/events_command.cpp): a thread that follows the
/// tracepoints into EventMetrics from start until destroyed.
class EventCollector {
  public:
    /// Starts following; when the tracepoints cannot be used, or following
    /// them fails later, says why on err once and reports rdmastat_events_up 0
    /// from then on (the counts so far stay).
    EventCollector(const CommonOptions& common, const TraceOptions& trace, std::ostream& err);
    ~EventCollector();
    EventCollector(const EventCollector&) = delete;
    EventCollector& operator=(const EventCollector&) = delete;
    /// rdmastat_events_up, then EventMetrics::families() when up.
    std::vector<MetricFamily> families() const;

  private:
    struct State;
    std::unique_ptr<State> state_;
};

CLI::App* add_export_command(CLI::App& app, ExportOptions& o);
CLI::App* add_serve_command(CLI::App& app, ServeOptions& o);

/// One scrape in Prometheus text; errors (cumulative for serve) counts each
/// failed part by name, and messages, when given, gets each failure's text.
/// Parts not begun by deadline, when given, are skipped and counted as errors.
std::string render_scrape(const ExportOptions& o, std::map<std::string, std::uint64_t>& errors,
                          std::vector<std::string>* messages,
                          std::optional<std::chrono::steady_clock::time_point> deadline = {});

/// `rdmastat export`: one scrape in Prometheus text on out; 0, or 2 when every
/// source failed (a partial scrape still prints and exits 0, its errors counted).
int run_export(const ExportOptions& o, std::ostream& out, std::ostream& err);
/// `rdmastat serve`: /metrics over HTTP until SIGINT or SIGTERM (then 0); 2
/// when its web config is refused or it cannot listen.
int run_serve(const ServeOptions& o, std::ostream& out, std::ostream& err);

} // namespace rdmastat
