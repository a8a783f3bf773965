// SPDX-License-Identifier: MIT
#include "render/json_common.h"

#include "model/names.h"

namespace rdmastat::json_common {

json endpoint(const Endpoint& e) {
    return json{{"address", e.address.to_string()}, {"port", e.port}};
}

void put_addresses(json& j, const Connection& c) {
    if (c.local) j["local"] = endpoint(*c.local);
    if (c.peer) j["peer"] = endpoint(*c.peer);
    if (c.mapped_local) j["mapped_local"] = endpoint(*c.mapped_local);
    if (c.mapped_peer) j["mapped_peer"] = endpoint(*c.mapped_peer);
}

json connection(const Connection& c) {
    json j;
    j["device"] = c.device;
    put(j, "port", c.port);
    j["transport"] = transport_name(c.transport);
    put(j, "port_space", c.port_space);
    j["cm_id"] = c.cm_id;
    j["state"] = cm_state_name(c.state);
    if (c.internal) j["internal"] = true;
    put_addresses(j, c);
    put(j, "mapped", c.mapped);
    if (c.qp) {
        json qp = {{"number", c.qp->number}};
        put(qp, "type", c.qp->type);
        put(qp, "state", c.qp->state);
        j["qp"] = qp;
    } else {
        j["qp"] = nullptr;
    }
    if (c.qp_unjoined)
        j["qp_unjoined"] = {{"number", c.qp_unjoined->number},
                            {"reason", qp_unjoined_name(c.qp_unjoined->reason)}};
    j["owner"] = owner(c.owner);
    put(j, "netns", c.netns);
    return j;
}

json owner(const Owner& o) {
    json j = json::object();
    if (o.kernel) {
        j["kernel"] = *o.kernel;
        return j;
    }
    put(j, "pid", o.pid);
    put(j, "tid", o.tid);
    put(j, "comm", o.comm);
    put(j, "uid", o.uid);
    put(j, "user", o.user);
    return j;
}

json host_socket(const HostSocket& s, const std::optional<std::string>& comm) {
    json j;
    j["state"] = s.state;
    j["local"] = endpoint(s.local);
    j["peer"] = endpoint(s.peer);
    j["inode"] = s.inode;
    j["uid"] = s.uid;
    put(j, "pid", s.pid);
    put(j, "fd", s.fd);
    if (s.pid) put(j, "comm", comm);
    put(j, "rdma_device", s.rdma_device);
    put(j, "rdma_cm_id", s.rdma_cm_id);
    return j;
}

json header(const Snapshot& snap) {
    return json{{"version", Snapshot::schema_version},
                {"source", snapshot_source_name(snap.source)}};
}

void emit(std::ostream& out, const json& j, bool pretty) {
    out << j.dump(pretty ? 2 : -1, ' ', false, json::error_handler_t::replace) << '\n';
}

} // namespace rdmastat::json_common
