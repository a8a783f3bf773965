// SPDX-License-Identifier: MIT
#pragma once

/// The fabric view's hosts, read from a Prometheus server's HTTP API: the
/// rdmastat_connection_info and rdmastat_port_address_info series that
/// `rdmastat serve --per-connection` exports, one host per instance label.

#include "collect/http_client.h"
#include "common/error.h"
#include "model/fabric.h"
#include "model/schema_labels.h"

#include <chrono>
#include <string_view>
#include <vector>

namespace rdmastat {

/// One series of an instant query's vector result: its labels (the info
/// series' values are all 1, and are not read).
struct PromSeries {
    schema::LabelMap labels;
};

/// The series of an /api/v1/query response body; a failure carries the
/// server's own error ("bad_data: ...") when it sent one.
Result<std::vector<PromSeries>> parse_query_response(std::string_view body);

/// The hosts those series describe, by instance label: each connection from
/// its labels (model/schema_labels.h), each address from the port address
/// series. A series that cannot be read is left out with a warning.
FabricInput fabric_from_series(const std::vector<PromSeries>& connections,
                               const std::vector<PromSeries>& addresses);

/// Both queries against the server at url (check_base_url's), each within
/// timeout, as config says; a status the API does not answer in JSON (401, a
/// proxy's 502) is a failure naming it.
Result<FabricInput> query_fabric(const std::string& url, const HttpClientConfig& config,
                                 std::chrono::milliseconds timeout);

} // namespace rdmastat
