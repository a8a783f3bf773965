// SPDX-License-Identifier: MIT
#include "collect/http_client.h"

#include <curl/curl.h>
#include <memory>
#include <mutex>

namespace rdmastat {
namespace {

struct Body {
    std::string text;
    std::size_t max_bytes = 0;
    bool too_large = false;
};

std::size_t on_data(char* data, std::size_t size, std::size_t count, void* user) {
    auto* body = static_cast<Body*>(user);
    const std::size_t n = size * count;
    if (n > body->max_bytes - body->text.size()) {
        body->too_large = true;
        return 0; // curl ends the transfer with CURLE_WRITE_ERROR
    }
    body->text.append(data, n);
    return n;
}

// A libcurl built without HTTP/2 refuses CURL_HTTP_VERSION_2TLS.
bool http2() {
    static const bool has =
        (curl_version_info(CURLVERSION_NOW)->features & CURL_VERSION_HTTP2) != 0;
    return has;
}

long tls_version(HttpTlsVersion v) {
    static constexpr long versions[] = {CURL_SSLVERSION_TLSv1_0, CURL_SSLVERSION_TLSv1_1,
                                        CURL_SSLVERSION_TLSv1_2, CURL_SSLVERSION_TLSv1_3};
    return versions[static_cast<int>(v)];
}

// The options, in one place: curl_easy_setopt reports an option this libcurl
// lacks, which must fail the request rather than quietly weaken it.
class Options {
  public:
    explicit Options(CURL* curl) : curl_(curl) {}
    template <typename T> Options& set(CURLoption option, T value) {
        if (rc_ == CURLE_OK) rc_ = curl_easy_setopt(curl_, option, value);
        return *this;
    }
    CURLcode result() const { return rc_; }

  private:
    CURL* curl_;
    CURLcode rc_ = CURLE_OK;
};

CURLcode configure(CURL* curl, const std::string& url, const HttpClientConfig& c,
                   std::chrono::milliseconds timeout, curl_slist* headers, Body& body,
                   char* errors) {
    Options o(curl);
    o.set(CURLOPT_URL, url.c_str())
        .set(CURLOPT_ERRORBUFFER, errors)
        .set(CURLOPT_NOSIGNAL, 1L)
        .set(CURLOPT_PROTOCOLS_STR, "http,https")
        // No redirect from https down to http.
        .set(CURLOPT_REDIR_PROTOCOLS_STR, url.starts_with("https:") ? "https" : "http,https")
        .set(CURLOPT_FOLLOWLOCATION, c.follow_redirects ? 1L : 0L)
        .set(CURLOPT_MAXREDIRS, 10L)
        .set(CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()))
        .set(CURLOPT_USERAGENT, "rdmastat")
        .set(CURLOPT_ACCEPT_ENCODING, "")
        .set(CURLOPT_HTTPHEADER, headers)
        .set(CURLOPT_WRITEFUNCTION, on_data)
        .set(CURLOPT_WRITEDATA, &body)
        .set(CURLOPT_HTTP_VERSION,
             static_cast<long>(c.enable_http2 && http2() ? CURL_HTTP_VERSION_2TLS
                                                         : CURL_HTTP_VERSION_1_1));
    if (c.username)
        o.set(CURLOPT_HTTPAUTH, static_cast<long>(CURLAUTH_BASIC))
            .set(CURLOPT_USERNAME, c.username->c_str())
            .set(CURLOPT_PASSWORD, c.password ? c.password->c_str() : "");
    const HttpTls& tls = c.tls;
    long version = tls_version(tls.min_version.value_or(HttpTlsVersion::tls12));
    if (tls.max_version) version |= tls_version(*tls.max_version) << 16;
    o.set(CURLOPT_SSLVERSION, version);
    // The CA file replaces the system's trust, as in Prometheus: Debian's
    // libcurl would otherwise still trust its CA path beside it.
    if (!tls.ca_file.empty())
        o.set(CURLOPT_CAINFO, tls.ca_file.c_str())
            .set(CURLOPT_CAPATH, static_cast<const char*>(nullptr));
    if (!tls.cert_file.empty())
        o.set(CURLOPT_SSLCERT, tls.cert_file.c_str()).set(CURLOPT_SSLKEY, tls.key_file.c_str());
    if (tls.insecure_skip_verify) o.set(CURLOPT_SSL_VERIFYPEER, 0L).set(CURLOPT_SSL_VERIFYHOST, 0L);
    // "" turns the environment's proxies off; NOPROXY "" keeps its no_proxy out.
    if (c.proxy_url)
        o.set(CURLOPT_PROXY, c.proxy_url->c_str()).set(CURLOPT_NOPROXY, c.no_proxy.c_str());
    else if (!c.proxy_from_environment)
        o.set(CURLOPT_PROXY, "");
    return o.result();
}

std::string hint(CURLcode rc, const std::string& url, const HttpClientConfig& c) {
    switch (rc) {
    case CURLE_PEER_FAILED_VERIFICATION:
        return " (trust the server's CA with tls_config.ca_file in --http.config.file)";
    case CURLE_SSL_CERTPROBLEM:
        return " (tls_config.cert_file and key_file in --http.config.file)";
    case CURLE_SSL_CACERT_BADFILE:
        return " (tls_config.ca_file in --http.config.file)";
    // Failures before there is a connection to end.
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_TOO_MANY_REDIRECTS:
        return "";
    default:
        // TLS 1.3 servers refuse a missing client certificate after the
        // handshake, so the client sees its connection end in whichever step
        // it was in: a failed send or receive, an empty reply, a handshake.
        if (url.starts_with("https:") && c.tls.cert_file.empty())
            return " (the server ended the connection: does it require a client certificate? "
                   "tls_config.cert_file and key_file in --http.config.file)";
        return "";
    }
}

} // namespace

Result<std::string> check_base_url(std::string_view text) {
    std::size_t scheme = text.substr(0, 8) == "https://"  ? 8
                         : text.substr(0, 7) == "http://" ? 7
                                                          : 0;
    if (scheme == 0)
        return Failure{"'" + std::string(text) + "' is not an http:// or https:// URL"};
    std::string_view rest = text.substr(scheme);
    std::string_view authority = rest.substr(0, rest.find('/'));
    if (authority.find('@') != std::string_view::npos)
        return Failure{"user information in the URL is not supported: put credentials in "
                       "--http.config.file (basic_auth), where other users cannot read them"};
    if (authority.empty() || authority.front() == ':') return Failure{"the URL has no host"};
    for (char ch : text)
        if (static_cast<unsigned char>(ch) <= ' ' || ch == '?' || ch == '#' || ch == 0x7f)
            return Failure{"the URL has a space, control character, query or fragment"};
    std::string url(text);
    while (url.size() > scheme && url.back() == '/')
        url.pop_back();
    // curl's own parser judges the host and port.
    std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> u(curl_url(), curl_url_cleanup);
    if (!u) return Failure{"out of memory"};
    if (CURLUcode rc = curl_url_set(u.get(), CURLUPART_URL, url.c_str(), 0); rc != CURLUE_OK)
        return Failure{"'" + url + "': " + curl_url_strerror(rc)};
    return url;
}

Result<HttpResponse> http_get(const std::string& url, const HttpClientConfig& config,
                              std::chrono::milliseconds timeout, std::size_t max_bytes) {
    static std::once_flag once;
    static CURLcode init = CURLE_OK;
    std::call_once(once, [] { init = curl_global_init(CURL_GLOBAL_DEFAULT); });
    if (init != CURLE_OK) return Failure{std::string("libcurl: ") + curl_easy_strerror(init)};
    // Declared before the handle, which may use them until it is cleaned up.
    Body body{{}, max_bytes, false};
    char errors[CURL_ERROR_SIZE] = "";
    std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers(nullptr,
                                                                        curl_slist_free_all);
    for (const std::string& h :
         {std::string("Accept: application/json"),
          config.authorization ? "Authorization: " + *config.authorization : std::string()}) {
        if (h.empty()) continue;
        curl_slist* more = curl_slist_append(headers.get(), h.c_str());
        if (!more) return Failure{"out of memory"};
        headers.release();
        headers.reset(more);
    }
    std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
    if (!curl) return Failure{"libcurl: cannot start a request"};
    CURLcode rc = configure(curl.get(), url, config, timeout, headers.get(), body, errors);
    if (rc != CURLE_OK)
        return Failure{std::string("libcurl refuses an option: ") + curl_easy_strerror(rc)};
    rc = curl_easy_perform(curl.get());
    if (body.too_large)
        return Failure{url + ": the response is larger than " + std::to_string(max_bytes) +
                       " bytes"};
    if (rc == CURLE_OPERATION_TIMEDOUT)
        return Failure{url + ": no complete response within " + std::to_string(timeout.count()) +
                       " ms"};
    if (rc != CURLE_OK)
        return Failure{url + ": " + (errors[0] ? std::string(errors) : curl_easy_strerror(rc)) +
                       hint(rc, url, config)};
    long status = 0;
    curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
    return HttpResponse{static_cast<int>(status), std::move(body.text)};
}

} // namespace rdmastat
