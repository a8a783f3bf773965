// SPDX-License-Identifier: MIT
#include "collect/stats_parse.h"

#include "collect/attrs.h"

#include <algorithm>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

namespace rdmastat {
namespace {

Attrs nested_attrs(const nlattr* nest) {
    return parse_nested(nest, RDMA_NLDEV_ATTR_MAX).take();
}

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

// Walks every STAT_GET message of bytes; a dump must end with NLMSG_DONE, a
// doit reply with its ack (both are StreamEnd::done).
template <typename F> Status walk_stat(const Bytes& bytes, const char* what, F per_message) {
    unsigned index = 0;
    auto walked = walk_messages(bytes.data(), bytes.size(), [&](const nlmsghdr* nlh) -> Status {
        ++index;
        try {
            if (RDMA_NL_GET_CLIENT(nlh->nlmsg_type) != RDMA_NL_NLDEV ||
                RDMA_NL_GET_OP(nlh->nlmsg_type) != RDMA_NLDEV_CMD_STAT_GET)
                throw Error("unexpected message type " + std::to_string(nlh->nlmsg_type));
            per_message(Attrs(parse_attrs(mnl_nlmsg_get_payload(nlh),
                                          mnl_nlmsg_get_payload_len(nlh), RDMA_NLDEV_ATTR_MAX)
                                  .take()));
        } catch (const Error& e) {
            return Failure{std::string(what) + " message " + std::to_string(index) + ": " +
                           e.what()};
        }
        return Ok{};
    });
    if (!walked) return walked.failure();
    if (walked.value() != StreamEnd::done)
        return Failure{std::string(what) + ": reply ended without NLMSG_DONE or ack"};
    return Ok{};
}

} // namespace

Result<std::vector<Counter>> parse_port_stat(const Bytes& bytes) {
    std::vector<Counter> out;
    auto st = walk_stat(bytes, "port statistics", [&](const Attrs& m) {
        for (Counter& c : hw_counters(m))
            out.push_back(std::move(c));
    });
    if (!st) return st.failure();
    return out;
}

Result<std::vector<QpCounters>> parse_qp_counter_dump(const Bytes& bytes) {
    std::vector<QpCounters> out;
    auto st = walk_stat(bytes, "QP counters", [&](const Attrs& m) {
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
