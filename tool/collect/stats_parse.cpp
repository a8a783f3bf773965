// SPDX-License-Identifier: MIT
#include "collect/stats_parse.h"

#include "collect/nldev_walk.h"

#include <algorithm>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

namespace rdmastat {
namespace {

using nldev::nested_attrs;

// The entries of a nested list of entry_type, each as its attributes.
template <typename F> void each_entry(const nlattr* list, int entry_type, F f) {
    if (!list) return;
    for (const nlattr* entry : nested_list(list).take())
        if (mnl_attr_get_type(entry) == entry_type) f(nested_attrs(entry));
}

// STAT_HWCOUNTERS → [{name, value}], sorted by name.
std::vector<Counter> hw_counters(const Attrs& a) {
    std::vector<Counter> out;
    each_entry(a.get(RDMA_NLDEV_ATTR_STAT_HWCOUNTERS), RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY,
               [&](const Attrs& e) {
                   out.push_back(Counter{
                       e.need(e.str(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, "counter name"),
                              "counter name"),
                       e.need(e.u64(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, "counter value"),
                              "counter value")});
               });
    std::sort(out.begin(), out.end(),
              [](const Counter& x, const Counter& y) { return x.name < y.name; });
    return out;
}

} // namespace

Result<std::vector<Counter>> parse_port_stat(const Bytes& bytes) {
    std::vector<Counter> out;
    auto st =
        nldev::walk_dump(bytes, RDMA_NLDEV_CMD_STAT_GET, "port statistics", [&](const Attrs& m) {
            for (Counter& c : hw_counters(m))
                out.push_back(std::move(c));
        });
    if (!st) return st.failure();
    return out;
}

Result<std::vector<QpCounters>> parse_qp_counter_dump(const Bytes& bytes) {
    std::vector<QpCounters> out;
    auto st = nldev::walk_dump(bytes, RDMA_NLDEV_CMD_STAT_GET, "QP counters", [&](const Attrs& m) {
        std::string device = m.need(m.str(RDMA_NLDEV_ATTR_DEV_NAME, "device name"), "device name");
        each_entry(m.get(RDMA_NLDEV_ATTR_STAT_COUNTER), RDMA_NLDEV_ATTR_STAT_COUNTER_ENTRY,
                   [&](const Attrs& e) {
                       QpCounters q;
                       q.device = device;
                       q.port = e.need(e.u32(RDMA_NLDEV_ATTR_PORT_INDEX, "port"), "port");
                       q.counter_id = e.need(e.u32(RDMA_NLDEV_ATTR_STAT_COUNTER_ID, "counter id"),
                                             "counter id");
                       each_entry(e.get(RDMA_NLDEV_ATTR_RES_QP), RDMA_NLDEV_ATTR_RES_QP_ENTRY,
                                  [&](const Attrs& qp) {
                                      q.qps.push_back(qp.need(
                                          qp.u32(RDMA_NLDEV_ATTR_RES_LQPN, "lqpn"), "lqpn"));
                                  });
                       q.counters = hw_counters(e);
                       out.push_back(std::move(q));
                   });
    });
    if (!st) return st.failure();
    return out;
}

} // namespace rdmastat
