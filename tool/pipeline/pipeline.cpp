// SPDX-License-Identifier: MIT
#include "pipeline/pipeline.h"

#include "common/error.h"

#include <algorithm>

namespace rdmastat {

Collection run_pipeline(const Request& request, System& system) {
    std::unique_ptr<Source> source =
        request.input ? file_source(*request.input) : system_source(system, request.choice);
    return source->collect(request.needs);
}

Collection run_pipeline(const Request& request) {
    std::unique_ptr<System> system = live_system();
    return run_pipeline(request, *system);
}

void require_all(const Collection& collection) {
    if (!collection.errors.empty()) throw Error(collection.errors.front().message);
}

void require(const Collection& collection, Part part) {
    auto e = std::find_if(collection.errors.begin(), collection.errors.end(),
                          [&](const PartError& x) { return x.part == part; });
    if (e != collection.errors.end()) throw Error(e->message);
}

} // namespace rdmastat
