// SPDX-License-Identifier: MIT
#include "pipeline/pipeline.h"

#include "common/error.h"

#include <algorithm>
#include <optional>

namespace rdmastat {

namespace {

// Passes everything on, noting whether the source began.
class Relay final : public ConnectionSink {
  public:
    explicit Relay(ConnectionSink& to) : to_(to) {}
    void begin(const Snapshot& head) override {
        begun = true;
        to_.begin(head);
    }
    void connection(const Connection& c) override { to_.connection(c); }
    bool begun = false;

  private:
    ConnectionSink& to_;
};

} // namespace

Collection run_pipeline(const Request& request, System& system) {
    std::optional<Relay> relay;
    if (request.sink) relay.emplace(*request.sink);
    std::unique_ptr<Source> source = request.input
                                         ? file_source(*request.input, relay ? &*relay : nullptr)
                                         : system_source(system, request.choice);
    Collection c = source->collect(request.needs);
    if (relay && !relay->begun && !c.failed(Part::connections)) {
        std::vector<Connection> connections = std::move(c.snapshot.connections);
        c.snapshot.connections.clear();
        relay->begin(c.snapshot);
        for (const Connection& conn : connections)
            relay->connection(conn);
    }
    return c;
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
