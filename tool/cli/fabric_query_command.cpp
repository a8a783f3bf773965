// SPDX-License-Identifier: MIT
// `rdmastat fabric --prometheus`: the HTTP client's half of fabric, in
// rdmastat-full only (libcurl and its TLS library).
#include "cli/commands.h"
#include "cli/say.h"
#include "pipeline/fabric.h"

namespace rdmastat {

int run_fabric_query(const FabricOptions& o, const Output& output, std::ostream& out,
                     std::ostream& err) {
    PrometheusRequest request{*o.prometheus, o.http_config,
                              std::chrono::milliseconds(static_cast<long>(o.timeout * 1000))};
    auto in = load_fabric_prometheus(request);
    if (!in) return say_failed(err, "fabric", in.error());
    return show_fabric(o, output, in.value(), out, err);
}

} // namespace rdmastat
