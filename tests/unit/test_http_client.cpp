// SPDX-License-Identifier: MIT
// fabric's HTTP client: the Prometheus http_config file, and libcurl against
// serve's own HTTP server on loopback, over TLS with basic auth, with the
// certificate and hash of tests/fixtures/serve (made by openssl and htpasswd).
#include "catch_compat.hpp"
#include "collect/http_client.h"
#include "collect/http_config.h"
#include "serve/http_server.h"
#include "serve/web_config.h"
#include "support.h"

using namespace rdmastat;
using namespace rdmastat::test;

namespace {

const std::string dir = fixture_path("http");

Result<HttpClientConfig> parse(const std::string& yaml) {
    return parse_http_config(yaml, "http.yml", dir);
}

std::string refusal(const std::string& yaml) {
    Result<HttpClientConfig> r = parse(yaml);
    REQUIRE_FALSE(r.ok());
    return r.error();
}

// serve's server with TLS and alice's hash, answering every scrape with body.
struct TlsServer {
    std::string base;
    std::unique_ptr<HttpServer> server;
    explicit TlsServer(const std::string& body) {
        Result<int> fd = listen_on("127.0.0.1:0");
        REQUIRE(fd.ok());
        base = "https://" + socket_address(fd.value());
        WebConfig web = parse_web_config("tls_server_config:\n  cert_file: server.crt\n"
                                         "  key_file: server.key\nbasic_auth_users:\n  alice: " +
                                             htpasswd_hash() + "\n",
                                         "web.yml", fixture_path("serve"))
                            .take();
        server = std::make_unique<HttpServer>(
            fd.value(), std::move(web), ServerLimits{}, [body](Deadline) { return body; },
            "text/plain");
    }
    static std::string htpasswd_hash() {
        std::string line = fixture_text("serve/htpasswd");
        return line.substr(line.find(':') + 1, 60);
    }
};

const std::string alice = "basic_auth:\n  username: alice\n  password_file: password\n";
const std::string trust = "tls_config:\n  ca_file: ../serve/server.crt\n";

} // namespace

TEST_CASE("http config: Prometheus' http_config keys are read", "[fabric]") {
    Result<HttpClientConfig> r = parse(alice + trust +
                                       "  cert_file: ../serve/server.crt\n"
                                       "  key_file: ../serve/server.key\n"
                                       "  min_version: TLS13\n"
                                       "proxy_url: http://proxy.example:3128\n"
                                       "no_proxy: 10.0.0.0/8,.lab\n"
                                       "follow_redirects: false\nenable_http2: false\n");
    REQUIRE(r.ok());
    const HttpClientConfig& c = r.value();
    CHECK(c.username == "alice");
    CHECK(c.password == "correct horse"); // the file's newline is not the password's
    CHECK_FALSE(c.authorization);
    CHECK(c.tls.ca_file == dir + "/../serve/server.crt");
    CHECK(c.tls.key_file == dir + "/../serve/server.key");
    CHECK(c.tls.min_version == HttpTlsVersion::tls13);
    CHECK_FALSE(c.tls.max_version);
    CHECK(c.proxy_url == "http://proxy.example:3128");
    CHECK(c.no_proxy == "10.0.0.0/8,.lab");
    CHECK_FALSE(c.proxy_from_environment); // proxy_url replaces the environment
    CHECK_FALSE(c.follow_redirects);
    CHECK_FALSE(c.enable_http2);

    r = parse("authorization:\n  credentials_file: token\n");
    REQUIRE(r.ok());
    CHECK(r.value().authorization == "Bearer t0ken-ab12");
    CHECK(r.value().proxy_from_environment);
    CHECK(r.value().follow_redirects);
    r = parse("proxy_url: socks5://proxy.example:1080\n");
    REQUIRE(r.ok());
    CHECK(r.value().proxy_url == "socks5h://proxy.example:1080"); // names resolved by the proxy
    r = parse("authorization:\n  type: Token\n  credentials: abc\n"
              "proxy_from_environment: false\n");
    REQUIRE(r.ok());
    CHECK(r.value().authorization == "Token abc");
    CHECK_FALSE(r.value().proxy_from_environment);
    CHECK_FALSE(r.value().proxy_url);
    REQUIRE(parse("").ok()); // an empty file: the defaults
}

TEST_CASE("http config: what Prometheus refuses, and what rdmastat lacks, names the key",
          "[fabric]") {
    CHECK(refusal(alice + "authorization:\n  credentials: x\n") ==
          "http.yml: authorization: given together with basic_auth: name one");
    CHECK(refusal("basic_auth:\n  password: x\n") == "http.yml: basic_auth.username: missing");
    CHECK(refusal("basic_auth:\n  username: a:b\n") ==
          "http.yml: basic_auth.username: cannot hold ':' (basic auth splits on it)");
    CHECK(refusal("basic_auth:\n  username: a\n  password: x\n  password_file: password\n") ==
          "http.yml: basic_auth.password_file: given together with password: name one");
    CHECK(refusal("basic_auth:\n  username: a\n  password_file: empty\n")
              .starts_with("http.yml: basic_auth.password_file: " + dir + "/empty: "));
    CHECK(refusal("basic_auth:\n  username: a\n  password_file: nope\n") ==
          "http.yml: basic_auth.password_file: " + dir + "/nope: No such file or directory");
    CHECK(refusal("authorization:\n  type: basic\n  credentials: x\n") ==
          "http.yml: authorization.type: Basic: use basic_auth instead");
    CHECK(refusal("authorization:\n  type: Bearer\n") ==
          "http.yml: authorization.credentials: missing");
    CHECK(refusal("bearer_token: x\n") ==
          "http.yml: bearer_token: not supported by rdmastat: use authorization: "
          "{credentials: TOKEN}");
    CHECK(refusal("oauth2:\n  client_id: x\n") == "http.yml: oauth2: not supported by rdmastat");
    CHECK(refusal("tls_config:\n  ca: PEM\n") ==
          "http.yml: tls_config.ca: not supported by rdmastat: name a file: ca_file");
    CHECK(refusal("tls_config:\n  cert_file: ../serve/server.crt\n") ==
          "http.yml: tls_config.key_file: missing: a client certificate needs both cert_file "
          "and key_file");
    CHECK(refusal("tls_config:\n  ca_file: nope.crt\n") ==
          "http.yml: tls_config.ca_file: " + dir + "/nope.crt: No such file or directory");
    CHECK(refusal("tls_config:\n  min_version: TLS13\n  max_version: TLS12\n") ==
          "http.yml: tls_config.max_version: below min_version");
    CHECK(refusal("tls_config:\n  min_version: SSL3\n") ==
          "http.yml: tls_config.min_version: 'SSL3' is not one of TLS10, TLS11, TLS12, TLS13");
    CHECK(refusal("tls_config:\n  insecure_skip_verify: maybe\n") ==
          "http.yml: tls_config.insecure_skip_verify: expected true or false");
    CHECK(refusal("proxy_url: proxy:3128\n") ==
          "http.yml: proxy_url: 'proxy:3128' is not an http://, https:// or socks5:// URL");
    CHECK(refusal("proxy_url: ftp://proxy:21\n") ==
          "http.yml: proxy_url: 'ftp://proxy:21' is not an http://, https:// or socks5:// URL");
    CHECK(refusal("tls_config:\n  max_version: TLS11\n") ==
          "http.yml: tls_config.max_version: below the default min_version, TLS12");
    CHECK(refusal("no_proxy: x\n") ==
          "http.yml: no_proxy: needs proxy_url (the environment has its own no_proxy)");
    CHECK(refusal("proxy_url: http://p:1\nproxy_from_environment: true\n") ==
          "http.yml: proxy_from_environment: given together with proxy_url: name one");
    CHECK(refusal("scrape_interval: 1s\n") == "http.yml: scrape_interval: unknown key");
    CHECK(refusal("follow_redirects: true\nfollow_redirects: false\n") ==
          "http.yml: follow_redirects: given twice");
    CHECK(refusal("basic_auth: [a]\n") == "http.yml: basic_auth: expected a map");
    CHECK(refusal("basic_auth:\n  username: [\n").starts_with("http.yml: line "));
    Result<HttpClientConfig> missing = load_http_config(dir + "/no-such.yml");
    REQUIRE_FALSE(missing);
    CHECK(missing.error() == dir + "/no-such.yml: No such file or directory");
    // A directory reads as nothing: it must not pass for an empty config.
    Result<HttpClientConfig> folder = load_http_config(dir);
    REQUIRE_FALSE(folder);
    CHECK(folder.error() == dir + ": Is a directory");
}

TEST_CASE("http client: TLS and basic auth against serve's server", "[fabric]") {
    // Loopback only: a proxy from the environment would take it.
    for (const char* v : {"http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"})
        unsetenv(v);
    TlsServer s("up 1\n");
    const std::string url = s.base + "/metrics";
    const auto timeout = std::chrono::milliseconds(10000);
    HttpClientConfig good = parse(alice + trust).take();

    Result<HttpResponse> r = http_get(url, good, timeout, 1 << 20);
    REQUIRE(r.ok());
    CHECK(r.value().status == 200);
    CHECK(r.value().body == "up 1\n");

    // The password is checked: the server's 401 is an answer, not a failure.
    HttpClientConfig wrong =
        parse("basic_auth:\n  username: alice\n  password: horse\n" + trust).take();
    r = http_get(url, wrong, timeout, 1 << 20);
    REQUIRE(r.ok());
    CHECK(r.value().status == 401);

    // A server whose CA is not trusted is refused, and the message says what to set.
    HttpClientConfig untrusted = parse(alice).take();
    r = http_get(url, untrusted, timeout, 1 << 20);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().starts_with(url + ": "));
    CHECK(r.error().ends_with("(trust the server's CA with tls_config.ca_file in "
                              "--http.config.file)"));
    // ... unless the config says not to check it.
    HttpClientConfig insecure = parse(alice + "tls_config:\n  insecure_skip_verify: true\n").take();
    r = http_get(url, insecure, timeout, 1 << 20);
    REQUIRE(r.ok());
    CHECK(r.value().status == 200);

    // A body past the bound is refused, not cut.
    r = http_get(url, good, timeout, 3);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error() == url + ": the response is larger than 3 bytes");

    // Plain HTTP to the TLS port: the server ends the connection.
    std::string plain = "http://" + s.base.substr(8) + "/metrics";
    r = http_get(plain, good, timeout, 1 << 20);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().starts_with(plain + ": "));
}
