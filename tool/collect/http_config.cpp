// SPDX-License-Identifier: MIT
#include "collect/http_config.h"

#include "common/text.h"
#include "common/yaml_file.h"

#include <algorithm>
#include <array>
#include <map>

namespace rdmastat {
namespace {

using yaml::boolean;
using yaml::entries;
using yaml::Refusal;
using yaml::scalar;

using Keys = std::map<std::string, YAML::Node>;

struct Unsupported {
    std::string_view name, instead;
};

// A map's keys, each one of known; the ones Prometheus has and rdmastat does
// not are refused saying what to use instead.
Keys known_keys(const YAML::Node& node, const std::string& k,
                std::initializer_list<std::string_view> known,
                std::initializer_list<Unsupported> unsupported = {}) {
    Keys keys;
    for (auto& [name, value] : entries(node, k)) {
        const std::string key = k.empty() ? name : k + "." + name;
        for (const Unsupported& u : unsupported)
            if (u.name == name)
                throw Refusal{key, "not supported by rdmastat" +
                                       (u.instead.empty() ? "" : ": " + std::string(u.instead))};
        if (std::find(known.begin(), known.end(), name) == known.end())
            throw Refusal{key, "unknown key"};
        keys.emplace(name, value);
    }
    return keys;
}

std::string text_of(const Keys& keys, const std::string& name, const std::string& k) {
    auto it = keys.find(name);
    return it == keys.end() ? "" : scalar(it->second, k + "." + name);
}

std::string trimmed(std::string s) {
    const char* space = " \t\r\n";
    s.erase(s.find_last_not_of(space) + 1);
    s.erase(0, s.find_first_not_of(space));
    return s;
}

// A secret given inline (NAME) or by file (NAME_file), at most one of them;
// from a file, without the whitespace around it (as Prometheus reads it).
std::optional<std::string> secret(const Keys& keys, const std::string& name, const std::string& k,
                                  const std::string& dir) {
    std::string text = text_of(keys, name, k), path = text_of(keys, name + "_file", k);
    if (!text.empty() && !path.empty())
        throw Refusal{k + "." + name + "_file", "given together with " + name + ": name one"};
    if (!path.empty()) {
        text = trimmed(yaml::read_file(yaml::resolve(path, dir), k + "." + name + "_file"));
        if (text.empty()) throw Refusal{k + "." + name + "_file", path + ": only white space"};
    }
    if (text.empty()) return std::nullopt;
    return text;
}

// A PEM file's path, which must be readable now.
std::string pem_path(const Keys& keys, const std::string& name, const std::string& k,
                     const std::string& dir) {
    std::string path = yaml::resolve(text_of(keys, name, k), dir);
    if (!path.empty()) yaml::read_file(path, k + "." + name);
    return path;
}

std::optional<HttpTlsVersion> version(const Keys& keys, const std::string& name,
                                      const std::string& k) {
    static constexpr std::array<std::string_view, 4> names{"TLS10", "TLS11", "TLS12", "TLS13"};
    const std::string text = text_of(keys, name, k);
    if (text.empty()) return std::nullopt;
    auto it = std::find(names.begin(), names.end(), text);
    if (it == names.end())
        throw Refusal{k + "." + name, "'" + text + "' is not one of TLS10, TLS11, TLS12, TLS13"};
    return static_cast<HttpTlsVersion>(it - names.begin());
}

HttpTls read_tls(const YAML::Node& node, const std::string& dir) {
    const std::string k = "tls_config";
    Keys keys = known_keys(
        node, k,
        {"ca_file", "cert_file", "key_file", "insecure_skip_verify", "min_version", "max_version"},
        {{"ca", "name a file: ca_file"},
         {"cert", "name a file: cert_file"},
         {"key", "name a file: key_file"},
         {"server_name", "give the URL the name the server's certificate holds"}});
    HttpTls tls;
    tls.ca_file = pem_path(keys, "ca_file", k, dir);
    tls.cert_file = pem_path(keys, "cert_file", k, dir);
    tls.key_file = pem_path(keys, "key_file", k, dir);
    if (tls.cert_file.empty() != tls.key_file.empty())
        throw Refusal{k + (tls.cert_file.empty() ? ".cert_file" : ".key_file"),
                      "missing: a client certificate needs both cert_file and key_file"};
    if (auto it = keys.find("insecure_skip_verify"); it != keys.end())
        tls.insecure_skip_verify = boolean(it->second, k + ".insecure_skip_verify");
    tls.min_version = version(keys, "min_version", k);
    tls.max_version = version(keys, "max_version", k);
    if (tls.max_version && *tls.max_version < tls.min_version.value_or(HttpTlsVersion::tls12))
        throw Refusal{k + ".max_version", tls.min_version ? "below min_version"
                                                          : "below the default min_version, TLS12"};
    return tls;
}

void read_basic_auth(const YAML::Node& node, const std::string& dir, HttpClientConfig& c) {
    const std::string k = "basic_auth";
    Keys keys = known_keys(node, k, {"username", "username_file", "password", "password_file"});
    c.username = secret(keys, "username", k, dir);
    c.password = secret(keys, "password", k, dir);
    if (!c.username) throw Refusal{k + ".username", "missing"};
    if (c.username->find(':') != std::string::npos)
        throw Refusal{k + ".username", "cannot hold ':' (basic auth splits on it)"};
    if (!c.password) c.password = "";
}

void read_authorization(const YAML::Node& node, const std::string& dir, HttpClientConfig& c) {
    const std::string k = "authorization";
    Keys keys = known_keys(node, k, {"type", "credentials", "credentials_file"});
    std::string type = text_of(keys, "type", k);
    if (type.empty()) type = "Bearer";
    if (lower(type) == "basic") throw Refusal{k + ".type", "Basic: use basic_auth instead"};
    if (type.find_first_of(" \t\r\n:") != std::string::npos)
        throw Refusal{k + ".type", "'" + type + "' is not a single word"};
    auto credentials = secret(keys, "credentials", k, dir);
    if (!credentials) throw Refusal{k + ".credentials", "missing"};
    if (credentials->find_first_of("\r\n") != std::string::npos)
        throw Refusal{k + ".credentials", "holds a line break"};
    c.authorization = type + " " + *credentials;
}

void read_http_config(const YAML::Node& root, const std::string& dir, HttpClientConfig& c) {
    Keys keys = known_keys(root, "",
                           {"basic_auth", "authorization", "tls_config", "proxy_url", "no_proxy",
                            "proxy_from_environment", "follow_redirects", "enable_http2"},
                           {{"oauth2", ""},
                            {"bearer_token", "use authorization: {credentials: TOKEN}"},
                            {"bearer_token_file", "use authorization: {credentials_file: FILE}"},
                            {"proxy_connect_header", ""},
                            {"http_headers", ""}});
    if (keys.count("basic_auth") && keys.count("authorization"))
        throw Refusal{"authorization", "given together with basic_auth: name one"};
    if (auto it = keys.find("basic_auth"); it != keys.end()) read_basic_auth(it->second, dir, c);
    if (auto it = keys.find("authorization"); it != keys.end())
        read_authorization(it->second, dir, c);
    if (auto it = keys.find("tls_config"); it != keys.end()) c.tls = read_tls(it->second, dir);
    if (std::string url = text_of(keys, "proxy_url", ""); !url.empty()) {
        const std::string scheme = url.substr(0, url.find("://"));
        if (scheme == url || (scheme != "http" && scheme != "https" && scheme != "socks5"))
            throw Refusal{"proxy_url",
                          "'" + url + "' is not an http://, https:// or socks5:// URL"};
        // Go's socks5 resolves names through the proxy: curl calls that socks5h.
        if (scheme == "socks5") url.insert(6, "h");
        c.proxy_url = url;
    }
    c.no_proxy = text_of(keys, "no_proxy", "");
    if (!c.no_proxy.empty() && !c.proxy_url)
        throw Refusal{"no_proxy", "needs proxy_url (the environment has its own no_proxy)"};
    if (auto it = keys.find("proxy_from_environment"); it != keys.end()) {
        c.proxy_from_environment = boolean(it->second, "proxy_from_environment");
        if (c.proxy_from_environment && c.proxy_url)
            throw Refusal{"proxy_from_environment", "given together with proxy_url: name one"};
    }
    if (c.proxy_url) c.proxy_from_environment = false;
    if (auto it = keys.find("follow_redirects"); it != keys.end())
        c.follow_redirects = boolean(it->second, "follow_redirects");
    if (auto it = keys.find("enable_http2"); it != keys.end())
        c.enable_http2 = boolean(it->second, "enable_http2");
}

} // namespace

Result<HttpClientConfig> parse_http_config(std::string_view text, const std::string& name,
                                           const std::string& dir) {
    return yaml::parse_as<HttpClientConfig>(text, name, dir, read_http_config);
}

Result<HttpClientConfig> load_http_config(const std::string& path) {
    return yaml::load_as<HttpClientConfig>(path, read_http_config);
}

} // namespace rdmastat
