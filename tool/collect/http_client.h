// SPDX-License-Identifier: MIT
#pragma once

/// A plain HTTP/1.0 GET, enough to ask a Prometheus server's HTTP API
/// (collect/prometheus_api.h): no TLS, no redirects, no proxies.

#include "common/error.h"

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace rdmastat {

/// "http://HOST[:PORT][/PREFIX]": HOST a name, an IPv4 address or a bracketed
/// IPv6 one; PORT 80 when absent; PREFIX without its trailing slash.
struct HttpUrl {
    std::string host;
    std::string port = "80";
    std::string prefix;
};

/// The URL's parts; a failure names what is wrong ("https is not supported").
Result<HttpUrl> parse_http_url(std::string_view text);

struct HttpResponse {
    int status = 0;
    std::string body;
};

/// GET url.prefix + target from url's host, giving up once timeout has passed
/// in all (connect, request and response; the name lookup before them counts
/// against it but is not cut short) or the response passes max_bytes. A
/// status other than 200 is a response, not a failure.
Result<HttpResponse> http_get(const HttpUrl& url, const std::string& target,
                              std::chrono::milliseconds timeout, std::size_t max_bytes);

/// Splits a response's bytes: the status of its first line and the body after
/// the blank line (decoded, when the server chose chunked transfer coding).
Result<HttpResponse> parse_http_response(std::string_view bytes);

} // namespace rdmastat
