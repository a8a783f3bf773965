// SPDX-License-Identifier: MIT
// One collection for the monitoring commands, counting failed sources instead
// of giving up: an exporter serves what it could read.
#include "cli/monitor.h"
#include "collect/counters.h"
#include "collect/proc_net_tcp.h"

namespace rdmastat {

Scrape scrape(const std::optional<std::string>& input, SourceChoice source, bool with_counters,
              bool with_host_sockets) {
    Scrape s;
    auto failed = [&](const char* what, const std::string& message) {
        ++s.errors[what];
        s.messages.push_back(message);
    };
    try {
        Acquired a = acquire(input, source);
        s.snapshot = std::move(a.snapshot);
        s.no_devices = std::move(a.no_devices);
    } catch (const Error& e) {
        failed("connections", e.what());
        s.snapshot.source = input ? "file" : "nldev";
    }
    if (input) return s; // a file holds what it holds
    if (with_counters)
        if (Status st = collect_counters(s.snapshot); !st)
            failed("counters", "counters: " + st.error());
    if (with_host_sockets) {
        auto list = collect_host_sockets();
        if (list) {
            if (list.value().fallback) warn_once(*list.value().fallback);
            s.snapshot.host_sockets = std::move(list.value().sockets);
            s.snapshot.host_sockets_collected = true;
        } else {
            failed("host_sockets", "host TCP sockets: " + list.error());
        }
    }
    return s;
}

} // namespace rdmastat
