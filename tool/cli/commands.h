// SPDX-License-Identifier: MIT
#pragma once

/// The lsof and check commands, run by run_cli (cli/app.cpp) after it has seen
/// their word. Each prints its own results and warnings and returns the exit code;
/// usage and runtime errors print one "rdmastat: ..." line and return 2.

#include "analysis/lsof_select.h"
#include "cli/say.h"
#include "common/error.h"
#include "model/kping.h"
#include "ping/ping.h"
#include "pipeline/pipeline.h"
#include "render/output.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace rdmastat {

/// Output and source options, also taken before a command's word.
struct CommonOptions {
    bool json = false, pretty = false, no_header = false, numeric = false;
    std::optional<std::string> input;
    std::optional<SourceChoice> source; ///< --source
};

/// Adds global's options to sub's: the flags given before a command's word apply
/// to it too; sub's own --input and --source win.
void inherit(CommonOptions& sub, const CommonOptions& global);

/// --source: "auto", "nldev" or "module" into to.
void add_source_option(CLI::App& app, std::optional<SourceChoice>& to, const std::string& what);

/// The pipeline on o's --input or the live system, with o's --source: what
/// every command that lists does first. Its warnings are said on stderr, each
/// once per run (serve and -w collect again and again); its errors are the
/// caller's (pipeline.h's policy). With a sink, the connections go to it
/// (Request::sink).
Collection collect(const CommonOptions& o, Needs needs = {}, ConnectionSink* sink = nullptr);

/// collect() on o as a Source, for the loops that collect round after round
/// (pipeline/poll.h): each collection is a new run of the pipeline, so a module
/// loaded since the last round is seen.
std::unique_ptr<Source> options_source(const CommonOptions& o);

/// Prints "rdmastat: warning: WHAT" on stderr, once per distinct text per run.
void warn_once(const std::string& what);

/// The output format of a command's result: the one place -j and --pretty are
/// read. --pretty without -j is refused ("--pretty needs -j").
Result<Output> output_of(const CommonOptions& o);

/// "No RDMA devices" (or why none could be read), when c has that line: in text,
/// it is the command's output and the command ends there (true); with a
/// document format it goes to stderr and the command still writes its
/// document (false).
bool ends_on_no_devices(const Collection& c, const Writer& w, std::ostream& out, std::ostream& err);

/// What ping and kping do first: refuse the listing's --input and --source,
/// parse the words after the command's name (a usage error points to `rdmastat
/// NAME --help`), answer --help, and merge -j and --pretty given before the name
/// (--pretty needs -j). Returns the exit status when that is all, else nullopt
/// with parsed filled.
template <typename Args, typename Parse, typename Help>
std::optional<int> start_command(const std::string& name, const std::vector<std::string>& words,
                                 const CommonOptions& inherited, Parse parse, Help help,
                                 std::ostream& out, std::ostream& err, Args& parsed) {
    if (inherited.input || inherited.source)
        return say_failed(err, name, "--input and --source do not apply to ", name);
    auto r = parse(words);
    if (!r) return say_usage(err, name, r.error());
    parsed = r.take();
    if (parsed.help) {
        out << help();
        return 0;
    }
    parsed.common.json = parsed.common.json || inherited.json;
    parsed.common.pretty = parsed.common.pretty || inherited.pretty;
    if (auto output = output_of(parsed.common); !output)
        return say_failed(err, name, output.error());
    return std::nullopt;
}

struct LsofArgs {
    LsofSelectors selectors;
    bool terse = false; ///< -t
    bool help = false;  ///< -h, --help
    CommonOptions common;
};

/// Parses the words after "lsof" as lsof(8) does: short options may be grouped
/// ("-at") and take their value glued or as the next word ("-p1", "-p 1"); -i's value
/// is optional and is the next word only when that does not start with '-'. Long
/// options: --json, --pretty, --no-header, --numeric, --help, --input FILE and
/// --source NAME (also "--input=FILE"). A Failure starts "lsof: ", e.g.
/// "lsof: unknown option '-x'" or a selector's error (lsof_select.h).
Result<LsofArgs> parse_lsof_args(const std::vector<std::string>& args);

/// The text of `rdmastat lsof --help`.
std::string lsof_help();

/// `rdmastat lsof`: inherited holds the output options given before the word.
/// Exit 0 when it listed something, 1 when nothing matched, 2 on an error.
int run_lsof(const std::vector<std::string>& args, const CommonOptions& inherited,
             std::ostream& out, std::ostream& err);

struct PingArgs {
    ping::PingOptions ping;
    bool quiet = false; ///< -q
    bool help = false;  ///< -h, --help
    CommonOptions common;
};

/// Parses the words after "ping" (rping's letters: -s -c -a -I -p -S -C -v -V -P,
/// plus -q -j --pretty --lat --bw --depth --duration --timeout) and checks the
/// combination (ping::check_options). A Failure starts "ping: ".
Result<PingArgs> parse_ping_args(const std::vector<std::string>& args);

/// The text of `rdmastat ping --help`.
std::string ping_help();

/// `rdmastat ping`: the client prints its result and exits 0, or 2 on an error
/// (an interrupted run is not one); the server prints each connection's result
/// and exits 0 when interrupted, 2 when it could not listen or, without -P,
/// when its one connection failed.
int run_ping(const std::vector<std::string>& args, const CommonOptions& inherited,
             std::ostream& out, std::ostream& err);

struct KpingArgs {
    std::string command; ///< "start", "stop" or "show"
    KpingStart start;
    std::optional<std::uint32_t> id; ///< stop's run; show's only run
    bool wait = false;               ///< start --wait
    double wait_timeout_s = 60;
    bool help = false;
    CommonOptions common;
};

/// Parses the words after "kping": start (-s | -c -a ADDR, -p, -C, -S, -V, --mode,
/// --depth, --mem, --timeout, --wait, --wait-timeout), stop ID, show [ID]; each with -j and
/// --pretty. A Failure starts "kping: ".
Result<KpingArgs> parse_kping_args(const std::vector<std::string>& args);

/// The text of `rdmastat kping --help` (with the three commands' options).
std::string kping_help();

/// `rdmastat kping`: exit 0 on success, 2 on an error (the module not loaded,
/// the kernel's refusal, a start --wait whose run failed).
int run_kping(const std::vector<std::string>& args, const CommonOptions& inherited,
              std::ostream& out, std::ostream& err);

/// `rdmastat check`: exit 0 when every verdict is OK or INFO, 1 when any is
/// CONFLICT or UNRESERVED, else 2 when any is UNKNOWN; 2 on an error.
int run_check(const CommonOptions& o, std::ostream& out, std::ostream& err);

/// `rdmastat fabric`'s options (cli/fabric_command.cpp).
struct FabricOptions : CommonOptions {
    std::optional<std::string> prometheus;  ///< --prometheus URL
    std::optional<std::string> http_config; ///< --http.config.file FILE
    std::vector<std::string> files;         ///< [NAME=]FILE...
    double timeout = 10;                   ///< --timeout SECONDS, per query
    bool all = false;                      ///< -a: listeners too
    bool extended = false;                 ///< -e: containers and pods
    std::optional<std::uint16_t> port;     ///< --port PORT
};

/// Registers `fabric` and its options with the parser.
CLI::App* add_fabric_command(CLI::App& app, FabricOptions& o);

/// `rdmastat fabric`: exit 0 when every connection has both ends up, 1 when a
/// row is half-open or its ends disagree, 2 on an error.
int run_fabric(const FabricOptions& o, std::ostream& out, std::ostream& err);

/// `rdmastat fabric --prometheus`, its options checked and its output format
/// chosen: in rdmastat-full (cli/fabric_query_command.cpp; libcurl);
/// `rdmastat` execs that for it.
int run_fabric_query(const FabricOptions& o, const Output& output, std::ostream& out,
                     std::ostream& err);

/// The fabric of in, its warnings on err, as o and output ask; run_fabric's
/// exit code.
int show_fabric(const FabricOptions& o, const Output& output, const FabricInput& in,
                std::ostream& out, std::ostream& err);

} // namespace rdmastat
