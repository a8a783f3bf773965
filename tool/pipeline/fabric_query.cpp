// SPDX-License-Identifier: MIT
// The fabric's hosts from Prometheus: apart from pipeline/fabric.cpp, so that
// a binary reading snapshots never links the HTTP client.
#include "collect/http_client.h"
#include "collect/prometheus_api.h"
#include "pipeline/fabric.h"

namespace rdmastat {

Result<FabricInput> load_fabric_prometheus(const PrometheusRequest& request) {
    auto url = check_base_url(request.url);
    if (!url) return Failure{"--prometheus: " + url.error()};
    HttpClientConfig config;
    if (request.http_config) {
        auto loaded = load_http_config(*request.http_config);
        if (!loaded) return Failure{"--http.config.file: " + loaded.error()};
        config = std::move(loaded.value());
    }
    auto in = query_fabric(url.value(), config, request.timeout);
    if (in && config.tls.insecure_skip_verify && url.value().starts_with("https:"))
        in.value().warnings.push_back(*request.http_config +
                                      ": tls_config.insecure_skip_verify: the server's "
                                      "certificate was not checked");
    return in;
}

} // namespace rdmastat
