// SPDX-License-Identifier: MIT
// The exporter-toolkit web configuration: YAML through yaml-cpp, PEM through
// GnuTLS (the library serve's TLS runs on, so what loads here loads there).
#include "serve/web_config.h"

#include "common/yaml_file.h"
#include "serve/auth.h"

#include <algorithm>
#include <array>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <memory>
#include <yaml-cpp/yaml.h>

namespace rdmastat {

namespace {

using yaml::boolean;
using yaml::entries;
using yaml::Refusal;
using yaml::scalar;

struct Named {
    std::string_view name;
    std::string_view value;
};

constexpr std::array<Named, 4> tls_versions{{{"TLS10", "VERS-TLS1.0"},
                                             {"TLS11", "VERS-TLS1.1"},
                                             {"TLS12", "VERS-TLS1.2"},
                                             {"TLS13", "VERS-TLS1.3"}}};
constexpr std::array<Named, 4> curves{{{"X25519", "GROUP-X25519"},
                                       {"CurveP256", "GROUP-SECP256R1"},
                                       {"CurveP384", "GROUP-SECP384R1"},
                                       {"CurveP521", "GROUP-SECP521R1"}}};
constexpr std::array<Named, 3> client_auths{
    {{"NoClientCert", ""}, {"VerifyClientCertIfGiven", ""}, {"RequireAndVerifyClientCert", ""}}};
// exporter-toolkit's headers, with the values it allows (empty: any).
constexpr std::array<Named, 6> allowed_headers{{{"Strict-Transport-Security", ""},
                                                {"X-Content-Type-Options", "nosniff"},
                                                {"X-Frame-Options", "deny"},
                                                {"X-Frame-Options", "sameorigin"},
                                                {"X-XSS-Protection", ""},
                                                {"Content-Security-Policy", ""}}};

template <std::size_t N>
std::size_t index_of(const std::array<Named, N>& table, const std::string& name,
                     const std::string& key) {
    for (std::size_t i = 0; i < N; ++i)
        if (table[i].name == name) return i;
    std::string known;
    for (const Named& n : table)
        known += (known.empty() ? "" : ", ") + std::string(n.name);
    throw Refusal{key, "'" + name + "' is not one of " + known};
}

struct Credentials {
    gnutls_certificate_credentials_t cred = nullptr;
    Credentials() { gnutls_certificate_allocate_credentials(&cred); }
    ~Credentials() { gnutls_certificate_free_credentials(cred); }
    Credentials(const Credentials&) = delete;
    Credentials& operator=(const Credentials&) = delete;
};

gnutls_datum_t datum(const std::string& s) {
    return gnutls_datum_t{reinterpret_cast<unsigned char*>(const_cast<char*>(s.data())),
                          static_cast<unsigned>(s.size())};
}

// The PEM as GnuTLS will load it when serve starts: a key that does not match
// its certificate, or a CA file with no certificate, is refused now.
void check_pem(const TlsConfig& tls) {
    Credentials c;
    gnutls_datum_t cert = datum(tls.cert_pem), key = datum(tls.key_pem);
    if (int rc = gnutls_certificate_set_x509_key_mem(c.cred, &cert, &key, GNUTLS_X509_FMT_PEM);
        rc < 0)
        throw Refusal{"tls_server_config.cert_file",
                      std::string("the certificate and key do not load: ") + gnutls_strerror(rc)};
    if (tls.client_ca_pem.empty()) return;
    gnutls_datum_t ca = datum(tls.client_ca_pem);
    int n = gnutls_certificate_set_x509_trust_mem(c.cred, &ca, GNUTLS_X509_FMT_PEM);
    if (n <= 0)
        throw Refusal{"tls_server_config.client_ca_file",
                      n < 0 ? std::string("does not load: ") + gnutls_strerror(n)
                            : std::string("holds no certificate")};
}

// A PEM given inline (KEY) or by file (KEY_file); at most one of them.
std::string pem(const std::map<std::string, YAML::Node>& keys, const std::string& inline_key,
                const std::string& file_key, const std::string& dir) {
    auto in = keys.find(inline_key), file = keys.find(file_key);
    std::string name = "tls_server_config." + file_key;
    std::string text = in == keys.end() ? "" : scalar(in->second, name);
    std::string path = file == keys.end() ? "" : scalar(file->second, name);
    if (!text.empty() && !path.empty())
        throw Refusal{name, "given together with " + inline_key + ": name one"};
    if (path.empty()) return text;
    return yaml::read_file(yaml::resolve(path, dir), name);
}

TlsConfig read_tls(const YAML::Node& node, const std::string& dir) {
    const std::string k = "tls_server_config";
    std::map<std::string, YAML::Node> keys;
    for (auto& [name, value] : entries(node, k)) {
        static const std::array<std::string_view, 11> known{"cert_file",
                                                            "key_file",
                                                            "cert",
                                                            "key",
                                                            "client_ca_file",
                                                            "client_ca",
                                                            "client_auth_type",
                                                            "min_version",
                                                            "max_version",
                                                            "prefer_server_cipher_suites",
                                                            "curve_preferences"};
        if (name == "cipher_suites" || name == "client_allowed_sans")
            throw Refusal{k + "." + name, "not supported by rdmastat serve"};
        if (std::find(known.begin(), known.end(), name) == known.end())
            throw Refusal{k + "." + name, "unknown key"};
        keys.emplace(name, value);
    }
    TlsConfig tls;
    tls.cert_pem = pem(keys, "cert", "cert_file", dir);
    tls.key_pem = pem(keys, "key", "key_file", dir);
    tls.client_ca_pem = pem(keys, "client_ca", "client_ca_file", dir);
    if (tls.cert_pem.empty()) throw Refusal{k + ".cert_file", "missing: TLS needs a certificate"};
    if (tls.key_pem.empty()) throw Refusal{k + ".key_file", "missing: TLS needs a key"};
    if (auto a = keys.find("client_auth_type"); a != keys.end()) {
        std::string name = scalar(a->second, k + ".client_auth_type");
        if (name == "RequestClientCert" || name == "RequireAnyClientCert" ||
            name == "RequireClientCert")
            throw Refusal{k + ".client_auth_type",
                          name +
                              " (a certificate not verified) is not supported by rdmastat "
                              "serve: use VerifyClientCertIfGiven or RequireAndVerifyClientCert"};
        if (!name.empty())
            tls.client_auth =
                static_cast<ClientAuth>(index_of(client_auths, name, k + ".client_auth_type"));
    }
    if (tls.client_auth != ClientAuth::none && tls.client_ca_pem.empty())
        throw Refusal{k + ".client_ca_file", "missing: client_auth_type verifies client "
                                             "certificates against it"};
    if (tls.client_auth == ClientAuth::none && !tls.client_ca_pem.empty())
        throw Refusal{k + ".client_auth_type", "missing: client_ca_file is given, but no policy "
                                               "says what to do with client certificates"};
    auto version = [&](const std::string& name) -> std::optional<TlsVersion> {
        auto v = keys.find(name);
        if (v == keys.end() || scalar(v->second, k + "." + name).empty()) return std::nullopt;
        return static_cast<TlsVersion>(index_of(tls_versions, v->second.Scalar(), k + "." + name));
    };
    if (auto v = version("min_version")) tls.min_version = *v;
    tls.max_version = version("max_version");
    if (tls.max_version && *tls.max_version < tls.min_version)
        throw Refusal{k + ".max_version", "below min_version"};
    if (auto p = keys.find("prefer_server_cipher_suites"); p != keys.end())
        tls.prefer_server_cipher_suites = boolean(p->second, k + ".prefer_server_cipher_suites");
    if (auto c = keys.find("curve_preferences"); c != keys.end() && !c->second.IsNull()) {
        std::string key = k + ".curve_preferences";
        if (!c->second.IsSequence()) throw Refusal{key, "expected a list"};
        for (const YAML::Node& curve : c->second)
            tls.groups.emplace_back(curves[index_of(curves, scalar(curve, key), key)].value);
    }
    check_pem(tls);
    return tls;
}

void read_http(const YAML::Node& node, WebConfig& config) {
    const std::string k = "http_server_config";
    for (auto& [name, value] : entries(node, k)) {
        if (name == "http2") {
            boolean(value, k + ".http2"); // HTTP/1.1 only: the flag has nothing to turn
            continue;
        }
        if (name != "headers") throw Refusal{k + "." + name, "unknown key"};
        for (auto& [header, v] : entries(value, k + ".headers")) {
            std::string key = k + ".headers." + header, text = scalar(v, key);
            bool known = false, allowed = false;
            for (const Named& a : allowed_headers)
                if (a.name == header) {
                    known = true;
                    allowed = allowed || a.value.empty() || a.value == text;
                }
            if (!known) throw Refusal{key, "this header cannot be configured"};
            if (!allowed) throw Refusal{key, "value '" + text + "' is not allowed"};
            config.headers.emplace_back(header, text);
        }
    }
}

void read_users(const YAML::Node& node, WebConfig& config) {
    const std::string k = "basic_auth_users";
    for (auto& [name, value] : entries(node, k)) {
        std::string key = k + "." + name, hash = scalar(value, key);
        if (name.empty()) throw Refusal{k, "an empty user name"};
        if (name.find(':') != std::string::npos)
            throw Refusal{key, "a user name cannot hold ':' (basic auth splits on it)"};
        if (!is_bcrypt_hash(hash))
            throw Refusal{key, "not a bcrypt hash ($2a$, $2b$ or $2y$, cost 4 to 31, 60 "
                               "characters), as htpasswd -B writes"};
        config.users.emplace(name, hash);
    }
}

} // namespace

namespace {

void read_web_config(const YAML::Node& root, const std::string& dir, WebConfig& config) {
    for (auto& [key, value] : entries(root, "")) {
        if (key == "tls_server_config") {
            TlsConfig tls = read_tls(value, dir);
            config.tls = std::move(tls);
        } else if (key == "http_server_config") {
            read_http(value, config);
        } else if (key == "basic_auth_users") {
            read_users(value, config);
        } else if (key == "rate_limit") {
            throw Refusal{key, "not supported by rdmastat serve (see --web.max-requests)"};
        } else {
            throw Refusal{key, "unknown key"};
        }
    }
}

} // namespace

Result<WebConfig> parse_web_config(std::string_view text, const std::string& name,
                                   const std::string& dir) {
    return yaml::parse_as<WebConfig>(text, name, dir, read_web_config);
}

Result<WebConfig> load_web_config(const std::string& path) {
    return yaml::load_as<WebConfig>(path, read_web_config);
}

std::string gnutls_priorities(const TlsConfig& tls) {
    std::string p = "NORMAL:-VERS-ALL";
    auto last = static_cast<std::size_t>(tls.max_version.value_or(TlsVersion::tls13));
    for (auto v = static_cast<std::size_t>(tls.min_version); v <= last; ++v)
        p += ":+" + std::string(tls_versions[v].value);
    if (!tls.groups.empty()) {
        p += ":-GROUP-ALL";
        for (const std::string& g : tls.groups)
            p += ":+" + g;
    }
    if (tls.prefer_server_cipher_suites) p += ":%SERVER_PRECEDENCE";
    return p;
}

} // namespace rdmastat
