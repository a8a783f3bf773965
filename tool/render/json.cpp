// SPDX-License-Identifier: MIT
#include "render/json.h"

#include "model/names.h"
#include "render/json_common.h"
#include "render/json_writer.h"

#include <cinttypes>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string_view>
#include <type_traits>

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

void write_endpoint(JsonWriter& w, std::string_view key, const std::optional<Endpoint>& e) {
    if (!e) return;
    w.key(key);
    w.begin_object();
    w.key("address");
    w.string(e->address.to_string());
    w.key("port");
    w.number(e->port);
    w.end_object();
}

template <typename T>
void write_opt(JsonWriter& w, std::string_view key, const std::optional<T>& v) {
    if (!v) return;
    w.key(key);
    if constexpr (std::is_same_v<T, std::string>)
        w.string(*v);
    else if constexpr (std::is_enum_v<T>)
        w.string(name_of(*v));
    else if constexpr (std::is_same_v<T, bool>)
        w.boolean(*v);
    else
        w.number(*v);
}

// The keys of connection_json in rdmastat(8), written as they are made: a listing
// of a million connections is never one document in memory. Same keys and order
// as json_common::owner and put_addresses give the lsof and check renderers.
void write_connection(JsonWriter& w, const Connection& c) {
    w.begin_object();
    w.key("device");
    w.string(c.device);
    write_opt(w, "port", c.port);
    w.key("transport");
    w.string(transport_name(c.transport));
    write_opt(w, "port_space", c.port_space);
    w.key("cm_id");
    w.number(c.cm_id);
    w.key("state");
    w.string(cm_state_name(c.state));
    if (c.internal) write_opt(w, "internal", std::optional(true));
    write_endpoint(w, "local", c.local);
    write_endpoint(w, "peer", c.peer);
    write_endpoint(w, "mapped_local", c.mapped_local);
    write_endpoint(w, "mapped_peer", c.mapped_peer);
    write_opt(w, "mapped", c.mapped);
    w.key("qp");
    if (c.qp) {
        w.begin_object();
        w.key("number");
        w.number(c.qp->number);
        write_opt(w, "type", c.qp->type);
        write_opt(w, "state", c.qp->state);
        w.end_object();
    } else {
        w.null();
    }
    if (c.qp_unjoined) {
        w.key("qp_unjoined");
        w.begin_object();
        w.key("number");
        w.number(c.qp_unjoined->number);
        w.key("reason");
        w.string(qp_unjoined_name(c.qp_unjoined->reason));
        w.end_object();
    }
    w.key("owner");
    w.begin_object();
    if (c.owner.kernel) {
        write_opt(w, "kernel", c.owner.kernel);
    } else {
        write_opt(w, "pid", c.owner.pid);
        write_opt(w, "tid", c.owner.tid);
        write_opt(w, "comm", c.owner.comm);
        write_opt(w, "uid", c.owner.uid);
        write_opt(w, "user", c.owner.user);
    }
    w.end_object();
    write_opt(w, "netns", c.netns);
    w.end_object();
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
    std::string buf;
    JsonWriter w(buf, pretty);
    w.begin_object();
    const json head = header(snap);
    for (const auto& [key, value] : head.items()) {
        w.key(key);
        w.value(value);
    }
    w.key("devices");
    w.value(devices_json(snap));
    w.key("connections");
    w.begin_array();
    for (const Connection* c : connections) {
        write_connection(w, *c);
        if (buf.size() >= 64 * 1024) {
            out << buf;
            buf.clear();
        }
    }
    w.end_array();
    json host = json::object();
    put_host_data(host, snap);
    for (const auto& [key, value] : host.items()) {
        w.key(key);
        w.value(value);
    }
    w.end_object();
    out << buf << '\n';
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
