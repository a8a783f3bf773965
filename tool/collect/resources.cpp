// SPDX-License-Identifier: MIT
#include "collect/resources.h"

#include "model/names.h"

namespace rdmastat {

ResourceRecord resource_from_qp(const QpRecord& qp) {
    ResourceRecord r;
    r.kind = ResourceKind::qp;
    r.device_index = qp.device_index;
    r.device_name = qp.device_name;
    r.number = qp.number;
    r.owner = qp.owner;
    if (qp.type) r.details.emplace_back("type", name_of(static_cast<QpType>(*qp.type)));
    if (qp.state) r.details.emplace_back("state", name_of(static_cast<QpState>(*qp.state)));
    if (qp.remote_number && *qp.remote_number)
        r.details.emplace_back("rqpn", std::to_string(*qp.remote_number));
    return r;
}

std::set<std::uint32_t> resource_owner_pids(const std::vector<ResourceRecord>& records) {
    std::set<std::uint32_t> pids;
    for (const auto& r : records)
        if (r.owner.pid) pids.insert(*r.owner.pid);
    return pids;
}

std::vector<Resource> to_resources(const std::vector<ResourceRecord>& records,
                                   const OwnerMap& owners) {
    std::vector<Resource> out;
    out.reserve(records.size());
    for (const auto& r : records) {
        Resource res;
        res.kind = r.kind;
        res.device = r.device_name;
        res.number = r.number;
        if (r.owner.kernel) {
            res.owner.kernel = r.owner.kernel;
        } else if (r.owner.pid) {
            auto it = owners.find(*r.owner.pid);
            if (it != owners.end())
                res.owner = it->second;
            else
                res.owner.pid = r.owner.pid;
        }
        res.details = r.details;
        out.push_back(std::move(res));
    }
    return out;
}

} // namespace rdmastat
