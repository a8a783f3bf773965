// SPDX-License-Identifier: MIT
#pragma once

/// How rdmastat's HTTP client reaches a server (`fabric --http.config.file`):
/// the http_config block Prometheus uses for its own clients (scrape configs,
/// promtool's --http.config.file), so a block copied from prometheus.yml works
/// unchanged (relative paths are read from the file's directory, as in
/// prometheus.yml; promtool reads them from the directory above). What
/// rdmastat supports:
///
///   basic_auth:            username (or username_file), password (or password_file)
///   authorization:         type (default Bearer), credentials (or credentials_file)
///   tls_config:
///     ca_file              PEM: the CAs to trust instead of the system's
///     cert_file, key_file  PEM: a client certificate and its key
///     insecure_skip_verify bool (default false): trust any server certificate
///     min_version, max_version   TLS10 .. TLS13
///   proxy_url              http://, https:// or socks5:// proxy (socks5 resolves
///                          names through the proxy, as Go's does: curl's socks5h)
///   no_proxy               hosts reached directly, comma separated (with proxy_url)
///   proxy_from_environment bool: see below
///   follow_redirects       bool (default true), http and https only, 10 at most
///   enable_http2           bool (default true)
///
/// One of basic_auth and authorization at most. The keys Prometheus has and
/// rdmastat does not implement (oauth2, the deprecated bearer_token and
/// bearer_token_file, tls_config's inline ca/cert/key and server_name,
/// proxy_connect_header, http_headers) are refused naming the key, as is any
/// other key: nothing in the file is ignored. Relative paths are read from the
/// file's directory; secrets are read when the file is.
///
/// One difference from Prometheus, on purpose: like curl and promtool without
/// a file, rdmastat uses the proxy environment (https_proxy, no_proxy, ...)
/// unless the file gives proxy_url or says proxy_from_environment: false.

#include "common/error.h"

#include <optional>
#include <string>
#include <string_view>

namespace rdmastat {

enum class HttpTlsVersion { tls10, tls11, tls12, tls13 };

struct HttpTls {
    std::string ca_file;   ///< empty: the system's trust store
    std::string cert_file; ///< a client certificate; with key_file
    std::string key_file;
    bool insecure_skip_verify = false;
    std::optional<HttpTlsVersion> min_version, max_version;
};

struct HttpClientConfig {
    std::optional<std::string> username, password; ///< basic auth, both or neither
    std::optional<std::string> authorization;      ///< "TYPE CREDENTIALS", the header's value
    HttpTls tls;
    std::optional<std::string> proxy_url; ///< set: this proxy, and no environment
    std::string no_proxy;
    bool proxy_from_environment = true;
    bool follow_redirects = true;
    bool enable_http2 = true;
};

/// Reads and checks the file at path: its YAML, every key, and the secrets
/// and PEM files it names (they must be readable now). The failure reads
/// "PATH: KEY: reason" (or "PATH: line L, column C: reason" for bad YAML).
Result<HttpClientConfig> load_http_config(const std::string& path);

/// The same on text already read; dir is where relative paths start and name
/// how messages call the file.
Result<HttpClientConfig> parse_http_config(std::string_view text, const std::string& name,
                                           const std::string& dir);

} // namespace rdmastat
