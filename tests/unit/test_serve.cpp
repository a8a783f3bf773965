// SPDX-License-Identifier: MIT
// serve's parts: the exporter-toolkit web config, basic auth against hashes
// htpasswd made (tests/fixtures/serve/README), and the HTTP server itself on a
// loopback socket, with a scrape the test holds to make the queue's bound and
// its batches deterministic.
#include "catch_compat.hpp"
#include "serve/auth.h"
#include "serve/http_server.h"
#include "serve/web_config.h"
#include "serve/work_queue.h"
#include "support.h"

#include <condition_variable>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace rdmastat;
using namespace rdmastat::test;

namespace {

const std::string dir = fixture_path("serve");

std::string htpasswd_hash() {
    std::string line = fixture_text("serve/htpasswd");
    return line.substr(line.find(':') + 1, 60);
}

Result<WebConfig> parse(const std::string& yaml) {
    return parse_web_config(yaml, "web.yml", dir);
}

std::string refusal(const std::string& yaml) {
    Result<WebConfig> r = parse(yaml);
    REQUIRE_FALSE(r.ok());
    return r.error();
}

const std::string tls_files =
    "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n";

} // namespace

TEST_CASE("web config: exporter-toolkit's keys are read", "[serve]") {
    Result<WebConfig> r = parse(tls_files +
                                "  min_version: TLS13\n"
                                "  curve_preferences: [X25519, CurveP256]\n"
                                "basic_auth_users:\n  alice: " +
                                htpasswd_hash() +
                                "\nhttp_server_config:\n  http2: false\n  headers:\n"
                                "    X-Frame-Options: deny\n");
    REQUIRE(r.ok());
    const WebConfig& c = r.value();
    REQUIRE(c.tls);
    CHECK(c.tls->cert_pem.find("BEGIN CERTIFICATE") != std::string::npos);
    CHECK(c.tls->key_pem.find("PRIVATE KEY") != std::string::npos);
    CHECK(c.tls->client_auth == ClientAuth::none);
    CHECK(c.tls->min_version == TlsVersion::tls13);
    CHECK(c.users.at("alice") == htpasswd_hash());
    CHECK(c.headers ==
          std::vector<std::pair<std::string, std::string>>{{"X-Frame-Options", "deny"}});
    CHECK(gnutls_priorities(*c.tls) == "NORMAL:-VERS-ALL:+VERS-TLS1.3:-GROUP-ALL:+GROUP-X25519:+"
                                       "GROUP-SECP256R1:%SERVER_PRECEDENCE");
    // exporter-toolkit's defaults: TLS 1.2 and up; an empty file is plain HTTP.
    CHECK(gnutls_priorities(parse(tls_files).value().tls.value()) ==
          "NORMAL:-VERS-ALL:+VERS-TLS1.2:+VERS-TLS1.3:%SERVER_PRECEDENCE");
    REQUIRE(parse("").ok());
    CHECK_FALSE(parse("").value().tls);
    CHECK(parse("").value().users.empty());
}

TEST_CASE("web config: a bad file is refused with the key it is about", "[serve]") {
    CHECK(refusal("tls_server_config:\n  cert_file: nope.crt\n  key_file: server.key\n") ==
          "web.yml: tls_server_config.cert_file: " + dir + "/nope.crt: No such file or directory");
    CHECK(refusal("tls_server_config:\n  key_file: server.key\n") ==
          "web.yml: tls_server_config.cert_file: missing: TLS needs a certificate");
    CHECK(refusal("tls_server_config:\n  cert_file: server.crt\n  key_file: other.key\n")
              .rfind("web.yml: tls_server_config.cert_file: the certificate and key do not load: ",
                     0) == 0);
    CHECK(refusal("basic_auth_users:\n  alice: $2y$04$tooshort\n")
              .rfind("web.yml: basic_auth_users.alice: not a bcrypt hash", 0) == 0);
    CHECK(refusal("basic_auth_users:\n  alice: secret-in-clear-text\n")
              .rfind("web.yml: basic_auth_users.alice: not a bcrypt hash", 0) == 0);
    CHECK(refusal("web_listen: 1\n") == "web.yml: web_listen: unknown key");
    CHECK(refusal(tls_files + "  cert_flie: x\n") ==
          "web.yml: tls_server_config.cert_flie: unknown key");
    CHECK(refusal(tls_files + "  cipher_suites: [TLS_AES_128_GCM_SHA256]\n") ==
          "web.yml: tls_server_config.cipher_suites: not supported by rdmastat serve");
    CHECK(refusal(tls_files + "  client_ca_file: server.crt\n") ==
          "web.yml: tls_server_config.client_auth_type: missing: client_ca_file is given, but no "
          "policy says what to do with client certificates");
    CHECK(refusal(tls_files + "  client_auth_type: RequireAndVerifyClientCert\n")
              .rfind("web.yml: tls_server_config.client_ca_file: missing", 0) == 0);
    CHECK(refusal(tls_files + "  client_auth_type: RequireAnyClientCert\n  client_ca_file: "
                              "server.crt\n")
              .rfind("web.yml: tls_server_config.client_auth_type: RequireAnyClientCert", 0) == 0);
    CHECK(
        refusal(tls_files + "  min_version: TLS14\n") ==
        "web.yml: tls_server_config.min_version: 'TLS14' is not one of TLS10, TLS11, TLS12, TLS13");
    CHECK(refusal(tls_files + "  min_version: TLS13\n  max_version: TLS12\n") ==
          "web.yml: tls_server_config.max_version: below min_version");
    CHECK(refusal("http_server_config:\n  headers:\n    Server: x\n") ==
          "web.yml: http_server_config.headers.Server: this header cannot be configured");
    CHECK(refusal("http_server_config:\n  headers:\n    X-Content-Type-Options: sniff\n") ==
          "web.yml: http_server_config.headers.X-Content-Type-Options: value 'sniff' is not "
          "allowed");
    CHECK(refusal("basic_auth_users: [alice]\n") == "web.yml: basic_auth_users: expected a map");
    CHECK(refusal("basic_auth_users:\n  alice: " + htpasswd_hash() + "\n  alice: " +
                  htpasswd_hash() + "\n") == "web.yml: basic_auth_users.alice: given twice");
    CHECK(refusal(tls_files + "tls_server_config: {}\n") ==
          "web.yml: tls_server_config: given twice");
    CHECK(refusal("rate_limit:\n  interval: 1s\n").rfind("web.yml: rate_limit: not supported", 0) ==
          0);
    CHECK(refusal(tls_files + "  client_auth_type: RequireClientCert\n  client_ca_file: "
                              "server.crt\n")
              .rfind("web.yml: tls_server_config.client_auth_type: RequireClientCert", 0) == 0);
    CHECK(refusal("tls_server_config:\n  cert_file: .\n  key_file: server.key\n") ==
          "web.yml: tls_server_config.cert_file: " + dir + "/.: empty or unreadable");
    CHECK(refusal("tls_server_config: {cert_file: [\n").rfind("web.yml: line ", 0) == 0);
    Result<WebConfig> missing = load_web_config(dir + "/no-such.yml");
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error() == dir + "/no-such.yml: No such file or directory");
}

TEST_CASE("basic auth: htpasswd's bcrypt hash is checked by libcrypt", "[serve]") {
    CHECK(is_bcrypt_hash(htpasswd_hash()));
    std::string h = htpasswd_hash();
    CHECK_FALSE(is_bcrypt_hash(h.substr(0, 59)));
    CHECK_FALSE(is_bcrypt_hash("$2x" + h.substr(3)));
    CHECK_FALSE(is_bcrypt_hash("$2y$03" + h.substr(6)));
    BasicAuth auth({{"alice", h}});
    CHECK(auth.enabled());
    BasicCredentials good{"alice", "correct horse"}, bad{"alice", "wrong"}, who{"bob", "x"};
    CHECK_FALSE(auth.known(good));
    CHECK(auth.verify(good));
    CHECK(auth.known(good)); // the next scrape costs no bcrypt
    CHECK_FALSE(auth.verify(bad));
    CHECK_FALSE(auth.known(bad));
    CHECK_FALSE(auth.verify(who));
    CHECK_FALSE(BasicAuth({}).enabled());
}

TEST_CASE("basic auth: the Authorization header", "[serve]") {
    // base64("alice:correct horse") and base64("a:b:c"), as RFC 7617 writes them.
    auto c = parse_basic_authorization("Basic YWxpY2U6Y29ycmVjdCBob3JzZQ==");
    REQUIRE(c);
    CHECK(c->user == "alice");
    CHECK(c->password == "correct horse");
    c = parse_basic_authorization("basic YTpiOmM=");
    REQUIRE(c);
    CHECK(c->user == "a");
    CHECK(c->password == "b:c");
    CHECK_FALSE(parse_basic_authorization("Bearer YTpiOmM="));
    CHECK_FALSE(parse_basic_authorization("Basic YTpiOmM"));  // no padding
    CHECK_FALSE(parse_basic_authorization("Basic YT=iOmM=")); // '=' inside
    CHECK_FALSE(parse_basic_authorization("Basic YWJj"));     // no ':'
    CHECK_FALSE(parse_basic_authorization("Basic"));
}

TEST_CASE("work queue: bounded, and what waits is taken as one batch", "[serve]") {
    std::mutex m;
    std::condition_variable cv;
    bool release = false;
    std::vector<std::vector<int>> batches;
    {
        WorkQueue<int> q(3, [&](std::vector<int>& batch) {
            std::unique_lock guard(m);
            batches.push_back(batch);
            cv.notify_all();
            cv.wait(guard, [&] { return release; });
        });
        REQUIRE(q.offer(1));
        {
            std::unique_lock guard(m);
            cv.wait(guard, [&] { return batches.size() == 1; });
        }
        CHECK(q.offer(2));
        CHECK(q.offer(3));
        CHECK_FALSE(q.offer(4)); // 1 in hand and 2 queued: the bound
        {
            std::lock_guard guard(m);
            release = true;
        }
        cv.notify_all();
        {
            std::unique_lock guard(m);
            cv.wait(guard, [&] { return batches.size() == 2; });
        }
        CHECK(q.stop().empty());
        CHECK_FALSE(q.offer(5));
    }
    CHECK(batches == std::vector<std::vector<int>>{{1}, {2, 3}});
}

TEST_CASE("work queue: a batch is released once its room is free", "[serve]") {
    // serve answers in release: a client that got its answer and asks again
    // at once must find room, even at a bound of one.
    std::mutex m;
    std::condition_variable cv;
    std::vector<int> handled, released;
    bool room = false;
    WorkQueue<int>* queue = nullptr;
    WorkQueue<int> q(
        1,
        [&](std::vector<int>& batch) {
            std::lock_guard guard(m);
            handled.insert(handled.end(), batch.begin(), batch.end());
        },
        [&](std::vector<int>& batch) {
            const bool again = batch == std::vector<int>{1} && queue->offer(2);
            std::lock_guard guard(m);
            room = room || again;
            released.insert(released.end(), batch.begin(), batch.end());
            cv.notify_all();
        });
    queue = &q;
    REQUIRE(q.offer(1));
    std::unique_lock guard(m);
    CHECK(cv.wait_for(guard, std::chrono::seconds(10), [&] { return released.size() == 2; }));
    CHECK(room);
    CHECK(handled == std::vector<int>{1, 2});
    CHECK(released == std::vector<int>{1, 2});
}

TEST_CASE("serve: the scrape budget under Prometheus's timeout", "[serve]") {
    CHECK(scrape_budget(10).count() == 9.5);
    CHECK(scrape_budget(1).count() == 0.5);
    CHECK(scrape_budget(0.5).count() == 0.25);
    CHECK(scrape_budget(1e300).count() == 3599.5); // a hostile header overflows nothing
}

namespace {

// One request on a fresh loopback connection; the status code, or 0 when the
// server closed without answering.
int status_of(const std::string& address, const std::string& request) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port =
        htons(static_cast<std::uint16_t>(std::stoi(address.substr(address.rfind(':') + 1))));
    timeval tv{10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) < 0) {
        ::close(fd);
        return -1;
    }
    REQUIRE(::write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size()));
    char buf[64] = {};
    ssize_t n = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    std::string head(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
    return head.rfind("HTTP/1.1 ", 0) == 0 ? std::stoi(head.substr(9, 3)) : 0;
}

const std::string get = "GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";

} // namespace

TEST_CASE("serve: past --web.max-requests the answer is 503", "[serve]") {
    std::mutex m;
    std::condition_variable cv;
    int scrapes = 0;
    bool release = false;
    Deadline seen;
    ScrapeFunction scrape = [&](Deadline d) {
        std::unique_lock guard(m);
        ++scrapes;
        seen = d;
        cv.notify_all();
        cv.wait(guard, [&] { return release; });
        return std::string("up 1\n");
    };
    Result<int> fd = listen_on("127.0.0.1:0");
    REQUIRE(fd.ok());
    std::string address = socket_address(fd.value());
    HttpServer server(fd.value(), WebConfig{}, ServerLimits{.max_requests = 1}, scrape,
                      "text/plain");
    CHECK(status_of(address, "GET /nope HTTP/1.1\r\nHost: t\r\n\r\n") == 404);
    CHECK(status_of(address, "DELETE /metrics HTTP/1.1\r\nHost: t\r\n\r\n") == 405);
    CHECK(status_of(address, "GET / HTTP/1.1\r\nHost: t\r\n\r\n") == 200); // no scrape

    // The first scrape is held: the bound is reached, and the next is refused.
    int first = 0;
    std::thread client([&] {
        first = status_of(address, "GET /metrics HTTP/1.1\r\nHost: t\r\n"
                                   "X-Prometheus-Scrape-Timeout-Seconds: 10\r\n\r\n");
    });
    {
        std::unique_lock guard(m);
        cv.wait(guard, [&] { return scrapes == 1; });
    }
    CHECK(seen); // Prometheus's header set a deadline
    CHECK(status_of(address, get) == 503);
    {
        std::lock_guard guard(m);
        release = true;
    }
    cv.notify_all();
    client.join();
    CHECK(first == 200);
    CHECK(status_of(address, get) == 200);
    CHECK(scrapes == 2);
    CHECK_FALSE(seen); // no header, no deadline
}
