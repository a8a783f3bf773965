// SPDX-License-Identifier: MIT
#include "collect/snapshot_file.h"

#include "collect/json_stream.h"
#include "collect/snapshot_fast.h"
#include "model/schema.h"

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
    /// The member k, or nullptr when it is absent or null.
    const json* find(std::string_view k) const {
        if (!j.is_object()) throw Error(path(), "expected an object");
        auto it = j.find(k);
        if (it == j.end()) return nullptr;
        const json* v = &*it;
        return v->is_null() ? nullptr : v;
    }
    bool has(std::string_view k) const { return find(k) != nullptr; }

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

    bool boolean() const {
        if (!j.is_boolean()) throw Error(path(), "expected true or false");
        return j.get<bool>();
    }
    template <typename F> void each(std::string_view k, F f) const {
        if (!has(k)) return;
        Reader list = at(k);
        if (!list.j.is_array()) throw Error(list.path(), "expected an array");
        for (std::size_t i = 0; i < list.j.size(); ++i)
            f(Reader{list.j[i], &list, {}, i});
    }
};

template <typename T> T read(const Reader& r);

// Reads the members of a record (model/schema.h) from r, an object; keys the
// schema does not know are left alone.
struct Members {
    const Reader& r;

    template <typename M> void operator()(std::string_view key, M& m, schema::Presence p) const {
        using schema::Presence;
        if constexpr (schema::is_optional<M>) {
            if (const json* v = r.find(key))
                m = read<typename M::value_type>(Reader{*v, &r, key, std::nullopt});
            else
                m.reset();
        } else if (p == Presence::required) {
            m = read<M>(r.at(key));
        } else if (const json* v = r.find(key)) {
            m = read<M>(Reader{*v, &r, key, std::nullopt});
        } else if constexpr (std::is_same_v<M, bool>) {
            if (p == Presence::if_true) m = false;
        }
    }
};

template <typename T> T read(const Reader& r) {
    if constexpr (schema::record<T>) {
        if (!r.j.is_object()) throw Error(r.path(), "expected an object");
        T t;
        schema::describe(t, Members{r});
        return t;
    } else if constexpr (schema::is_map<T>) {
        using E = schema::Entries<typename T::value_type>;
        if (!r.j.is_object()) throw Error(r.path(), "expected an object");
        T items;
        for (const auto& [key, value] : r.j.items())
            items.push_back(E::make(key, read<typename E::Value>(Reader{value, &r, key, {}})));
        // Counters are kept by name, whatever order the kernel gave them in.
        if constexpr (E::sorted)
            std::sort(items.begin(), items.end(),
                      [](const auto& x, const auto& y) { return E::key(x) < E::key(y); });
        return items;
    } else if constexpr (schema::is_vector<T>) {
        if (!r.j.is_array()) throw Error(r.path(), "expected an array");
        T items;
        for (std::size_t i = 0; i < r.j.size(); ++i)
            items.push_back(read<typename T::value_type>(Reader{r.j[i], &r, {}, i}));
        return items;
    } else if constexpr (schema::shape_of<T> == schema::Shape::text) {
        std::string why;
        auto v = schema::text_to<T>(r.str(), &why);
        if (!v) throw Error(r.path(), why);
        return *v;
    } else if constexpr (schema::shape_of<T> == schema::Shape::boolean) {
        return r.boolean();
    } else {
        return r.uint<T>(schema::max_of<T>());
    }
}

// How many connections are read before the rest is reserved for: enough to
// average their size over.
constexpr std::size_t reserve_after = 64;
// The most a guess reserves: a file's size is only a hint (a sparse file can
// claim a terabyte); past this, the vector grows by doubling.
constexpr std::size_t reserve_at_most = (std::size_t{256} << 20) / sizeof(Connection);

} // namespace

Result<Snapshot> parse_snapshot_json(std::istream& in, const std::string& name,
                                     ConnectionSink* sink, std::uint64_t size) {
    Snapshot snap;
    snap.source = SnapshotSource::file;
    std::set<std::uint32_t> pids;
    // Set when the connections stream to the sink.
    ConnectionSink* to = nullptr;
    auto list_start = [&](const std::string& key, const nlohmann::ordered_json& root) {
        if (!sink || key != "connections") return;
        if (!root.contains("version") || !root.contains("devices")) return;
        // Only a file the final checks will take: nothing is written otherwise.
        const auto& v = root.at("version");
        if (!v.is_number_unsigned() || v.get<std::uint64_t>() != Snapshot::schema_version) return;
        if (!root.at("devices").is_array()) return;
        to = sink;
        to->begin(snap);
    };
    // Where a connection read goes, by either path: the sink or the snapshot.
    auto take = [&](Connection&& c) {
        if (to)
            to->connection(c);
        else
            snap.connections.push_back(std::move(c));
    };
    Connection scratch;
    std::size_t first_offset = 0;
    auto fast = [&](const std::string& key, std::size_t index, JsonPull& pull) {
        if (key != "connections") return false;
        if (index == 0) first_offset = pull.offset();
        if (index == reserve_after && size > pull.offset() && !to) {
            // The rest of the text, at the size of the records so far; the lists
            // after the connections only make it a guess past the end.
            const std::uint64_t each = (pull.offset() - first_offset) / index;
            const std::uint64_t guess = each ? (size - pull.offset()) / each * 9 / 8 : 0;
            snap.connections.reserve(
                index + static_cast<std::size_t>(std::min<std::uint64_t>(guess, reserve_at_most)));
        }
        if (!fast_connection(pull, scratch)) return false;
        take(std::move(scratch));
        return true;
    };
    auto element = [&](const std::string& list, std::size_t index, const JsonElement& e) {
        Reader r{e.document(), nullptr, list, index};
        if (list == "devices") {
            snap.devices.push_back(read<Device>(r));
        } else if (list == "connections") {
            auto c = read<Connection>(r);
            if (auto missing = schema::missing_for_kind(c))
                throw Error(r.path() + "." + std::string(missing->first),
                            std::string(missing->second));
            take(std::move(c));
        } else if (list == "host_sockets") {
            snap.host_sockets.push_back(read<HostSocket>(r));
        } else if (list == "processes") {
            auto p = read<Process>(r);
            // lsof and check look processes up by pid: two entries would disagree.
            if (!pids.insert(p.pid).second)
                throw Error(r.path() + ".pid", "pid " + std::to_string(p.pid) + " listed twice");
            snap.processes.push_back(std::move(p));
        } else if (list == "resources") {
            snap.resources.push_back(read<Resource>(r));
        } else if (list == "port_counters") {
            snap.port_counters.push_back(read<PortCounters>(r));
        } else if (list == "qp_counters") {
            snap.qp_counters.push_back(read<QpCounters>(r));
        } else if (list == "rdma_cgroups") {
            snap.rdma_cgroups.push_back(read<CgroupRdma>(r));
        }
    };
    StreamedJson doc = parse_json_stream(in, max_snapshot_depth, max_snapshot_object_keys,
                                         JsonStreamHandlers{element, fast, list_start});
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
                                "port_counters", "qp_counters", "rdma_cgroups"})
            root.each(key, [](const Reader&) {});
        // Present only when the writer collected them (lsof, check).
        snap.host_sockets_collected = root.has("host_sockets");
        snap.processes_collected = root.has("processes");
        snap.resources_collected = root.has("resources");
        // Counters: written by the monitoring commands' snapshots (absent in older files).
        snap.counters_collected = root.has("port_counters");
        snap.rdma_cgroups_collected = root.has("rdma_cgroups");
        return snap;
    } catch (const Error& e) {
        return Failure{name + ": " + e.what()};
    }
}

Result<Snapshot> load_snapshot_file(const std::string& path, ConnectionSink* sink) {
    if (path == "-") return parse_snapshot_json(std::cin, "standard input", sink);
    // A directory opens fine and only fails to read, with a message that lacks the path.
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        return Failure{path + ": " + std::strerror(EISDIR), EISDIR};
    std::ifstream in(path);
    if (!in) return Failure{path + ": " + std::strerror(errno), errno};
    // A FIFO or a device has no size to reserve by.
    const bool regular = std::filesystem::is_regular_file(path, ec);
    const std::uintmax_t size = regular ? std::filesystem::file_size(path, ec) : 0;
    return parse_snapshot_json(in, path, sink, ec ? 0 : size);
}

} // namespace rdmastat
