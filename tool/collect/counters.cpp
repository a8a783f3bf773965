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

Result<Bytes> request_port_stat(NldevSource& nldev, std::uint32_t device_index,
                                std::uint32_t port) {
    return nldev.socket().request([&](nlmsghdr* nlh) {
        nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET);
        nlh->nlmsg_flags |= NLM_F_ACK;
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, device_index);
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, port);
    });
}

Result<Bytes> dump_qp_counters(NldevSource& nldev, std::uint32_t device_index) {
    return nldev.socket().request([&](nlmsghdr* nlh) {
        nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET);
        nlh->nlmsg_flags |= NLM_F_DUMP;
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, device_index);
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_RES, RDMA_NLDEV_ATTR_RES_QP);
    });
}

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

Status collect_counters(Snapshot& snap, const std::string& sysfs_root) {
    snap.counters_collected = true;
    auto opened = NldevSource::open();
    if (!opened) return opened.failure();
    if (!opened.value()) return Ok{}; // no RDMA netlink, no devices, no counters
    NldevSource& nldev = *opened.value();
    for (const Device& dev : snap.devices) {
        for (const Port& port : dev.ports) {
            PortCounters pc{dev.name, port.index, std::nullopt, {}};
            auto reply = request_port_stat(nldev, dev.index, port.index);
            // The kernel refuses statistics of a device without hardware counters
            // (EOPNOTSUPP, EINVAL): not an error, the port just has none via NLDEV.
            auto counters = reply ? parse_port_stat(reply.value()) : reply.failure();
            if (counters && !counters.value().empty()) {
                pc.source = CounterSource::nldev;
                pc.counters = std::move(counters.value());
            } else if (auto files = read_counter_dir(sysfs_root + "/" + dev.name + "/ports/" +
                                                     std::to_string(port.index) + "/hw_counters");
                       files && !files->empty()) {
                pc.source = CounterSource::sysfs;
                pc.counters = std::move(*files);
            }
            snap.port_counters.push_back(std::move(pc));
        }
        if (auto dump = dump_qp_counters(nldev, dev.index))
            if (auto qps = parse_qp_counter_dump(dump.value()))
                for (QpCounters& q : qps.value())
                    snap.qp_counters.push_back(std::move(q));
    }
    return Ok{};
}

} // namespace rdmastat
