// SPDX-License-Identifier: MIT
// `rdmastat fabric`: both ends of every connection across hosts, from a
// Prometheus server or from one snapshot per host.
#include "analysis/fabric.h"
#include "cli/commands.h"
#include "cli/say.h"
#include "pipeline/fabric.h"

#include <CLI/CLI.hpp>

namespace rdmastat {

CLI::App* add_fabric_command(CLI::App& app, FabricOptions& o) {
    CLI::App* cmd = app.add_subcommand(
        "fabric", "Join both ends of every connection across hosts (Prometheus or snapshots)");
    cmd->add_option("--prometheus", o.prometheus,
                    "Read every host's rdmastat_connection_info from this Prometheus server")
        ->type_name("URL");
    cmd->add_option("--http.config.file", o.http_config,
                    "With --prometheus: TLS, authentication and proxy (Prometheus http_config)")
        ->type_name("FILE");
    cmd->add_option("--timeout", o.timeout, "Seconds each Prometheus query may take (default 10)")
        ->type_name("SECONDS")
        ->check(CLI::Range(0.1, 3600.0).description(""));
    cmd->add_flag("-a,--all", o.all, "List listeners too");
    cmd->add_option("--port", o.port, "Only connections and listeners bound to PORT")
        ->type_name("PORT")
        ->check(CLI::Range(1, 65535).description(""));
    cmd->add_flag("-e,--extend", o.extended, "Show each end's container and pod");
    cmd->add_flag("-j,--json", o.json, "Print JSON (schema in rdmastat(8))");
    cmd->add_flag("--pretty", o.pretty, "Indent JSON output (with -j)");
    cmd->add_flag("-H,--no-header", o.no_header, "Omit the header line");
    cmd->add_option("snapshot", o.files,
                    "A host's saved snapshot (rdmastat -a -j), named NAME or after the file")
        ->type_name("[NAME=]FILE");
    return cmd;
}

int run_fabric(const FabricOptions& o, std::ostream& out, std::ostream& err) {
    const auto usage = [&](const std::string& why) {
        return say_usage(err, "fabric", "fabric: " + why);
    };
    if (o.input || o.source) return usage("--input and --source do not apply to fabric");
    if (o.prometheus.has_value() == !o.files.empty())
        return usage(o.prometheus ? "give --prometheus or snapshot files, not both"
                                  : "give --prometheus URL or one snapshot file per host");
    if (o.http_config && !o.prometheus) return usage("--http.config.file needs --prometheus");
    auto output = output_of(o);
    if (!output) return usage(output.error());
    if (o.prometheus) return run_fabric_query(o, output.value(), out, err);

    auto in = load_fabric_files(o.files);
    if (!in) return say_failed(err, "fabric", in.error());
    return show_fabric(o, output.value(), in.value(), out, err);
}

int show_fabric(const FabricOptions& o, const Output& output, const FabricInput& in,
                std::ostream& out, std::ostream& err) {
    for (const std::string& w : in.warnings)
        say(err, "warning: fabric", w);
    const FabricView view = join_fabric(in, FabricQuery{o.all, o.port});
    writer_for(output)->fabric(out, in, view, FabricTextOptions{!o.no_header, o.extended});
    return view.of(FabricStatus::half_open) || view.of(FabricStatus::disagree) ? 1 : 0;
}

} // namespace rdmastat
