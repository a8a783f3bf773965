// SPDX-License-Identifier: MIT
#pragma once

/// HTTP GET through libcurl, enough to ask a Prometheus server's HTTP API
/// (collect/prometheus_api.h): http and https, basic auth or an Authorization
/// header, a CA file and a client certificate, proxies and redirects, all as
/// an HttpClientConfig (collect/http_config.h) says. Only `rdmastat-full`
/// links it: the listing never loads libcurl or a TLS library.

#include "collect/http_config.h"
#include "common/error.h"

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace rdmastat {

/// "http[s]://HOST[:PORT][/PREFIX]" checked and returned without its trailing
/// slashes: no user information (credentials belong in the config file, not
/// on a command line every user can read), query, fragment, space or control
/// character; a failure says what is wrong.
Result<std::string> check_base_url(std::string_view text);

struct HttpResponse {
    int status = 0;
    std::string body; ///< decoded (gzip, deflate, ...) when the server compressed it
};

/// GET url, giving up once timeout has passed in all (lookup, connect, TLS,
/// request, response and redirects) or the decoded body passes max_bytes. A
/// status other than 200 is a response, not a failure. A failure names the
/// URL and curl's reason, and says which key of the config would help when
/// the server's certificate is not trusted.
Result<HttpResponse> http_get(const std::string& url, const HttpClientConfig& config,
                              std::chrono::milliseconds timeout, std::size_t max_bytes);

} // namespace rdmastat
