// SPDX-License-Identifier: MIT
// `rdmastat export`: Prometheus metrics of one scrape, printed once; the
// scrape serve answers /metrics with (cli/serve_command.cpp).
#include "cli/monitor.h"
#include "cli/say.h"
#include "render/prometheus.h"

#include <chrono>
#include <sstream>

namespace rdmastat {

std::string render_scrape(const ExportOptions& o, std::map<std::string, std::uint64_t>& errors,
                          std::vector<std::string>* messages,
                          std::optional<std::chrono::steady_clock::time_point> deadline) {
    auto start = std::chrono::steady_clock::now();
    Collection s = collect(o, Needs{.host_sockets = true,
                                    .counters = true,
                                    .addresses = o.per_connection,
                                    // Only the per-connection series carry them.
                                    .verbs_peers = o.per_connection,
                                    .deadline = deadline});
    for (const PartError& e : s.errors)
        ++errors[name_of(e.part)];
    std::vector<MetricFamily> families =
        build_metrics(s.snapshot, MetricsOptions{o.per_process, o.per_container, o.per_connection});
    // The duration covers collection and analysis: known only now.
    ScrapeStats stats{
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), errors};
    std::ostringstream text;
    write_prometheus(text, families);
    write_prometheus(text, scrape_metrics(stats));
    if (messages)
        for (PartError& e : s.errors)
            messages->push_back(std::move(e.message));
    return std::move(text).str();
}

int run_export(const ExportOptions& o, std::ostream& out, std::ostream& err) {
    std::map<std::string, std::uint64_t> errors;
    std::vector<std::string> messages;
    std::string text = render_scrape(o, errors, &messages);
    for (const std::string& m : messages)
        say(err, "export", m);
    out << text;
    // Nothing could be read: the metrics only say so; the exit status too.
    return errors.count("connections") ? 2 : 0;
}

} // namespace rdmastat
