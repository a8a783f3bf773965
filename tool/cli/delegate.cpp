// SPDX-License-Identifier: MIT
// ping, serve, -E, life and fabric --prometheus as the `rdmastat` binary runs
// them: it execs rdmastat-full, the same tool with these commands' code and
// libraries (verbs for ping; HTTP, TLS and compression for serve; libbpf for
// -E; libcurl for fabric's queries), so every other command starts without
// loading them. rdmastat-full and the tests link the real commands instead
// (cli/ping_command.cpp, cli/serve_command.cpp, cli/events_command.cpp,
// cli/fabric_query_command.cpp).
#include "cli/commands.h"
#include "cli/monitor.h"
#include "cli/say.h"

#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <unistd.h>

#ifndef RDMASTAT_HELPER_DIR
#error "RDMASTAT_HELPER_DIR: where rdmastat-full is installed"
#endif

namespace rdmastat {
namespace {

constexpr const char* helper_name = "rdmastat-full";

// The words this process was started with, as the kernel keeps them: the
// helper parses the same command line from its start.
std::vector<std::string> own_words() {
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    std::string all;
    char buf[4096];
    while (in.read(buf, sizeof(buf)) || in.gcount() > 0)
        all.append(buf, static_cast<std::size_t>(in.gcount()));
    std::vector<std::string> words;
    for (std::size_t at = 0; at < all.size();) {
        std::size_t end = all.find('\0', at);
        if (end == std::string::npos) end = all.size();
        words.push_back(all.substr(at, end - at));
        at = end + 1;
    }
    return words;
}

// Beside this binary first (a build tree, or both copied to one directory),
// else where the package installs it.
std::string helper_path() {
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n > 0) {
        std::string dir(self, static_cast<std::size_t>(n));
        dir.resize(dir.rfind('/') + 1);
        std::string sibling = dir + helper_name;
        if (access(sibling.c_str(), X_OK) == 0) return sibling;
    }
    return std::string(RDMASTAT_HELPER_DIR) + "/" + helper_name;
}

int run_helper(std::ostream& out, std::ostream& err) {
    std::vector<std::string> words = own_words();
    if (words.empty())
        return say_failed(err, "/proc/self/cmdline", "cannot read this command line");
    const std::string path = helper_path();
    std::vector<char*> argv;
    for (std::string& w : words)
        argv.push_back(w.data());
    argv.push_back(nullptr);
    out.flush();
    execv(path.c_str(), argv.data());
    return say_failed(err, path, std::strerror(errno),
                      " (rdmastat-full runs ping, serve, -E, life and fabric --prometheus)");
}

} // namespace

int run_ping(const std::vector<std::string>&, const CommonOptions&, std::ostream& out,
             std::ostream& err) {
    return run_helper(out, err);
}

int run_serve(const ServeOptions&, std::ostream& out, std::ostream& err) {
    return run_helper(out, err);
}

int run_life(const LifeOptions&, std::ostream& out, std::ostream& err) {
    return run_helper(out, err);
}

int run_fabric_query(const FabricOptions&, const Output&, std::ostream& out, std::ostream& err) {
    return run_helper(out, err);
}

std::optional<int> run_traced_events(const MonitorOptions&, const CommonOptions&, const Selection&,
                                     const Filter&, std::ostream& out, std::ostream& err) {
    return run_helper(out, err);
}

} // namespace rdmastat
