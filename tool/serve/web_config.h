// SPDX-License-Identifier: MIT
#pragma once

/// The web configuration file of `rdmastat serve --web.config.file`: the YAML
/// format of the Prometheus exporter-toolkit, so that a file written for
/// node_exporter and its kin works unchanged. What rdmastat supports:
///
///   tls_server_config:
///     cert_file, key_file (or inline cert, key)   PEM; TLS is on when given
///     client_auth_type     NoClientCert (default), VerifyClientCertIfGiven,
///                          RequireAndVerifyClientCert
///     client_ca_file (or inline client_ca)        PEM; needed by the last two
///     min_version, max_version                    TLS10 .. TLS13 (min: TLS12)
///     prefer_server_cipher_suites                 bool (default true)
///     curve_preferences    X25519, CurveP256, CurveP384, CurveP521
///   http_server_config:
///     headers              Strict-Transport-Security, X-Content-Type-Options,
///                          X-Frame-Options, X-XSS-Protection,
///                          Content-Security-Policy (exporter-toolkit's list)
///     http2                accepted and ignored: serve speaks HTTP/1.1
///   basic_auth_users:      NAME: bcrypt hash ($2a$, $2b$ or $2y$)
///
/// Every other key, a repeated key, and the exporter-toolkit keys rdmastat does
/// not implement (cipher_suites, client_allowed_sans, rate_limit, the client
/// auth types that do not verify), are refused with a message naming the key:
/// nothing in the file is silently ignored but http2. Relative paths are read
/// from the file's directory, as exporter-toolkit does.

#include "common/error.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rdmastat {

enum class ClientAuth { none, verify_if_given, require_and_verify };
enum class TlsVersion { tls10, tls11, tls12, tls13 };

struct TlsConfig {
    std::string cert_pem;      ///< the server's certificate chain
    std::string key_pem;       ///< its private key
    std::string client_ca_pem; ///< CAs that sign client certificates; empty: none
    ClientAuth client_auth = ClientAuth::none;
    TlsVersion min_version = TlsVersion::tls12;
    std::optional<TlsVersion> max_version;
    bool prefer_server_cipher_suites = true;
    std::vector<std::string> groups; ///< GnuTLS group names, in preference order
};

struct WebConfig {
    std::optional<TlsConfig> tls;                             ///< unset: plain HTTP
    std::map<std::string, std::string> users;                 ///< basic auth: name → bcrypt hash
    std::vector<std::pair<std::string, std::string>> headers; ///< added to every answer
};

/// Reads and checks the file at path: its YAML, every key, the PEM files it
/// names (the certificate must match the key) and every hash. The failure reads
/// "PATH: KEY: reason" (or "PATH: line L, column C: reason" for bad YAML).
Result<WebConfig> load_web_config(const std::string& path);

/// The same on text already read; dir is where relative paths start and name
/// how messages call the file.
Result<WebConfig> parse_web_config(std::string_view text, const std::string& name,
                                   const std::string& dir);

/// The GnuTLS priority string for tls: its versions, groups and precedence.
std::string gnutls_priorities(const TlsConfig& tls);

} // namespace rdmastat
