// SPDX-License-Identifier: MIT
#pragma once

/// The snapshot schema of rdmastat(8), described once.
///
/// describe(record, v) calls v(key, member, presence) for every member of a
/// record, in the order documents hold them. The JSON writers (write() below,
/// which render/ streams and builds documents with) and the two snapshot readers
/// (collect/snapshot_file.cpp, collect/snapshot_fast.cpp) are visitors of these
/// descriptions: a new member is one line here, and a writer and a reader cannot
/// disagree on a key. record is T or const T, so one description serves both.
///
/// Scalars are written as the names.h functions name them (enums), as text
/// (IP addresses) or as JSON numbers; text_to() is the exact inverse readers use.

#include "model/model.h"
#include "model/names.h"

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace rdmastat::schema {

/// How a member appears in a document.
enum class Presence {
    required,  ///< always written; a document without it is refused
    optional,  ///< a std::optional, written when known; absent or null reads as unknown
    nullable,  ///< a std::optional, written as null when unknown
    defaulted, ///< always written; absent or null reads as the member's default
    if_true,   ///< a bool written only when true; absent or null reads as false
};

template <typename S, typename T>
concept is = std::same_as<std::remove_const_t<S>, T>;

template <typename S, typename V>
requires is<S, Endpoint>
void describe(S& e, V&& v) {
    v("address", e.address, Presence::required);
    v("port", e.port, Presence::required);
}

template <typename S, typename V>
requires is<S, QpPath>
void describe(S& p, V&& v) {
    v("port", p.port, Presence::optional);
    v("dgid", p.dgid, Presence::optional);
    v("sgid_index", p.sgid_index, Presence::optional);
    v("sgid", p.sgid, Presence::optional);
    v("flow_label", p.flow_label, Presence::optional);
    v("traffic_class", p.traffic_class, Presence::optional);
    v("hop_limit", p.hop_limit, Presence::optional);
    v("dlid", p.dlid, Presence::optional);
    v("sl", p.sl, Presence::optional);
    v("mtu", p.mtu, Presence::optional);
}

template <typename S, typename V>
requires is<S, Qp>
void describe(S& q, V&& v) {
    v("number", q.number, Presence::required);
    v("remote_number", q.remote_number, Presence::optional);
    v("type", q.type, Presence::optional);
    v("state", q.state, Presence::optional);
    v("path", q.path, Presence::optional);
}

template <typename S, typename V>
requires is<S, UnjoinedQp>
void describe(S& u, V&& v) {
    v("number", u.number, Presence::required);
    v("reason", u.reason, Presence::required);
}

template <typename S, typename V>
requires is<S, Container>
void describe(S& c, V&& v) {
    v("runtime", c.runtime, Presence::required);
    v("id", c.id, Presence::required);
}

template <typename S, typename V>
requires is<S, Pod>
void describe(S& p, V&& v) {
    v("uid", p.uid, Presence::required);
    v("qos", p.qos, Presence::required);
}

template <typename S, typename V>
requires is<S, CgroupRdmaDevice>
void describe(S& d, V&& v) {
    v("device", d.device, Presence::required);
    v("hca_handle", d.hca_handle, Presence::required);
    v("hca_object", d.hca_object, Presence::required);
    v("hca_handle_max", d.hca_handle_max, Presence::optional);
    v("hca_object_max", d.hca_object_max, Presence::optional);
}

template <typename S, typename V>
requires is<S, CgroupRdma>
void describe(S& c, V&& v) {
    v("path", c.path, Presence::required);
    v("container", c.container, Presence::optional);
    v("pod", c.pod, Presence::optional);
    v("devices", c.devices, Presence::defaulted);
}

/// A kernel owner is written as "kernel" alone, whatever else a file gave it.
template <typename S, typename V>
requires is<S, Owner>
void describe(S& o, V&& v) {
    if (!o.kernel) {
        v("pid", o.pid, Presence::optional);
        v("tid", o.tid, Presence::optional);
        v("comm", o.comm, Presence::optional);
        v("uid", o.uid, Presence::optional);
        v("user", o.user, Presence::optional);
        v("cgroup", o.cgroup, Presence::optional);
        v("container", o.container, Presence::optional);
        v("pod", o.pod, Presence::optional);
    }
    v("kernel", o.kernel, Presence::optional);
}

/// connection_json in rdmastat(8).
template <typename S, typename V>
requires is<S, Connection>
void describe(S& c, V&& v) {
    v("device", c.device, Presence::required);
    v("port", c.port, Presence::optional);
    v("transport", c.transport, Presence::required);
    v("port_space", c.port_space, Presence::optional);
    v("via", c.via, Presence::defaulted);
    v("cm_id", c.cm_id, Presence::optional);
    v("state", c.state, Presence::optional);
    v("internal", c.internal, Presence::if_true);
    v("local", c.local, Presence::optional);
    v("peer", c.peer, Presence::optional);
    v("mapped_local", c.mapped_local, Presence::optional);
    v("mapped_peer", c.mapped_peer, Presence::optional);
    v("mapped", c.mapped, Presence::optional);
    v("mapping_withheld", c.mapping_withheld, Presence::if_true);
    v("qp", c.qp, Presence::nullable);
    v("qp_unjoined", c.qp_unjoined, Presence::optional);
    v("owner", c.owner, Presence::defaulted);
    v("netns", c.netns, Presence::optional);
}

/// What a connection read from a document lacks for its kind, as (key,
/// reason): a cm id's "cm_id" or "state", a verbs connection's "qp"; nullopt
/// when it is whole. Readers refuse such a connection.
inline std::optional<std::pair<std::string_view, std::string_view>>
missing_for_kind(const Connection& c) {
    if (c.via == Via::verbs) {
        if (!c.qp) return std::pair{"qp", "a verbs connection needs its QP"};
    } else {
        if (!c.cm_id) return std::pair{"cm_id", "missing (required for \"via\": \"cm\")"};
        if (!c.state) return std::pair{"state", "missing (required for \"via\": \"cm\")"};
    }
    return std::nullopt;
}

template <typename S, typename V>
requires is<S, OpenFile>
void describe(S& f, V&& v) {
    v("fd", f.fd, Presence::required);
    v("target", f.target, Presence::required);
    v("inode", f.inode, Presence::optional);
}

template <typename S, typename V>
requires is<S, Process>
void describe(S& p, V&& v) {
    v("pid", p.pid, Presence::required);
    v("comm", p.comm, Presence::optional);
    v("uid", p.uid, Presence::optional);
    v("user", p.user, Presence::optional);
    v("inspected", p.inspected, Presence::defaulted);
    v("files", p.files, Presence::defaulted);
}

template <typename S, typename V>
requires is<S, Gid>
void describe(S& g, V&& v) {
    v("index", g.index, Presence::required);
    v("gid", g.gid, Presence::required);
    v("type", g.type, Presence::optional);
    v("netdev", g.netdev, Presence::optional);
    v("vlan", g.vlan, Presence::optional);
    v("address", g.address, Presence::optional);
}

template <typename S, typename V>
requires is<S, Port>
void describe(S& p, V&& v) {
    v("port", p.index, Presence::required);
    v("state", p.state, Presence::optional);
    v("phys_state", p.phys_state, Presence::optional);
    v("netdev", p.netdev, Presence::optional);
    v("netdev_index", p.netdev_index, Presence::optional);
    v("addresses", p.addresses, Presence::optional);
    v("gids", p.gids, Presence::optional);
}

template <typename S, typename V>
requires is<S, Device>
void describe(S& d, V&& v) {
    v("name", d.name, Presence::required);
    v("index", d.index, Presence::required);
    v("transport", d.transport, Presence::required);
    v("node_type", d.node_type, Presence::optional);
    v("protocol", d.protocol, Presence::optional);
    v("driver", d.driver, Presence::optional);
    v("firmware", d.firmware, Presence::optional);
    v("node_guid", d.node_guid, Presence::optional);
    v("ports", d.ports, Presence::defaulted);
    v("qp_states_unreported", d.qp_states_unreported, Presence::if_true);
}

template <typename S, typename V>
requires is<S, HostSocket>
void describe(S& s, V&& v) {
    v("state", s.state, Presence::required);
    v("local", s.local, Presence::required);
    v("peer", s.peer, Presence::required);
    v("inode", s.inode, Presence::required);
    v("uid", s.uid, Presence::required);
    v("pid", s.pid, Presence::optional);
    v("fd", s.fd, Presence::optional);
    v("rdma_device", s.rdma_device, Presence::optional);
    v("rdma_cm_id", s.rdma_cm_id, Presence::optional);
}

template <typename S, typename V>
requires is<S, Resource>
void describe(S& r, V&& v) {
    v("kind", r.kind, Presence::required);
    v("device", r.device, Presence::required);
    v("number", r.number, Presence::required);
    v("owner", r.owner, Presence::defaulted);
    v("details", r.details, Presence::defaulted);
}

template <typename S, typename V>
requires is<S, PortCounters>
void describe(S& p, V&& v) {
    v("device", p.device, Presence::required);
    v("port", p.port, Presence::required);
    v("source", p.source, Presence::optional);
    v("counters", p.counters, Presence::required);
}

template <typename S, typename V>
requires is<S, QpCounters>
void describe(S& q, V&& v) {
    v("device", q.device, Presence::required);
    v("port", q.port, Presence::required);
    v("counter_id", q.counter_id, Presence::required);
    v("qps", q.qps, Presence::defaulted);
    v("counters", q.counters, Presence::required);
}

/// A record described where it is written: members(f) is an object whose
/// members f(v) gives, for views that are not a struct of their own (a
/// document's top level, a nested {"ops", "bytes"}).
template <typename F> struct Members { F members; };
template <typename F> Members<F> members(F f) {
    return {std::move(f)};
}
template <typename F, typename V> void describe(const Members<F>& m, V&& v) {
    m.members(v);
}

/// Calls v for those of r's members whose keys are given, in the order given:
/// how a view shows some of a record's members among facts of its own.
template <typename R, typename V>
void pick(const R& r, std::initializer_list<std::string_view> keys, V&& v) {
    for (std::string_view key : keys)
        describe(r, [&](std::string_view k, const auto& m, Presence p) {
            if (k == key) v(k, m, p);
        });
}

/// Lists written as one JSON object of "key": value members: a resource's
/// details, and counters (which a reader sorts by name).
template <typename E> struct Entries;
template <> struct Entries<std::pair<std::string, std::string>> {
    using Value = std::string;
    static constexpr bool sorted = false;
    static const std::string& key(const std::pair<std::string, std::string>& e) { return e.first; }
    static const std::string& value(const std::pair<std::string, std::string>& e) {
        return e.second;
    }
    static std::pair<std::string, std::string> make(std::string k, std::string v) {
        return {std::move(k), std::move(v)};
    }
};
template <> struct Entries<Counter> {
    using Value = std::uint64_t;
    static constexpr bool sorted = true;
    static const std::string& key(const Counter& c) { return c.name; }
    static std::uint64_t value(const Counter& c) { return c.value; }
    static Counter make(std::string k, std::uint64_t v) { return {std::move(k), v}; }
};

/// The types that have a describe(): written as JSON objects.
template <typename T>
concept record = requires(T& t) {
    describe(t, [](auto&&...) {});
};

template <typename T> inline constexpr bool is_optional = false;
template <typename T> inline constexpr bool is_optional<std::optional<T>> = true;
template <typename T> inline constexpr bool is_vector = false;
template <typename T> inline constexpr bool is_vector<std::vector<T>> = true;
template <typename T> inline constexpr bool is_map = false;
template <typename V> inline constexpr bool is_map<std::map<std::string, V>> = true;
template <typename E>
requires requires {
    Entries<E>::sorted;
}
inline constexpr bool is_map<std::vector<E>> = true;

/// How a scalar is held in a document: text, an unsigned or signed integer, a
/// double (views only: ping's and kping's times), or a boolean.
enum class Shape { text, number, integer, real, boolean };
template <typename T>
inline constexpr Shape shape_of =
    std::is_same_v<T, bool>       ? Shape::boolean
    : std::is_unsigned_v<T>       ? Shape::number
    : std::is_integral_v<T>       ? Shape::integer
    : std::is_floating_point_v<T> ? Shape::real
    : std::is_enum_v<T> || std::is_same_v<T, IpAddress> || std::is_same_v<T, Guid> ||
            std::is_convertible_v<T, std::string_view>
        ? Shape::text
        : throw "a scalar the schema cannot hold";

/// The text a Shape::text scalar is written as.
template <typename T> std::string to_text(const T& v) {
    if constexpr (std::is_convertible_v<T, std::string_view>)
        return std::string(std::string_view(v));
    else if constexpr (std::is_same_v<T, IpAddress>)
        return v.to_string();
    else if constexpr (std::is_same_v<T, Guid>)
        return guid_text(v);
    else
        return name_of(v);
}

/// to_text(v) without building it, where v holds its text already (a string,
/// an enum's name); nullopt otherwise. write() runs for every row's members.
template <typename T> std::optional<std::string_view> held_text(const T& v) {
    if constexpr (std::is_convertible_v<T, std::string_view>) {
        return std::string_view(v);
    } else if constexpr (named_enum<T>) {
        if (const std::string_view name = names_detail::find(v); !name.empty()) return name;
    }
    return std::nullopt;
}

/// The scalar text names, exactly as to_text writes it; otherwise nullopt and
/// *why says what was wrong ("unknown CM state 'X'").
template <typename T> std::optional<T> text_to(std::string_view text, std::string* why) {
    std::optional<T> v;
    const char* noun = "";
    if constexpr (std::is_same_v<T, std::string>) {
        return std::string(text);
    } else if constexpr (std::is_same_v<T, IpAddress>) {
        if ((v = IpAddress::parse(text))) return v;
        *why = "'" + std::string(text) + "' is not an IP address";
        return v;
    } else if constexpr (std::is_same_v<T, Guid>) {
        if ((v = guid_from_text(text))) return v;
        *why = "'" + std::string(text) + "' is not a GUID";
        return v;
    } else {
        if constexpr (std::is_same_v<T, Transport>)
            v = transport_from_name(text); // "ib", "iw", any case: snapshots from people
        else
            v = enum_from_name<T>(text);
        noun = Names<T>::noun;
    }
    if (!v) *why = std::string("unknown ") + noun + " '" + std::string(text) + "'";
    return v;
}

/// The largest value a Shape::number member holds.
template <typename T> constexpr std::uint64_t max_of() {
    return std::numeric_limits<T>::max();
}

/// Writes a record (or any member) to a sink with begin_object(), end_object(),
/// begin_array(), end_array(), key(), string(), number(), integer(), real(),
/// boolean() and null(),
/// and schema_key() for the keys described here, which are plain ASCII with
/// nothing to escape (tests/unit/test_schema.cpp checks them): render's
/// JsonWriter.
template <typename T, typename Sink> void write(const T& v, Sink& out) {
    if constexpr (record<T>) {
        out.begin_object();
        describe(v, [&](std::string_view key, const auto& m, Presence p) {
            using M = std::remove_cvref_t<decltype(m)>;
            if constexpr (is_optional<M>) {
                if (!m && p != Presence::nullable) return;
                out.schema_key(key);
                if (m)
                    write(*m, out);
                else
                    out.null();
            } else {
                if constexpr (std::is_same_v<M, bool>)
                    if (p == Presence::if_true && !m) return;
                out.schema_key(key);
                write(m, out);
            }
        });
        out.end_object();
    } else if constexpr (is_map<T>) {
        out.begin_object();
        for (const auto& entry : v) {
            if constexpr (is_vector<T>) {
                using E = Entries<typename T::value_type>;
                out.key(E::key(entry));
                write(E::value(entry), out);
            } else {
                out.key(entry.first);
                write(entry.second, out);
            }
        }
        out.end_object();
    } else if constexpr (is_vector<T>) {
        out.begin_array();
        for (const auto& item : v)
            write(item, out);
        out.end_array();
    } else if constexpr (shape_of<T> == Shape::text) {
        if (const auto text = held_text(v))
            out.string(*text);
        else
            out.string(to_text(v));
    } else if constexpr (shape_of<T> == Shape::boolean) {
        out.boolean(v);
    } else if constexpr (shape_of<T> == Shape::integer) {
        out.integer(v);
    } else if constexpr (shape_of<T> == Shape::real) {
        out.real(v);
    } else {
        out.number(v);
    }
}

} // namespace rdmastat::schema
