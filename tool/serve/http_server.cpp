// SPDX-License-Identifier: MIT
#include "serve/http_server.h"

#include "common/numbers.h"
#include "serve/auth.h"
#include "serve/request_timer.h"
#include "serve/work_queue.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <microhttpd.h>
#include <mutex>
#include <unistd.h>

namespace rdmastat {

namespace {

using Body = std::shared_ptr<const std::string>;

// One request's progress; MHD keeps it in the connection's context from the
// headers to the answer, across the suspensions while a worker has it.
struct Exchange {
    enum class Stage { fresh, authenticating, scraping, answering };
    Stage stage = Stage::fresh;
    std::size_t body_bytes = 0;
    std::optional<BasicCredentials> credentials;
    bool authenticated = false;
    Deadline deadline;
    unsigned status = 0; // set with body by a worker before it resumes the connection
    Body body;
};

struct Pending {
    MHD_Connection* connection;
    Exchange* exchange;
};

constexpr std::size_t max_body = 64 * 1024;
const char* const text_plain = "text/plain; charset=utf-8";

Body text(std::string s) {
    return std::make_shared<const std::string>(std::move(s));
}

} // namespace

std::chrono::duration<double> scrape_budget(double seconds) {
    seconds = std::min(seconds, 3600.0);
    return std::chrono::duration<double>(seconds >= 1 ? seconds - 0.5 : seconds / 2);
}

struct HttpServer::Impl {
    Impl(WebConfig c, ServerLimits l, ScrapeFunction s, std::string type)
        : config(std::move(c)), limits(l), scrape(std::move(s)), content_type(std::move(type)),
          auth(config.users), timer(std::chrono::seconds(limits.request_timeout)),
          priorities(config.tls ? gnutls_priorities(*config.tls) : std::string()),
          auth_queue(
              limits.max_requests, [this](std::vector<Pending>& b) { authenticate(b); }, resume),
          scrape_queue(
              limits.max_requests, [this](std::vector<Pending>& b) { run_scrape(b); }, resume) {}

    // The workers' halves: answer into the exchange; the queue then resumes
    // the batch once its room is free, so that a client that got its answer
    // and asks again is never refused for the request just answered.
    void authenticate(std::vector<Pending>& batch) {
        for (Pending& p : batch)
            p.exchange->authenticated = auth.verify(*p.exchange->credentials);
    }
    static void resume(std::vector<Pending>& batch) {
        for (Pending& p : batch)
            MHD_resume_connection(p.connection);
    }
    void run_scrape(std::vector<Pending>& batch) {
        // A request whose deadline passed while it waited is given up: its
        // client has. The others share one scrape under the latest deadline,
        // so that no client's header makes another's scrape poorer; none
        // when one of them set none.
        auto now = std::chrono::steady_clock::now();
        Deadline deadline;
        bool unbounded = false;
        std::vector<Pending> live;
        for (Pending& p : batch) {
            const Deadline& d = p.exchange->deadline;
            if (d && *d <= now) {
                fill(p, 503, text("the scrape timeout passed while the request waited\n"));
                continue;
            }
            unbounded = unbounded || !d;
            if (d && (!deadline || *deadline < *d)) deadline = d;
            live.push_back(p);
        }
        if (live.empty()) return;
        Body body;
        unsigned status = 200;
        try {
            body = text(scrape(unbounded ? Deadline() : deadline));
        } catch (const std::exception& e) {
            status = 500;
            body = text(std::string("scrape failed: ") + e.what() + "\n");
        }
        for (Pending& p : live)
            fill(p, status, body);
    }
    static void fill(Pending& p, unsigned status, const Body& body) {
        p.exchange->status = status;
        p.exchange->body = body;
        p.exchange->stage = Exchange::Stage::answering;
    }
    static void answer(Pending& p, unsigned status, const Body& body) {
        fill(p, status, body);
        MHD_resume_connection(p.connection);
    }

    MHD_Result reply(MHD_Connection* c, unsigned status, const Body& body, const char* type,
                     const char* extra_name = nullptr, const char* extra_value = nullptr) {
        auto* keep = new Body(body);
        MHD_Response* r = MHD_create_response_from_buffer_with_free_callback_cls(
            body->size(), const_cast<char*>(body->data()),
            [](void* cls) { delete static_cast<Body*>(cls); }, keep);
        if (!r) {
            delete keep;
            return MHD_NO;
        }
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
        for (const auto& [name, value] : config.headers)
            MHD_add_response_header(r, name.c_str(), value.c_str());
        if (extra_name) MHD_add_response_header(r, extra_name, extra_value);
        MHD_Result rc = MHD_queue_response(c, status, r);
        MHD_destroy_response(r);
        return rc;
    }
    MHD_Result refuse(MHD_Connection* c, unsigned status, const char* why) {
        return reply(c, status, text(std::string(why) + "\n"), text_plain);
    }

    // Hands the request to queue, suspended until the worker resumes it.
    MHD_Result hand_over(MHD_Connection* c, Exchange& ex, WorkQueue<Pending>& queue) {
        // Suspended first: the worker may resume it before offer returns.
        MHD_suspend_connection(c);
        Pending p{c, &ex};
        if (!queue.offer(p)) answer(p, 503, text("too many requests in progress\n"));
        return MHD_YES;
    }

    // The client certificate, when the web config asks for one: nullptr if
    // it passes, else why not.
    const char* certificate_refusal(MHD_Connection* c) {
        if (!config.tls || config.tls->client_auth == ClientAuth::none) return nullptr;
        const MHD_ConnectionInfo* info =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
        if (!info || !info->tls_session) return "no TLS session";
        auto session = static_cast<gnutls_session_t>(info->tls_session);
        unsigned count = 0;
        if (!gnutls_certificate_get_peers(session, &count) || count == 0)
            return config.tls->client_auth == ClientAuth::require_and_verify
                       ? "a client certificate is required"
                       : nullptr;
        // Signed by a client CA and fit for client authentication, as Go's
        // crypto/tls (exporter-toolkit) requires.
        gnutls_typed_vdata_st purpose{};
        purpose.type = GNUTLS_DT_KEY_PURPOSE_OID;
        purpose.data =
            reinterpret_cast<unsigned char*>(const_cast<char*>(GNUTLS_KP_TLS_WWW_CLIENT));
        unsigned status = 0;
        if (gnutls_certificate_verify_peers(session, &purpose, 1, &status) < 0 || status != 0)
            return "the client certificate does not verify against client_ca_file";
        return nullptr;
    }

    MHD_Result request(MHD_Connection* c, std::string_view url, std::string_view method,
                       Exchange& ex) {
        using Stage = Exchange::Stage;
        if (ex.stage == Stage::answering)
            return reply(c, ex.status, ex.body,
                         ex.status == 200 ? content_type.c_str() : text_plain);
        // As exporter-toolkit: who the client is comes first, for every path.
        if (ex.stage == Stage::fresh) {
            if (RequestTimer::Entry* e = timed(c)) timer.requested(e);
            if (const char* why = certificate_refusal(c)) return refuse(c, 403, why);
            if (auth.enabled()) {
                const char* value =
                    MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
                ex.credentials = value ? parse_basic_authorization(value) : std::nullopt;
                if (!ex.credentials) return unauthorized(c);
                ex.authenticated = auth.known(*ex.credentials);
                if (!ex.authenticated) {
                    ex.stage = Stage::authenticating;
                    return hand_over(c, ex, auth_queue);
                }
            }
        }
        if (ex.stage == Stage::authenticating && !ex.authenticated) return unauthorized(c);
        if (method != "GET" && method != "HEAD")
            return reply(c, 405, text("only GET and HEAD\n"), text_plain, "Allow", "GET, HEAD");
        if (url == "/")
            return reply(c, 200, text("rdmastat exporter: metrics at /metrics\n"), text_plain);
        if (url != "/metrics") return refuse(c, 404, "not found: metrics are at /metrics");
        ex.stage = Stage::scraping;
        if (const char* t = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                        "X-Prometheus-Scrape-Timeout-Seconds"))
            if (auto seconds = parse_seconds(t))
                ex.deadline = std::chrono::steady_clock::now() +
                              std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                  scrape_budget(*seconds));
        return hand_over(c, ex, scrape_queue);
    }
    static RequestTimer::Entry* timed(MHD_Connection* c) {
        const MHD_ConnectionInfo* info =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
        return info ? static_cast<RequestTimer::Entry*>(info->socket_context) : nullptr;
    }
    MHD_Result unauthorized(MHD_Connection* c) {
        return reply(c, 401, text("unauthorized\n"), text_plain, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                     "Basic realm=\"rdmastat\"");
    }

    // MHD's log: shown while starting, then at most one line a second, since
    // a flood of bad handshakes would otherwise flood the journal.
    void log(const char* format, va_list ap) {
        char line[512];
        std::vsnprintf(line, sizeof line, format, ap);
        std::lock_guard guard(log_lock);
        if (!started) {
            startup_log += line;
            return;
        }
        auto now = std::chrono::steady_clock::now();
        if (now - last_log < std::chrono::seconds(1)) return;
        last_log = now;
        std::string l = "rdmastat: serve: " + std::string(line);
        while (l.back() == '\n')
            l.pop_back();
        l += '\n';
        // One write(2), not std::cerr: the scrape worker writes there.
        [[maybe_unused]] ssize_t n = ::write(STDERR_FILENO, l.data(), l.size());
    }

    WebConfig config;
    ServerLimits limits;
    ScrapeFunction scrape;
    std::string content_type;
    BasicAuth auth;
    RequestTimer timer;
    std::string priorities;
    std::mutex log_lock;
    bool started = false;
    std::string startup_log;
    std::chrono::steady_clock::time_point last_log;
    WorkQueue<Pending> auth_queue;
    WorkQueue<Pending> scrape_queue;
    MHD_Daemon* daemon = nullptr;
};

namespace {

MHD_Result on_request(void* cls, MHD_Connection* c, const char* url, const char* method,
                      const char*, const char*, std::size_t* upload_size, void** context) {
    auto& server = *static_cast<HttpServer::Impl*>(cls);
    auto* ex = static_cast<Exchange*>(*context);
    if (!ex) { // the headers are in: set up, answer when the body is read
        *context = new Exchange;
        return MHD_YES;
    }
    if (*upload_size) { // a body nobody asked for: read past it, within bounds
        ex->body_bytes += *upload_size;
        *upload_size = 0;
        return ex->body_bytes > max_body ? MHD_NO : MHD_YES;
    }
    return server.request(c, url, method, *ex);
}

void on_completed(void* cls, MHD_Connection* c, void** context, MHD_RequestTerminationCode) {
    delete static_cast<Exchange*>(*context);
    *context = nullptr;
    if (RequestTimer::Entry* e = HttpServer::Impl::timed(c))
        static_cast<HttpServer::Impl*>(cls)->timer.answered(e);
}

void on_connection(void* cls, MHD_Connection* c, void** socket_context,
                   MHD_ConnectionNotificationCode code) {
    RequestTimer& timer = static_cast<HttpServer::Impl*>(cls)->timer;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const MHD_ConnectionInfo* info =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        *socket_context = info ? timer.opened(info->connect_fd) : nullptr;
    } else if (*socket_context) {
        timer.closed(static_cast<RequestTimer::Entry*>(*socket_context));
        *socket_context = nullptr;
    }
}

void on_log(void* cls, const char* format, va_list ap) {
    static_cast<HttpServer::Impl*>(cls)->log(format, ap);
}

} // namespace

HttpServer::HttpServer(int listen_fd, WebConfig config, ServerLimits limits, ScrapeFunction scrape,
                       std::string content_type)
    : impl_(std::make_unique<Impl>(std::move(config), limits, std::move(scrape),
                                   std::move(content_type))) {
    Impl& s = *impl_;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
                     MHD_USE_ERROR_LOG;
    std::vector<MHD_OptionItem> options{
        {MHD_OPTION_LISTEN_SOCKET, listen_fd, nullptr},
        {MHD_OPTION_CONNECTION_LIMIT, static_cast<intptr_t>(limits.max_connections), nullptr},
        {MHD_OPTION_PER_IP_CONNECTION_LIMIT, static_cast<intptr_t>(limits.max_client_connections),
         nullptr},
        {MHD_OPTION_CONNECTION_TIMEOUT, static_cast<intptr_t>(limits.idle_timeout), nullptr},
        // Bounds a request's line and headers (and what an idle connection
        // may come to cost: the pool is touched as it fills).
        {MHD_OPTION_CONNECTION_MEMORY_LIMIT, 32 * 1024, nullptr},
        {MHD_OPTION_NOTIFY_COMPLETED, reinterpret_cast<intptr_t>(&on_completed), &s},
        {MHD_OPTION_NOTIFY_CONNECTION, reinterpret_cast<intptr_t>(&on_connection), &s},
        {MHD_OPTION_EXTERNAL_LOGGER, reinterpret_cast<intptr_t>(&on_log), &s},
    };
    if (const std::optional<TlsConfig>& tls = s.config.tls) {
        flags |= MHD_USE_TLS;
        options.push_back({MHD_OPTION_HTTPS_MEM_CERT, 0, const_cast<char*>(tls->cert_pem.c_str())});
        options.push_back({MHD_OPTION_HTTPS_MEM_KEY, 0, const_cast<char*>(tls->key_pem.c_str())});
        options.push_back(
            {MHD_OPTION_HTTPS_PRIORITIES, 0, const_cast<char*>(s.priorities.c_str())});
        if (!tls->client_ca_pem.empty())
            options.push_back(
                {MHD_OPTION_HTTPS_MEM_TRUST, 0, const_cast<char*>(tls->client_ca_pem.c_str())});
    }
    options.push_back({MHD_OPTION_END, 0, nullptr});
    s.daemon = MHD_start_daemon(flags, 0, nullptr, nullptr, &on_request, &s, MHD_OPTION_ARRAY,
                                options.data(), MHD_OPTION_END);
    std::lock_guard guard(s.log_lock);
    if (!s.daemon) {
        // Not closed here: libmicrohttpd closes listen_fd on some failures.
        std::string why = s.startup_log.empty() ? "libmicrohttpd did not start" : s.startup_log;
        while (!why.empty() && why.back() == '\n')
            why.pop_back();
        throw Error("serve", why);
    }
    s.started = true;
}

HttpServer::~HttpServer() {
    Impl& s = *impl_;
    // Every suspended request is resumed before MHD stops: the workers finish
    // what they hold, and what is still queued is answered 503.
    for (WorkQueue<Pending>* q : {&s.auth_queue, &s.scrape_queue})
        for (Pending& p : q->stop())
            Impl::answer(p, 503, text("shutting down\n"));
    MHD_stop_daemon(s.daemon);
}

} // namespace rdmastat
