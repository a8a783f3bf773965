// SPDX-License-Identifier: MIT
#include "collect/http_client.h"

#include "common/text.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace rdmastat {
namespace {

using Clock = std::chrono::steady_clock;

class Fd {
  public:
    explicit Fd(int fd) : fd_(fd) {}
    ~Fd() {
        if (fd_ >= 0) ::close(fd_);
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return fd_; }

  private:
    int fd_;
};

// Waits for events on fd until deadline; false when it passed.
bool wait_for(int fd, short events, Clock::time_point deadline) {
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) return false;
        pollfd p{fd, events, 0};
        int n = ::poll(&p, 1, static_cast<int>(left.count()));
        if (n > 0) return true;
        if (n < 0 && errno != EINTR) return false;
    }
}

Result<int> connect_to(const HttpUrl& url, Clock::time_point deadline) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* list = nullptr;
    if (int rc = ::getaddrinfo(url.host.c_str(), url.port.c_str(), &hints, &list); rc != 0)
        return Failure{url.host + ": " + gai_strerror(rc)};
    std::string why = "no address";
    int fd = -1;
    for (const addrinfo* a = list; a && fd < 0; a = a->ai_next) {
        fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
        if (fd < 0) {
            why = std::strerror(errno);
            continue;
        }
        int err = 0;
        if (::connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
            err = errno;
            if (err == EINPROGRESS) {
                socklen_t len = sizeof(err);
                err = wait_for(fd, POLLOUT, deadline) &&
                              ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0
                          ? err
                          : ETIMEDOUT;
            }
        }
        if (err != 0) {
            why = std::strerror(err);
            ::close(fd);
            fd = -1;
        }
    }
    ::freeaddrinfo(list);
    if (fd < 0) return Failure{"connect to " + url.host + " port " + url.port + ": " + why};
    return fd;
}

// The chunked transfer coding's payload (RFC 9112, 7.1); trailers are ignored.
Result<std::string> unchunk(std::string_view in) {
    std::string out;
    for (;;) {
        std::size_t eol = in.find("\r\n");
        if (eol == std::string_view::npos) return Failure{"truncated chunk size"};
        std::size_t size = 0;
        auto [end, ec] = std::from_chars(in.data(), in.data() + eol, size, 16);
        if (ec != std::errc() || end == in.data()) return Failure{"malformed chunk size"};
        in.remove_prefix(eol + 2);
        if (size == 0) return out;
        // No size + 2: a hostile size would wrap it.
        if (size > in.size() || in.size() - size < 2) return Failure{"truncated chunk"};
        if (in.substr(size, 2) != "\r\n") return Failure{"a chunk not followed by CRLF"};
        out.append(in.substr(0, size));
        in.remove_prefix(size + 2);
    }
}

} // namespace

Result<HttpUrl> parse_http_url(std::string_view text) {
    const std::string_view scheme = "http://";
    if (text.substr(0, 8) == "https://")
        return Failure{"https is not supported: query a Prometheus server over plain http"};
    if (text.substr(0, scheme.size()) != scheme)
        return Failure{"'" + std::string(text) + "' is not an http:// URL"};
    text.remove_prefix(scheme.size());
    HttpUrl url;
    std::size_t slash = text.find('/');
    std::string_view authority = text.substr(0, slash);
    if (slash != std::string_view::npos) url.prefix = text.substr(slash);
    while (!url.prefix.empty() && url.prefix.back() == '/')
        url.prefix.pop_back();
    if (authority.find('@') != std::string_view::npos)
        return Failure{"user information in the URL is not supported"};
    // The prefix goes into the request line as it is: nothing that would end
    // or change it.
    for (char ch : text)
        if (static_cast<unsigned char>(ch) <= ' ' || ch == '?' || ch == '#' || ch == 0x7f)
            return Failure{"the URL has a space, control character, query or fragment"};
    std::string_view port;
    if (!authority.empty() && authority.front() == '[') {
        std::size_t close = authority.find(']');
        if (close == std::string_view::npos) return Failure{"unclosed '[' in the URL's host"};
        url.host = authority.substr(1, close - 1);
        std::string_view rest = authority.substr(close + 1);
        if (!rest.empty()) {
            if (rest.front() != ':') return Failure{"junk after the URL's IPv6 address"};
            port = rest.substr(1);
        }
    } else {
        std::size_t colon = authority.find(':');
        url.host = authority.substr(0, colon);
        if (colon != std::string_view::npos) port = authority.substr(colon + 1);
    }
    if (url.host.empty()) return Failure{"the URL has no host"};
    if (!port.empty()) {
        unsigned n = 0;
        auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), n);
        if (ec != std::errc() || end != port.data() + port.size() || n == 0 || n > 65535)
            return Failure{"'" + std::string(port) + "' is not a port"};
        url.port = std::to_string(n);
    }
    return url;
}

Result<HttpResponse> parse_http_response(std::string_view bytes) {
    std::size_t head_end = bytes.find("\r\n\r\n");
    if (head_end == std::string_view::npos)
        return Failure{"no complete HTTP header in the response"};
    std::string_view head = bytes.substr(0, head_end);
    HttpResponse r;
    // "HTTP/1.1 200 OK"
    if (head.substr(0, 5) != "HTTP/" || head.size() < 12 || head[8] != ' ')
        return Failure{"not an HTTP response"};
    auto [end, ec] = std::from_chars(head.data() + 9, head.data() + 12, r.status);
    if (ec != std::errc() || end != head.data() + 12) return Failure{"malformed HTTP status line"};
    std::string_view body = bytes.substr(head_end + 4);
    const std::string headers = lower(head);
    if (headers.find("\r\ntransfer-encoding: chunked") != std::string::npos) {
        auto decoded = unchunk(body);
        if (!decoded) return Failure{"HTTP response: " + decoded.error()};
        r.body = std::move(decoded.value());
    } else {
        r.body = body;
    }
    return r;
}

Result<HttpResponse> http_get(const HttpUrl& url, const std::string& target,
                              std::chrono::milliseconds timeout, std::size_t max_bytes) {
    const Clock::time_point deadline = Clock::now() + timeout;
    auto fd = connect_to(url, deadline);
    if (!fd) return fd.failure();
    Fd sock(fd.value());
    const bool v6 = url.host.find(':') != std::string::npos;
    const std::string request = "GET " + url.prefix + target +
                                " HTTP/1.0\r\nHost: " + (v6 ? "[" + url.host + "]" : url.host) +
                                ":" + url.port +
                                "\r\nAccept: application/json\r\nUser-Agent: rdmastat\r\n\r\n";
    const std::string where = url.host + " port " + url.port;
    for (std::size_t sent = 0; sent < request.size();) {
        if (!wait_for(sock.get(), POLLOUT, deadline)) return Failure{where + ": timed out sending"};
        ssize_t n = ::send(sock.get(), request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            return Failure{where + ": send: " + std::strerror(errno)};
        if (n > 0) sent += static_cast<std::size_t>(n);
    }
    std::string bytes;
    char buf[65536];
    for (;;) {
        if (!wait_for(sock.get(), POLLIN, deadline))
            return Failure{where + ": no complete response within " +
                           std::to_string(timeout.count()) + " ms"};
        ssize_t n = ::recv(sock.get(), buf, sizeof(buf), 0);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR) continue;
            return Failure{where + ": recv: " + std::strerror(errno)};
        }
        bytes.append(buf, static_cast<std::size_t>(n));
        if (bytes.size() > max_bytes)
            return Failure{where + ": the response is larger than " + std::to_string(max_bytes) +
                           " bytes"};
    }
    auto r = parse_http_response(bytes);
    if (!r) return Failure{where + ": " + r.error()};
    return r;
}

} // namespace rdmastat
