// SPDX-License-Identifier: MIT
#pragma once

/// serve's HTTP server: libmicrohttpd on one epoll thread, so an idle or
/// half-sent connection costs a file descriptor and a little memory, never a
/// worker. Work that takes time runs on two workers, each behind a bounded
/// queue (past the bound: 503, as node_exporter's --web.max-requests):
///   - the bcrypt check of credentials not seen before;
///   - the scrape: requests that wait while one runs share the next one.
/// The network thread suspends a request while a worker has it.
///
/// Paths: /metrics (the scrape), / (a pointer to it); others 404. Methods:
/// GET and HEAD; others 405. Order of checks: method and path, client
/// certificate (403), basic auth (401 with WWW-Authenticate), then the work.

#include "common/error.h"
#include "serve/web_config.h"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace rdmastat {

struct ServerLimits {
    unsigned max_requests = 40;            ///< in hand per worker; beyond: 503 (0: no bound)
    unsigned max_connections = 4096;       ///< open at once; beyond: left in the backlog
    unsigned max_client_connections = 128; ///< the same per client address (0: no bound)
    unsigned idle_timeout = 10;            ///< seconds a connection may stay silent
    unsigned request_timeout = 10; ///< seconds to send a whole request (serve/request_timer.h)
};

using Deadline = std::optional<std::chrono::steady_clock::time_point>;
/// One scrape, to be done by the deadline where one is given (Prometheus's
/// X-Prometheus-Scrape-Timeout-Seconds, less a margin for the answer).
using ScrapeFunction = std::function<std::string(Deadline)>;

/// The time a scrape may take under Prometheus's timeout of seconds: the
/// timeout less half a second for the answer to travel, or half the timeout
/// when that is shorter than a second; a timeout past an hour counts as one.
std::chrono::duration<double> scrape_budget(double seconds);

class HttpServer {
  public:
    /// Serves on listen_fd (bound and listening; the server owns it from now)
    /// until destroyed. content_type is the scrape's. Throws Error when
    /// libmicrohttpd cannot start, with its reason.
    HttpServer(int listen_fd, WebConfig config, ServerLimits limits, ScrapeFunction scrape,
               std::string content_type);
    ~HttpServer();
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    struct Impl;

  private:
    std::unique_ptr<Impl> impl_;
};

/// A socket bound to "ADDR:PORT" ("[V6ADDR]:PORT" or a host name; port 0: the
/// kernel picks) and listening; the failure says why.
Result<int> listen_on(const std::string& address);
/// The listening socket systemd passed (socket activation: LISTEN_PID and
/// LISTEN_FDS name this process and one socket, fd 3).
Result<int> systemd_socket();
/// "127.0.0.1:9876" or "[::1]:9876": where fd is bound.
std::string socket_address(int fd);
/// Raises the soft RLIMIT_NOFILE towards wanted, as far as the hard limit (and
/// a seccomp filter) allow; returns the soft limit now in force.
unsigned raise_fd_limit(unsigned wanted);

} // namespace rdmastat
