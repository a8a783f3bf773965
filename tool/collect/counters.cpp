// SPDX-License-Identifier: MIT
#include "collect/counters.h"

#include "collect/stats_parse.h"
#include "common/numbers.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

namespace rdmastat {

std::optional<std::vector<Counter>> read_counter_dir(const std::string& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return std::nullopt;
    std::vector<Counter> out;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        std::ifstream in(entry.path());
        std::string text;
        if (!(in >> text)) continue;
        auto value = parse_number<std::uint64_t>(text);
        if (!value) continue;
        out.push_back(Counter{entry.path().filename().string(), *value});
    }
    std::sort(out.begin(), out.end(),
              [](const Counter& x, const Counter& y) { return x.name < y.name; });
    return out;
}

Status collect_counters(NldevSource& nldev, Snapshot& snap, const std::string& sysfs_root) {
    // Kept aside until every device is read: a failure leaves snap untouched.
    std::vector<PortCounters> ports;
    std::vector<QpCounters> bound;
    for (const Device& dev : snap.devices) {
        for (const Port& port : dev.ports) {
            PortCounters pc{dev.name, port.index, std::nullopt, {}};
            // The kernel refuses statistics of a device without hardware counters
            // (EOPNOTSUPP, EINVAL): not an error, the port just has none via NLDEV.
            // A reply that does not parse is an error: its counters are not zero.
            std::vector<Counter> counters;
            if (auto reply = nldev.port_stat(dev.index, port.index)) {
                auto parsed = parse_port_stat(reply.value());
                if (!parsed)
                    return Failure{"NLDEV statistics of " + dev.name + " port " +
                                   std::to_string(port.index) + ": " + parsed.error()};
                counters = std::move(parsed.value());
            }
            if (!counters.empty()) {
                pc.source = CounterSource::nldev;
                pc.counters = std::move(counters);
            } else if (auto files = read_counter_dir(sysfs_root + "/" + dev.name + "/ports/" +
                                                     std::to_string(port.index) + "/hw_counters");
                       files && !files->empty()) {
                pc.source = CounterSource::sysfs;
                pc.counters = std::move(*files);
            }
            ports.push_back(std::move(pc));
        }
        // Refused where a driver cannot bind counters to QPs: then there are none.
        if (auto dump = nldev.qp_counters(dev.index)) {
            auto qps = parse_qp_counter_dump(dump.value());
            if (!qps) return Failure{"NLDEV QP counters of " + dev.name + ": " + qps.error()};
            for (QpCounters& q : qps.value())
                bound.push_back(std::move(q));
        }
    }
    snap.port_counters = std::move(ports);
    snap.qp_counters = std::move(bound);
    snap.counters_collected = true;
    return Ok{};
}

} // namespace rdmastat
