// SPDX-License-Identifier: MIT
#include "collect/snapshot_file.h"

#include "collect/json_stream.h"
#include "collect/snapshot_fast.h"
#include "common/numbers.h"
#include "model/names.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <streambuf>
#include <string_view>

namespace rdmastat {
namespace {

// Ordered: a resource's details keep the order they were written in.
using json = nlohmann::ordered_json;

// Reading throws Error with the JSON path; parse_snapshot_json turns it into a
// Failure. The path is spelled out only for the message: a million connections
// must not each build a string per field.
struct Reader {
    const json& j;
    const Reader* parent = nullptr;
    std::string_view key;             ///< member name in parent (or a root list's name)
    std::optional<std::size_t> index; ///< element of parent, or of the root list key

    std::string path() const {
        std::string p = parent ? parent->path() : "";
        if (!key.empty()) p += (p.empty() ? "" : ".") + std::string(key);
        if (index) p += "[" + std::to_string(*index) + "]";
        return p;
    }
    std::string join(std::string_view k) const {
        std::string p = path();
        return p.empty() ? std::string(k) : p + "." + std::string(k);
    }

    // key must outlive the Reader: a literal, or a key of the document.
    Reader at(std::string_view k) const {
        if (!j.is_object()) throw Error(path(), "expected an object");
        auto it = j.find(k);
        if (it == j.end()) throw Error(join(k), "missing");
        return Reader{*it, this, k, std::nullopt};
    }
    bool has(std::string_view k) const {
        if (!j.is_object()) throw Error(path(), "expected an object");
        auto it = j.find(k);
        return it != j.end() && !it->is_null();
    }

    std::string str() const {
        if (!j.is_string()) throw Error(path(), "expected a string");
        return j.get<std::string>();
    }
    template <typename T> T uint(std::uint64_t max) const {
        if (!j.is_number_unsigned() || j.get<std::uint64_t>() > max)
            throw Error(path(), "expected a number from 0 to " + std::to_string(max));
        return static_cast<T>(j.get<std::uint64_t>());
    }
    std::uint32_t u32() const { return uint<std::uint32_t>(0xffffffffu); }

    std::optional<std::string> opt_str(std::string_view k) const {
        return has(k) ? std::optional(at(k).str()) : std::nullopt;
    }
    std::optional<std::uint32_t> opt_u32(std::string_view k) const {
        return has(k) ? std::optional(at(k).u32()) : std::nullopt;
    }
    bool boolean() const {
        if (!j.is_boolean()) throw Error(path(), "expected true or false");
        return j.get<bool>();
    }
    std::uint64_t u64() const { return uint<std::uint64_t>(~std::uint64_t{0}); }
    std::optional<std::uint64_t> opt_u64(std::string_view k) const {
        return has(k) ? std::optional(at(k).u64()) : std::nullopt;
    }
    std::optional<bool> opt_bool(std::string_view k) const {
        return has(k) ? std::optional(at(k).boolean()) : std::nullopt;
    }
    template <typename F> void each(std::string_view k, F f) const {
        if (!has(k)) return;
        Reader list = at(k);
        if (!list.j.is_array()) throw Error(list.path(), "expected an array");
        for (std::size_t i = 0; i < list.j.size(); ++i)
            f(Reader{list.j[i], &list, {}, i});
    }
};

Transport transport(const Reader& r) {
    std::string name = r.str();
    auto t = transport_from_name(name);
    if (!t) throw Error(r.path(), "unknown transport '" + name + "'");
    return *t;
}

// A model enum by its name (names.h): what the writer wrote for it.
template <typename E>
E named(const Reader& r, std::optional<E> (*from_name)(std::string_view), const char* what) {
    std::string name = r.str();
    auto v = from_name(name);
    if (!v) throw Error(r.path(), "unknown " + std::string(what) + " '" + name + "'");
    return *v;
}

template <typename E>
std::optional<E> opt_named(const Reader& parent, std::string_view key,
                           std::optional<E> (*from_name)(std::string_view), const char* what) {
    if (!parent.has(key)) return std::nullopt;
    return named(parent.at(key), from_name, what);
}

std::optional<Endpoint> endpoint(const Reader& parent, std::string_view key) {
    if (!parent.has(key)) return std::nullopt;
    Reader r = parent.at(key);
    Endpoint e;
    Reader addr = r.at("address");
    auto ip = IpAddress::parse(addr.str());
    if (!ip) throw Error(addr.path(), "'" + addr.str() + "' is not an IP address");
    e.address = *ip;
    e.port = r.at("port").uint<std::uint16_t>(0xffff);
    return e;
}

Owner owner(const Reader& r) {
    Owner o;
    o.pid = r.opt_u32("pid");
    o.tid = r.opt_u32("tid");
    o.comm = r.opt_str("comm");
    o.uid = r.opt_u32("uid");
    o.user = r.opt_str("user");
    o.kernel = r.opt_str("kernel");
    return o;
}

Device device(const Reader& r) {
    Device d;
    d.name = r.at("name").str();
    d.index = r.at("index").u32();
    d.transport = transport(r.at("transport"));
    d.node_type = r.opt_str("node_type");
    d.protocol = r.opt_str("protocol");
    d.driver = r.opt_str("driver");
    d.firmware = r.opt_str("firmware");
    if (r.has("node_guid")) {
        Reader g = r.at("node_guid");
        std::string text = g.str(), hex;
        for (char ch : text)
            if (ch != ':') hex += ch;
        auto v = hex.size() <= 16 ? parse_number<std::uint64_t>(hex, 16) : std::nullopt;
        if (!v) throw Error(g.path(), "'" + text + "' is not a GUID");
        d.node_guid = *v;
    }
    r.each("ports", [&](const Reader& p) {
        Port port;
        port.index = p.at("port").u32();
        port.state = p.opt_str("state");
        port.phys_state = p.opt_str("phys_state");
        port.netdev = p.opt_str("netdev");
        port.netdev_index = p.opt_u32("netdev_index");
        d.ports.push_back(std::move(port));
    });
    return d;
}

Connection connection(const Reader& r) {
    Connection c;
    c.device = r.at("device").str();
    c.port = r.opt_u32("port");
    c.transport = transport(r.at("transport"));
    c.port_space = opt_named(r, "port_space", port_space_from_name, "port space");
    c.cm_id = r.at("cm_id").u32();
    c.state = named(r.at("state"), cm_state_from_name, "CM state");
    c.local = endpoint(r, "local");
    c.peer = endpoint(r, "peer");
    c.mapped_local = endpoint(r, "mapped_local");
    c.mapped_peer = endpoint(r, "mapped_peer");
    c.mapped = r.opt_bool("mapped");
    c.internal = r.opt_bool("internal").value_or(false);
    c.netns = r.opt_u32("netns");
    if (r.has("qp")) {
        Reader q = r.at("qp");
        Qp qp;
        qp.number = q.at("number").u32();
        qp.type = opt_named(q, "type", qp_type_from_name, "QP type");
        qp.state = opt_named(q, "state", qp_state_from_name, "QP state");
        c.qp = std::move(qp);
    }
    if (r.has("qp_unjoined")) {
        Reader u = r.at("qp_unjoined");
        Reader reason = u.at("reason");
        auto why = qp_unjoined_from_name(reason.str());
        if (!why) throw Error(reason.path(), "unknown reason '" + reason.str() + "'");
        c.qp_unjoined = UnjoinedQp{u.at("number").u32(), *why};
    }
    if (r.has("owner")) c.owner = owner(r.at("owner"));
    return c;
}

Endpoint required_endpoint(const Reader& parent, std::string_view key) {
    if (!parent.has(key)) throw Error(parent.join(key), "missing");
    return *endpoint(parent, key);
}

HostSocket host_socket(const Reader& r) {
    HostSocket s;
    s.state = r.at("state").str();
    s.local = required_endpoint(r, "local");
    s.peer = required_endpoint(r, "peer");
    s.inode = r.at("inode").u64();
    s.uid = r.at("uid").u32();
    s.pid = r.opt_u32("pid");
    s.fd = r.opt_u32("fd");
    s.rdma_device = r.opt_str("rdma_device");
    s.rdma_cm_id = r.opt_u32("rdma_cm_id");
    return s;
}

Process process(const Reader& r) {
    Process p;
    p.pid = r.at("pid").u32();
    p.comm = r.opt_str("comm");
    p.uid = r.opt_u32("uid");
    p.user = r.opt_str("user");
    p.inspected = r.opt_bool("inspected").value_or(true);
    r.each("files", [&](const Reader& f) {
        OpenFile file;
        file.fd = f.at("fd").u32();
        file.target = f.at("target").str();
        file.inode = f.opt_u64("inode");
        p.files.push_back(std::move(file));
    });
    return p;
}

Resource resource(const Reader& r) {
    Resource res;
    res.kind = named(r.at("kind"), resource_kind_from_name, "resource kind");
    res.device = r.at("device").str();
    res.number = r.at("number").u32();
    if (r.has("owner")) res.owner = owner(r.at("owner"));
    if (r.has("details")) {
        Reader d = r.at("details");
        if (!d.j.is_object()) throw Error(d.path(), "expected an object");
        for (const auto& [key, value] : d.j.items())
            res.details.emplace_back(key, Reader{value, &d, key, std::nullopt}.str());
    }
    return res;
}

// A counters object: name to value, sorted by name (NLDEV's order is not kept).
std::vector<Counter> counters(const Reader& r) {
    Reader c = r.at("counters");
    if (!c.j.is_object()) throw Error(c.path(), "expected an object");
    std::vector<Counter> out;
    for (const auto& [key, value] : c.j.items())
        out.push_back(Counter{key, Reader{value, &c, key, std::nullopt}.u64()});
    std::sort(out.begin(), out.end(),
              [](const Counter& x, const Counter& y) { return x.name < y.name; });
    return out;
}

PortCounters port_counters(const Reader& r) {
    PortCounters p;
    p.device = r.at("device").str();
    p.port = r.at("port").u32();
    p.source = r.opt_str("source").value_or("");
    p.counters = counters(r);
    return p;
}

QpCounters qp_counters(const Reader& r) {
    QpCounters q;
    q.device = r.at("device").str();
    q.port = r.at("port").u32();
    q.counter_id = r.at("counter_id").u32();
    r.each("qps", [&](const Reader& n) { q.qps.push_back(n.u32()); });
    q.counters = counters(r);
    return q;
}

} // namespace

Result<Snapshot> parse_snapshot_json(std::istream& in, const std::string& name) {
    Snapshot snap;
    snap.source = SnapshotSource::file;
    std::set<std::uint32_t> pids;
    auto element = [&](const std::string& list, std::size_t index, const JsonElement& e) {
        if (list == "connections") {
            if (auto c = fast_connection(e.events())) {
                snap.connections.push_back(std::move(*c));
                return;
            }
        }
        Reader r{e.document(), nullptr, list, index};
        if (list == "devices") {
            snap.devices.push_back(device(r));
        } else if (list == "connections") {
            snap.connections.push_back(connection(r));
        } else if (list == "host_sockets") {
            snap.host_sockets.push_back(host_socket(r));
        } else if (list == "processes") {
            Process p = process(r);
            // lsof and check look processes up by pid: two entries would disagree.
            if (!pids.insert(p.pid).second)
                throw Error(r.path() + ".pid", "pid " + std::to_string(p.pid) + " listed twice");
            snap.processes.push_back(std::move(p));
        } else if (list == "resources") {
            snap.resources.push_back(resource(r));
        } else if (list == "port_counters") {
            snap.port_counters.push_back(port_counters(r));
        } else if (list == "qp_counters") {
            snap.qp_counters.push_back(qp_counters(r));
        }
    };
    StreamedJson doc = parse_json_stream(in, max_snapshot_depth, max_snapshot_object_keys, element);
    if (doc.error) return Failure{name + ": " + *doc.error};
    try {
        Reader root{doc.root, nullptr, {}, std::nullopt};
        if (!doc.root.is_object()) throw Error("top level", "expected an object");
        auto version = root.at("version").u32();
        if (version != Snapshot::schema_version)
            throw Error("version", "schema version " + std::to_string(version) +
                                       " is not supported (this rdmastat reads version " +
                                       std::to_string(Snapshot::schema_version) + ")");
        if (doc.element_error) throw Error(*doc.element_error);
        // A list given as something else than an array (null means absent).
        for (const char* key : {"devices", "connections", "host_sockets", "processes", "resources",
                                "port_counters", "qp_counters"})
            root.each(key, [](const Reader&) {});
        // Present only when the writer collected them (lsof, check).
        snap.host_sockets_collected = root.has("host_sockets");
        snap.processes_collected = root.has("processes");
        snap.resources_collected = root.has("resources");
        // Counters: written by the monitoring commands' snapshots (absent in older files).
        snap.counters_collected = root.has("port_counters");
        return snap;
    } catch (const Error& e) {
        return Failure{name + ": " + e.what()};
    }
}

Result<Snapshot> load_snapshot_file(const std::string& path) {
    if (path == "-") return parse_snapshot_json(std::cin, "standard input");
    // A directory opens fine and only fails to read, with a message that lacks the path.
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        return Failure{path + ": " + std::strerror(EISDIR), EISDIR};
    std::ifstream in(path);
    if (!in) return Failure{path + ": " + std::strerror(errno), errno};
    return parse_snapshot_json(in, path);
}

} // namespace rdmastat
