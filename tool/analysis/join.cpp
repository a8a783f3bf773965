// SPDX-License-Identifier: MIT
#include "analysis/join.h"

#include "model/names.h"

#include <map>
#include <utility>

namespace rdmastat {
namespace {

Owner owner_from(const RawOwner& raw, const OwnerMap& owners) {
    Owner o;
    if (raw.kernel) {
        o.kernel = raw.kernel;
        return o;
    }
    if (!raw.pid) return o;
    auto it = owners.find(*raw.pid);
    if (it != owners.end()) return it->second;
    o.pid = raw.pid;
    return o;
}

} // namespace

std::set<std::uint32_t> owner_pids(const NldevData& data) {
    std::set<std::uint32_t> pids;
    for (const auto& c : data.cm_ids)
        if (c.owner.pid) pids.insert(*c.owner.pid);
    for (const auto& q : data.qps)
        if (q.owner.pid) pids.insert(*q.owner.pid);
    return pids;
}

Snapshot join(const NldevData& data, const OwnerMap& owners, std::string source) {
    Snapshot snap;
    snap.source = std::move(source);
    snap.devices = data.devices;

    std::map<std::uint32_t, Transport> transports;
    for (const auto& d : data.devices)
        transports[d.index] = d.transport;
    std::map<std::pair<std::uint32_t, std::uint32_t>, const QpRecord*> qps;
    for (const auto& q : data.qps)
        qps[{q.device_index, q.number}] = &q;

    snap.connections.reserve(data.cm_ids.size());
    for (const auto& r : data.cm_ids) {
        Connection c;
        c.device = r.device_name;
        c.port = r.port;
        auto t = transports.find(r.device_index);
        c.transport = t == transports.end() ? Transport::unknown : t->second;
        if (r.port_space) c.port_space = port_space_name(*r.port_space);
        c.cm_id = r.cm_idn;
        c.state = cm_state_name(r.state);
        c.local = r.src;
        c.peer = r.dst;
        if (r.qp_number) {
            Qp qp;
            qp.number = *r.qp_number;
            if (r.qp_type) qp.type = qp_type_name(*r.qp_type);
            auto q = qps.find({r.device_index, *r.qp_number});
            if (q != qps.end()) {
                if (q->second->type) qp.type = qp_type_name(*q->second->type);
                if (q->second->state) qp.state = qp_state_name(*q->second->state);
            }
            c.qp = std::move(qp);
        }
        c.owner = owner_from(r.owner, owners);
        snap.connections.push_back(std::move(c));
    }
    return snap;
}

} // namespace rdmastat
