// SPDX-License-Identifier: MIT
// libFuzzer target: a Prometheus server's answer body, as `rdmastat fabric
// --prometheus` reads it once libcurl has it (a hostile or broken server is a
// peer like any other). What parses is joined and rendered as text and JSON; every
// connection read from labels must write the labels it was read from.
#include "analysis/fabric.h"
#include "collect/prometheus_api.h"
#include "model/schema_labels.h"
#include "render/fabric.h"
#include "render/output.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace rdmastat;
    auto series = parse_query_response(std::string_view(reinterpret_cast<const char*>(data), size));
    if (!series) return 0;
    // The same answer stands for both queries: its address labels count too.
    FabricInput in = fabric_from_series(series.value(), series.value());
    for (const FabricHost& h : in.hosts)
        for (const Connection& c : h.connections) {
            const schema::LabelMap labels = schema::to_labels(c);
            std::string why;
            auto again = schema::from_labels<Connection>(labels, &why);
            if (!again || schema::to_labels(*again) != labels) std::abort();
        }
    std::ostringstream out;
    for (const FabricQuery& q : {FabricQuery{}, FabricQuery{true, std::uint16_t{7175}}}) {
        const FabricView view = join_fabric(in, q);
        render_fabric(out, view, FabricTextOptions{true, true});
        writer_for(Output{Format::json, false})->fabric(out, in, view, {});
    }
    return 0;
}
