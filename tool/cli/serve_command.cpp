// SPDX-License-Identifier: MIT
// `rdmastat serve`: the scrape of `rdmastat export` at /metrics over HTTP
// (cpp-httplib). Linked into rdmastat-full only: the HTTP and TLS libraries
// load for serve's runs, not for every command (cli/delegate.cpp).
#include "cli/monitor.h"
#include "common/numbers.h"
#include "render/prometheus.h"

#include <httplib.h>
#include <mutex>

namespace rdmastat {

int run_serve(const ExportOptions& o, std::ostream& out, std::ostream& err) {
    auto colon = o.listen.rfind(':');
    std::optional<std::uint16_t> port;
    std::string host = colon == std::string::npos ? "" : o.listen.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2); // [::1]:9876
    if (colon != std::string::npos) port = parse_port(std::string_view(o.listen).substr(colon + 1));
    if (host.empty() || !port) {
        err << "rdmastat: serve: --listen '" << o.listen << "': expected ADDR:PORT\n";
        return 2;
    }

    httplib::Server server;
    // Bounds against slow or hostile clients: a scrape is small and quick.
    server.set_read_timeout(5, 0);
    server.set_write_timeout(5, 0);
    server.set_keep_alive_timeout(5);
    server.set_keep_alive_max_count(100);
    server.set_payload_max_length(64 * 1024);
    std::mutex scrape_lock; // one scrape at a time: the kernel dumps are not free
    std::map<std::string, std::uint64_t> errors;
    server.Get("/metrics", [&](const httplib::Request&, httplib::Response& res) {
        std::string text;
        {
            std::lock_guard guard(scrape_lock);
            std::vector<std::string> messages;
            text = render_scrape(o, errors, &messages);
            for (const std::string& m : messages)
                err << "rdmastat: serve: " << m << std::endl;
        }
        res.set_content(text, prometheus_content_type);
    });
    server.Get("/", [](const httplib::Request&, httplib::Response& res) {
        res.set_content("rdmastat exporter: metrics at /metrics\n", "text/plain");
    });
    server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
        if (res.body.empty()) res.set_content(std::to_string(res.status) + "\n", "text/plain");
    });
    if (port == 0) {
        int bound = server.bind_to_any_port(host);
        if (bound < 0) {
            err << "rdmastat: serve: cannot listen on " << o.listen << '\n';
            return 2;
        }
        out << "rdmastat: serving http://" << o.listen.substr(0, colon) << ':' << bound
            << "/metrics" << std::endl;
    } else {
        if (!server.bind_to_port(host, *port)) {
            err << "rdmastat: serve: cannot listen on " << o.listen << '\n';
            return 2;
        }
        out << "rdmastat: serving http://" << o.listen << "/metrics" << std::endl;
    }
    if (!server.listen_after_bind()) {
        err << "rdmastat: serve: the server stopped\n";
        return 2;
    }
    return 0;
}

} // namespace rdmastat
