// SPDX-License-Identifier: MIT
#include "render/json.h"

#include "model/names.h"

#include <cinttypes>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace rdmastat {
namespace {

using json = nlohmann::ordered_json;

template <typename T> void put(json& j, const char* key, const std::optional<T>& v) {
    if (v) j[key] = *v;
}

std::string guid_text(std::uint64_t guid) {
    char buf[24];
    std::snprintf(buf, sizeof(buf), "%04" PRIx64 ":%04" PRIx64 ":%04" PRIx64 ":%04" PRIx64,
                  (guid >> 48) & 0xffff, (guid >> 32) & 0xffff, (guid >> 16) & 0xffff,
                  guid & 0xffff);
    return buf;
}

json endpoint_json(const Endpoint& e) {
    return json{{"address", e.address.to_string()}, {"port", e.port}};
}

json owner_json(const Owner& o) {
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

json connection_json(const Connection& c) {
    json j;
    j["device"] = c.device;
    put(j, "port", c.port);
    j["transport"] = transport_name(c.transport);
    put(j, "port_space", c.port_space);
    j["cm_id"] = c.cm_id;
    j["state"] = c.state;
    if (c.internal) j["internal"] = true;
    if (c.local) j["local"] = endpoint_json(*c.local);
    if (c.peer) j["peer"] = endpoint_json(*c.peer);
    if (c.mapped_local) j["mapped_local"] = endpoint_json(*c.mapped_local);
    if (c.mapped_peer) j["mapped_peer"] = endpoint_json(*c.mapped_peer);
    put(j, "mapped", c.mapped);
    if (c.qp) {
        json qp = {{"number", c.qp->number}};
        put(qp, "type", c.qp->type);
        put(qp, "state", c.qp->state);
        j["qp"] = qp;
    } else {
        j["qp"] = nullptr;
    }
    j["owner"] = owner_json(c.owner);
    put(j, "netns", c.netns);
    return j;
}

json device_json(const Device& d) {
    json j;
    j["name"] = d.name;
    j["index"] = d.index;
    j["transport"] = transport_name(d.transport);
    put(j, "node_type", d.node_type);
    put(j, "protocol", d.protocol);
    put(j, "driver", d.driver);
    put(j, "firmware", d.firmware);
    if (d.node_guid) j["node_guid"] = guid_text(*d.node_guid);
    json ports = json::array();
    for (const Port& p : d.ports) {
        json pj = {{"port", p.index}};
        put(pj, "state", p.state);
        put(pj, "phys_state", p.phys_state);
        put(pj, "netdev", p.netdev);
        put(pj, "netdev_index", p.netdev_index);
        ports.push_back(std::move(pj));
    }
    j["ports"] = std::move(ports);
    return j;
}

json header(const Snapshot& snap) {
    return json{{"version", Snapshot::schema_version}, {"source", snap.source}};
}

json devices_json(const Snapshot& snap) {
    json devices = json::array();
    for (const Device& d : snap.devices)
        devices.push_back(device_json(d));
    return devices;
}

// Strings from the system need not be UTF-8 (a comm cut at 15 bytes can split a
// character): invalid bytes become U+FFFD instead of failing the whole output.
void emit(std::ostream& out, const json& j, bool pretty) {
    out << j.dump(pretty ? 2 : -1, ' ', false, json::error_handler_t::replace) << '\n';
}

} // namespace

void write_snapshot_json(std::ostream& out, const Snapshot& snap,
                         const std::vector<const Connection*>& connections, bool pretty) {
    json j = header(snap);
    j["devices"] = devices_json(snap);
    json list = json::array();
    for (const Connection* c : connections)
        list.push_back(connection_json(*c));
    j["connections"] = std::move(list);
    emit(out, j, pretty);
}

void write_devices_json(std::ostream& out, const Snapshot& snap, bool pretty) {
    json j = header(snap);
    j["devices"] = devices_json(snap);
    emit(out, j, pretty);
}

void write_summary_json(std::ostream& out, const Snapshot& snap, const Summary& s, bool pretty) {
    json j = header(snap);
    json processes = json::array();
    for (const auto& p : s.by_process)
        processes.push_back(json{{"owner", owner_json(p.owner)}, {"count", p.count}});
    json& summary = j["summary"];
    summary["total"] = s.total;
    summary["with_peer"] = s.with_peer;
    summary["listening"] = s.listening;
    summary["other"] = s.other;
    summary["by_device"] = s.by_device;
    summary["by_transport"] = s.by_transport;
    summary["by_state"] = s.by_state;
    summary["by_process"] = std::move(processes);
    emit(out, j, pretty);
}

} // namespace rdmastat
