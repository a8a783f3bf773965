// SPDX-License-Identifier: MIT
// `rdmastat serve`: the scrape of `rdmastat export` at /metrics over HTTP or
// HTTPS (serve/http_server.h). Linked into rdmastat-full only: the HTTP, TLS
// and YAML libraries load for serve's runs, not for every command
// (cli/delegate.cpp).
#include "cli/monitor.h"
#include "cli/say.h"
#include "render/prometheus.h"
#include "serve/http_server.h"

#include <csignal>
#include <pthread.h>
#include <sstream>

namespace rdmastat {

namespace {

// Room for the descriptors serve needs besides its connections (netlink, /proc,
// the worker's files).
constexpr unsigned spare_fds = 64;

} // namespace

int run_serve(const ServeOptions& o, std::ostream& out, std::ostream& err) {
    auto fail = [&](const std::string& message) { return say_failed(err, "serve", message); };
    if (o.listen.empty() && !o.systemd_socket)
        return fail("where to listen: give --listen ADDR:PORT or --systemd-socket");
    WebConfig config;
    if (!o.web_config.empty()) {
        Result<WebConfig> loaded = load_web_config(o.web_config);
        if (!loaded) return fail(loaded.error());
        config = std::move(loaded.value());
    }
    ServerLimits limits = o.limits;
    unsigned fds = raise_fd_limit(limits.max_connections + spare_fds);
    if (fds < limits.max_connections + spare_fds) {
        limits.max_connections = fds > 2 * spare_fds ? fds - spare_fds : fds / 2;
        say(err, "serve", "the descriptor limit is ", fds, ": at most ", limits.max_connections,
            " connections (--web.max-connections)");
    }
    Result<int> fd = o.systemd_socket ? systemd_socket() : listen_on(o.listen);
    if (!fd) return fail(fd.error());
    std::string where = socket_address(fd.value());

    // SIGINT and SIGTERM end serve cleanly: blocked here, before any thread
    // starts (the threads inherit the mask), and awaited below.
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, nullptr);

    std::unique_ptr<EventCollector> events;
    if (o.events) events = std::make_unique<EventCollector>(o, o.trace, err);
    // Only the scrape worker touches these.
    std::map<std::string, std::uint64_t> errors;
    auto scrape = [&](Deadline deadline) {
        std::vector<std::string> messages;
        std::string text = render_scrape(o, errors, &messages, deadline);
        if (events) {
            std::ostringstream more;
            write_prometheus(more, events->families());
            text += more.str();
        }
        for (const std::string& m : messages)
            say(err, "serve", m);
        return text;
    };
    bool tls = config.tls.has_value();
    HttpServer server(fd.value(), std::move(config), limits, scrape, prometheus_content_type);
    out << "rdmastat: serving " << (tls ? "https" : "http") << "://" << where << "/metrics"
        << std::endl;
    int signal = 0;
    sigwait(&stop, &signal);
    return 0;
}

} // namespace rdmastat
