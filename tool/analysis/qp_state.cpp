// SPDX-License-Identifier: MIT
#include "analysis/qp_state.h"

#include "analysis/join.h"

#include <map>
#include <utility>

namespace rdmastat {
namespace {

bool consistent_owner(const ModuleRecord::OwnerPart& id, const QpRecord& qp,
                      const OwnerMap& owners) {
    if (id.kernel)
        return qp.owner.kernel && (*qp.owner.kernel == *id.kernel || *qp.owner.kernel == "rdma_cm");
    if (qp.owner.kernel) return false;
    if (!id.pid) return true;
    if (!qp.owner.pid) return false;
    auto o = owners.find(*qp.owner.pid);
    std::uint32_t process = o != owners.end() && o->second.pid ? *o->second.pid : *qp.owner.pid;
    return process == *id.pid;
}

} // namespace

std::set<std::uint32_t> qp_owner_pids(const std::vector<QpRecord>& qps) {
    std::set<std::uint32_t> pids;
    for (const QpRecord& q : qps)
        if (q.owner.pid) pids.insert(*q.owner.pid);
    return pids;
}

std::size_t fill_module_qp_states(std::vector<ModuleRecord>& records,
                                  const std::vector<QpRecord>& qps, const OwnerMap& owners) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, const QpRecord*> by_number;
    for (const QpRecord& q : qps)
        by_number.emplace(std::make_pair(q.device_index, q.number), &q);
    std::size_t filled = 0;
    for (ModuleRecord& r : records) {
        if (!r.qp || !r.qp->type || r.qp->unjoined) continue;
        auto q = by_number.find({r.device_index, r.qp->number});
        if (q == by_number.end()) continue;
        if (!consistent_owner(r.owner, *q->second, owners)) continue;
        if (q->second->remote_number && *q->second->remote_number)
            r.qp->remote_number = q->second->remote_number;
        if (r.qp->state || !q->second->state) continue;
        r.qp->state = q->second->state;
        ++filled;
    }
    return filled;
}

std::vector<std::string> forget_unreported_qp_states(Snapshot& snap, std::vector<QpRecord>& qps,
                                                     const std::set<std::string>& known) {
    std::set<std::string> silent = known;
    for (const Connection& c : snap.connections)
        if (c.via == Via::cm && c.state != CmState::listen && c.qp && c.qp->state == QpState::reset)
            silent.insert(c.device);
    // A state other than RESET is a driver that reports.
    for (const Connection& c : snap.connections)
        if (c.qp && c.qp->state && *c.qp->state != QpState::reset) silent.erase(c.device);
    for (const QpRecord& q : qps)
        if (q.state && *q.state != static_cast<std::uint8_t>(QpState::reset))
            silent.erase(q.device_name);
    std::vector<std::string> marked;
    if (silent.empty()) return marked;
    for (Device& d : snap.devices)
        if (silent.count(d.name)) {
            d.qp_states_unreported = true;
            marked.push_back(d.name);
        }
    for (Connection& c : snap.connections)
        if (c.qp && silent.count(c.device)) c.qp->state.reset();
    for (QpRecord& q : qps)
        if (silent.count(q.device_name)) q.state.reset();
    return marked;
}

} // namespace rdmastat
