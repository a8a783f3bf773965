// SPDX-License-Identifier: MIT
#include "render/json.h"

#include "model/names.h"
#include "render/json_common.h"

#include <cinttypes>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace rdmastat {
namespace {

using json_common::json;
using json_common::put;

std::string guid_text(std::uint64_t guid) {
    char buf[24];
    std::snprintf(buf, sizeof(buf), "%04" PRIx64 ":%04" PRIx64 ":%04" PRIx64 ":%04" PRIx64,
                  (guid >> 48) & 0xffff, (guid >> 32) & 0xffff, (guid >> 16) & 0xffff,
                  guid & 0xffff);
    return buf;
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

json process_json(const Process& p) {
    json j;
    j["pid"] = p.pid;
    put(j, "comm", p.comm);
    put(j, "uid", p.uid);
    put(j, "user", p.user);
    j["inspected"] = p.inspected;
    json files = json::array();
    for (const OpenFile& f : p.files) {
        json fj = {{"fd", f.fd}, {"target", f.target}};
        put(fj, "inode", f.inode);
        files.push_back(std::move(fj));
    }
    j["files"] = std::move(files);
    return j;
}

json resource_json(const Resource& r) {
    json j;
    j["kind"] = r.kind;
    j["device"] = r.device;
    j["number"] = r.number;
    j["owner"] = json_common::owner(r.owner);
    json details = json::object();
    for (const auto& [key, value] : r.details)
        details[key] = value;
    j["details"] = std::move(details);
    return j;
}

json counters_json(const std::vector<Counter>& counters) {
    json j = json::object();
    for (const Counter& c : counters)
        j[c.name] = c.value;
    return j;
}

json port_counters_json(const PortCounters& p) {
    json j = {{"device", p.device}, {"port", p.port}};
    if (!p.source.empty()) j["source"] = p.source;
    j["counters"] = counters_json(p.counters);
    return j;
}

json qp_counters_json(const QpCounters& q) {
    return {{"device", q.device},
            {"port", q.port},
            {"counter_id", q.counter_id},
            {"qps", q.qps},
            {"counters", counters_json(q.counters)}};
}

// The arrays only some commands collect, each present only when collected.
void put_host_data(json& j, const Snapshot& snap) {
    auto list = [](const auto& items, auto to_json) {
        json a = json::array();
        for (const auto& item : items)
            a.push_back(to_json(item));
        return a;
    };
    auto host_socket = [](const HostSocket& s) {
        return json_common::host_socket(s, std::nullopt);
    };
    if (snap.host_sockets_collected) j["host_sockets"] = list(snap.host_sockets, host_socket);
    if (snap.processes_collected) j["processes"] = list(snap.processes, process_json);
    if (snap.resources_collected) j["resources"] = list(snap.resources, resource_json);
    if (snap.counters_collected) {
        j["port_counters"] = list(snap.port_counters, port_counters_json);
        j["qp_counters"] = list(snap.qp_counters, qp_counters_json);
    }
}

json devices_json(const Snapshot& snap) {
    json devices = json::array();
    for (const Device& d : snap.devices)
        devices.push_back(device_json(d));
    return devices;
}

using json_common::emit;
using json_common::header;

} // namespace

void write_snapshot_json(std::ostream& out, const Snapshot& snap,
                         const std::vector<const Connection*>& connections, bool pretty) {
    json j = header(snap);
    j["devices"] = devices_json(snap);
    json list = json::array();
    for (const Connection* c : connections)
        list.push_back(json_common::connection(*c));
    j["connections"] = std::move(list);
    put_host_data(j, snap);
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
        processes.push_back(json{{"owner", json_common::owner(p.owner)}, {"count", p.count}});
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
