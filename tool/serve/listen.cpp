// SPDX-License-Identifier: MIT
// serve's listening socket: bound here, or passed by systemd, then handed to
// the HTTP server; and the descriptor limit its connections need.
#include "common/numbers.h"
#include "serve/http_server.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

namespace rdmastat {

namespace {

constexpr int backlog = 1024;

Failure os_failure(const std::string& context) {
    int e = errno;
    return Failure{context + ": " + std::strerror(e), e};
}

} // namespace

Result<int> listen_on(const std::string& address) {
    auto colon = address.rfind(':');
    std::string host = colon == std::string::npos ? "" : address.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    std::optional<std::uint16_t> port;
    if (colon != std::string::npos) port = parse_port(std::string_view(address).substr(colon + 1));
    if (host.empty() || !port)
        return Failure{"--listen '" + address + "': expected ADDR:PORT, e.g. 127.0.0.1:9876"};
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    addrinfo* found = nullptr;
    if (int rc = getaddrinfo(host.c_str(), std::to_string(*port).c_str(), &hints, &found))
        return Failure{"--listen '" + address + "': " + gai_strerror(rc)};
    Failure last{"--listen '" + address + "': no address"};
    for (addrinfo* a = found; a; a = a->ai_next) {
        int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            last = os_failure("cannot listen on " + address);
            continue;
        }
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        // [::]:PORT means IPv6 only, as written; 0.0.0.0 is another socket.
        if (a->ai_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
        if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, backlog) == 0) {
            freeaddrinfo(found);
            return fd;
        }
        last = os_failure("cannot listen on " + address);
        ::close(fd);
    }
    freeaddrinfo(found);
    return last;
}

Result<int> systemd_socket() {
    const char* pid = std::getenv("LISTEN_PID");
    const char* fds = std::getenv("LISTEN_FDS");
    if (!pid || !fds)
        return Failure{"--systemd-socket: systemd passed no socket (LISTEN_PID and LISTEN_FDS "
                       "unset): start serve from a .socket unit"};
    auto p = parse_number<unsigned long>(pid);
    auto n = parse_number<unsigned>(fds);
    if (!p || *p != static_cast<unsigned long>(::getpid()))
        return Failure{"--systemd-socket: LISTEN_PID names another process"};
    if (!n || *n != 1)
        return Failure{"--systemd-socket: LISTEN_FDS is " + std::string(fds) +
                       ": the .socket unit must pass exactly one socket"};
    // sd_listen_fds(3)'s protocol: the first passed descriptor is 3.
    constexpr int fd = 3;
    int listening = 0;
    socklen_t len = sizeof listening;
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) < 0 || !listening)
        return Failure{"--systemd-socket: descriptor 3 is not a listening stream socket"};
    ::unsetenv("LISTEN_PID");
    ::unsetenv("LISTEN_FDS");
    ::unsetenv("LISTEN_FDNAMES");
    return fd;
}

std::string socket_address(int fd) {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) < 0) return "?";
    char text[INET6_ADDRSTRLEN] = "?";
    if (ss.ss_family == AF_INET) {
        auto* a = reinterpret_cast<sockaddr_in*>(&ss);
        inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
        return std::string(text) + ':' + std::to_string(ntohs(a->sin_port));
    }
    if (ss.ss_family == AF_INET6) {
        auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
        inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
        return '[' + std::string(text) + "]:" + std::to_string(ntohs(a->sin6_port));
    }
    return "?";
}

unsigned raise_fd_limit(unsigned wanted) {
    rlimit r{};
    if (getrlimit(RLIMIT_NOFILE, &r) < 0) return 0;
    if (r.rlim_cur < wanted) {
        rlimit more = r;
        more.rlim_cur = r.rlim_max == RLIM_INFINITY ? wanted : std::min<rlim_t>(wanted, r.rlim_max);
        if (setrlimit(RLIMIT_NOFILE, &more) == 0) r = more;
    }
    return r.rlim_cur > 1'000'000 ? 1'000'000 : static_cast<unsigned>(r.rlim_cur);
}

} // namespace rdmastat
