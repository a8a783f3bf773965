// SPDX-License-Identifier: MIT
#include "collect/prometheus_api.h"

#include <map>
#include <nlohmann/json.hpp>

namespace rdmastat {
namespace {

using json = nlohmann::json;

// The API's answers can be large (a series per cm_id of every host), but not this large.
constexpr std::size_t max_response = 512u << 20;

std::string host_of(const schema::LabelMap& labels) {
    auto it = labels.find("instance");
    return it == labels.end() ? std::string("-") : it->second;
}

// A reason for a status the API does not answer in JSON (a proxy's, or the
// server's own 401): the status and the body's first line.
std::string status_reason(const HttpResponse& r) {
    std::string line = r.body.substr(0, r.body.find('\n'));
    if (line.size() > 120) line = line.substr(0, 120) + "...";
    // The server's text goes to a terminal: nothing that could drive it.
    for (char& ch : line)
        if (static_cast<unsigned char>(ch) < ' ' || ch == 0x7f) ch = '?';
    std::string why = "HTTP " + std::to_string(r.status);
    if (!line.empty()) why += " (" + line + ")";
    if (r.status == 401 || r.status == 403)
        why += ": wrong or missing credentials (basic_auth or authorization in --http.config.file)";
    return why;
}

Result<std::vector<PromSeries>> query(const std::string& url, const HttpClientConfig& config,
                                      std::string_view expr, std::chrono::milliseconds timeout) {
    auto r =
        http_get(url + "/api/v1/query?query=" + std::string(expr), config, timeout, max_response);
    if (!r) return Failure{"prometheus: " + r.error()};
    auto series = parse_query_response(r.value().body);
    // The API's own errors are JSON ("bad_data: ..."); anything else is the status's.
    if (!series && r.value().status != 200 && !json::accept(r.value().body))
        return Failure{"prometheus: " + url + ": " + status_reason(r.value())};
    if (!series)
        return Failure{"prometheus: " + std::string(expr) + ": HTTP " +
                       std::to_string(r.value().status) + ": " + series.error()};
    return series;
}

Result<std::vector<PromSeries>> parse_document(std::string_view body) {
    json doc = json::parse(body, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) return Failure{"the response is not JSON"};
    const std::string status = doc.value("status", std::string());
    if (status != "success") {
        std::string why = doc.value("errorType", std::string("error")) + ": " +
                          doc.value("error", std::string("status '" + status + "'"));
        return Failure{why};
    }
    const json* data = doc.contains("data") ? &doc["data"] : nullptr;
    if (!data || !data->is_object() || data->value("resultType", std::string()) != "vector" ||
        !data->contains("result") || !(*data)["result"].is_array())
        return Failure{"the response's data is not a vector"};
    std::vector<PromSeries> out;
    for (const json& s : (*data)["result"]) {
        if (!s.is_object() || !s.contains("metric") || !s["metric"].is_object())
            return Failure{"a series without labels"};
        PromSeries series;
        for (const auto& [name, value] : s["metric"].items()) {
            if (!value.is_string()) return Failure{"label " + name + " is not a string"};
            series.labels[name] = value.get<std::string>();
        }
        out.push_back(std::move(series));
    }
    return out;
}

} // namespace

Result<std::vector<PromSeries>> parse_query_response(std::string_view body) {
    // A member of an unexpected type makes nlohmann throw: the server's
    // answer is refused, never a crash.
    try {
        return parse_document(body);
    } catch (const json::exception& e) {
        return Failure{std::string("unexpected JSON: ") + e.what()};
    }
}

FabricInput fabric_from_series(const std::vector<PromSeries>& connections,
                               const std::vector<PromSeries>& addresses) {
    FabricInput in;
    in.origin = FabricOrigin::prometheus;
    std::map<std::string, FabricHost> hosts;
    std::size_t unreadable = 0;
    std::string first_why;
    for (const PromSeries& s : connections) {
        std::string why;
        auto c = schema::from_labels<Connection>(s.labels, &why);
        if (c)
            if (auto missing = schema::missing_for_kind(*c)) {
                why = std::string(missing->first) + ": " + std::string(missing->second);
                c.reset();
            }
        FabricHost& h = hosts[host_of(s.labels)];
        if (!c) {
            if (unreadable++ == 0) first_why = why;
            continue;
        }
        h.connections.push_back(std::move(*c));
    }
    for (const PromSeries& s : addresses) {
        auto a = s.labels.find("address");
        auto ip = a == s.labels.end() ? std::nullopt : IpAddress::parse(a->second);
        if (!ip) {
            ++unreadable;
            if (first_why.empty()) first_why = "rdmastat_port_address_info without an address";
            continue;
        }
        hosts[host_of(s.labels)].addresses.push_back(*ip);
    }
    if (unreadable)
        in.warnings.push_back(
            std::to_string(unreadable) +
            " series could not be read and are left out (the first: " + first_why + ")");
    for (auto& [name, h] : hosts) {
        h.name = name;
        sort_unique(h.addresses);
        in.hosts.push_back(std::move(h));
    }
    return in;
}

Result<FabricInput> query_fabric(const std::string& url, const HttpClientConfig& config,
                                 std::chrono::milliseconds timeout) {
    auto connections = query(url, config, "rdmastat_connection_info", timeout);
    if (!connections) return connections.failure();
    auto addresses = query(url, config, "rdmastat_port_address_info", timeout);
    if (!addresses) return addresses.failure();
    FabricInput in = fabric_from_series(connections.value(), addresses.value());
    if (in.hosts.empty())
        in.warnings.push_back("prometheus: no rdmastat_connection_info series: is rdmastat serve "
                              "running with --per-connection, and scraped?");
    return in;
}

} // namespace rdmastat
