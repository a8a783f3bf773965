// SPDX-License-Identifier: MIT
#pragma once

/// The views' records, described once (ARCHITECTURE.md, "A view"): what
/// `check`, `lsof`, `fabric`, `-s`, `devices`, `-E`/`life`, `kping` and
/// `ping` write, in the form model/schema.h describes the snapshot's records.
/// Keys a view shares with the snapshot schema are taken from the schema's
/// own descriptions (schema::pick). The *_document() functions are each
/// command's whole document, for any schema::write sink: JSON's
/// (render/json_writer.h) or a new format's. Their results refer to their
/// arguments: write them before the arguments go.

#include "analysis/check.h"
#include "analysis/diff.h"
#include "analysis/fabric.h"
#include "analysis/lsof.h"
#include "analysis/summary.h"
#include "common/format.h"
#include "common/text.h"
#include "model/kping.h"
#include "model/schema.h"
#include "ping/stats.h"
#include "render/kping.h"
#include "render/lsof.h"
#include "render/monitor.h"
#include "render/ping.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdmastat {

RDMASTAT_NAMES(FabricOrigin, "fabric source", false, "prometheus", "files");

using schema::Presence;

/// {"version": 1, "source": NAME}: the members every document made from a
/// snapshot starts with.
template <typename V> void describe_header(const Snapshot& snap, V& v) {
    v("version", Snapshot::schema_version, Presence::required);
    v("source", snap.source, Presence::required);
}

/// A host socket as check and lsof show it: the snapshot's members, and after
/// "fd" the comm of the process holding it.
struct HeldSocket {
    const HostSocket& socket;
    const std::optional<std::string>& comm;
};

template <typename V> void describe(const HeldSocket& h, V&& v) {
    schema::describe(h.socket, [&](std::string_view key, const auto& m, Presence p) {
        v(key, m, p);
        if (key == "fd" && h.socket.pid) v("comm", h.comm, Presence::optional);
    });
}

template <typename V> void describe(const PortCheck& c, V&& v) {
    v("verdict", c.verdict, Presence::required);
    v("device", c.device, Presence::required);
    v("transport", c.transport, Presence::required);
    v("driver", c.driver, Presence::optional);
    v("address", c.local.address, Presence::required);
    v("port", c.local.port, Presence::required);
    v("port_space", c.port_space, Presence::optional);
    v("wire", c.wire, Presence::optional);
    v("cm_ids", c.cm_ids, Presence::required);
    v("owner", c.owner, Presence::required);
    std::optional<HeldSocket> held;
    if (c.host_socket) held.emplace(HeldSocket{*c.host_socket, c.host_socket_comm});
    if (held || c.sockets_known) v("host_socket", held, Presence::nullable);
    v("reason", c.reason, Presence::required);
}

// As an owner is written: {"pid", "comm", "uid", "user", "cgroup",
// "container", "pod"} (each when known), {"kernel": NAME}, or {} for files
// no known process holds.
inline Owner owner_of(const LsofHolder& h) {
    Owner o;
    o.pid = h.pid, o.comm = h.comm, o.uid = h.uid, o.user = h.user, o.kernel = h.kernel;
    o.cgroup = h.cgroup, o.container = h.container, o.pod = h.pod;
    return o;
}

template <typename V> void describe(const LsofFile& f, V&& v) {
    v("fd", f.fd, Presence::optional);
    v("type", lsof_type(f), Presence::required);
    if (f.connection) {
        v("device", f.connection->device, Presence::required);
        v("name", lsof_name(f), Presence::required);
        schema::pick(*f.connection,
                     {"cm_id", "transport", "port_space", "state", "internal", "local", "peer",
                      "mapped_local", "mapped_peer"},
                     v);
    } else if (f.resource) {
        v("device", f.resource->device, Presence::required);
        v("name", lsof_name(f), Presence::required);
        schema::pick(*f.resource, {"number", "details"}, v);
    } else if (f.open_file) {
        v("name", f.open_file->target, Presence::required);
    } else if (f.socket) {
        v("name", lsof_name(f), Presence::required);
        schema::pick(*f.socket,
                     {"state", "local", "peer", "inode", "uid", "rdma_device", "rdma_cm_id"}, v);
        if (f.carries) v("rdma_owner", f.carries->owner, Presence::required);
    }
}

template <typename V> void describe(const LsofHolder& h, V&& v) {
    const Owner owner = owner_of(h);
    schema::describe(owner, v);
    v("files", h.files, Presence::required);
}

template <typename V> void describe(const FabricHost& h, V&& v) {
    v("name", h.name, Presence::required);
    v("connections", h.connections.size(), Presence::required);
    v("addresses", h.addresses, Presence::required);
}

template <typename V> void describe(const FabricEnd& e, V&& v) {
    v("host", e.host->name, Presence::required);
    v("connection", *e.connection, Presence::required);
}

template <typename V> void describe(const FabricRow& r, V&& v) {
    v("status", name_of(r.status), Presence::required);
    v("ends", r.ends, Presence::required);
    if (r.peer_host) v("peer_host", r.peer_host->name, Presence::required);
    if (r.probable) v("probable", r.probable, Presence::required);
}

template <typename V> void describe(const ProcessCount& p, V&& v) {
    v("owner", p.owner, Presence::required);
    v("count", p.count, Presence::required);
}

template <typename V> void describe(const Summary& s, V&& v) {
    v("total", s.total, Presence::required);
    v("with_peer", s.with_peer, Presence::required);
    v("listening", s.listening, Presence::required);
    v("other", s.other, Presence::required);
    v("by_device", s.by_device, Presence::required);
    v("by_transport", s.by_transport, Presence::required);
    v("by_state", s.by_state, Presence::required);
    v("by_process", s.by_process, Presence::required);
}

/// A run's latency in microseconds, {"min", "mean", "max"}: JSON's latency_us
/// and the text's line (only for a run with iterations and a latency sum).
inline auto kping_latency(const KpingRun& r) {
    return schema::members([&r](auto& v) {
        v("min", kping_us(r.lat_min_ns.value_or(0)), Presence::required);
        v("mean", kping_us(*r.lat_sum_ns / r.iters), Presence::required);
        v("max", kping_us(r.lat_max_ns.value_or(0)), Presence::required);
    });
}

template <typename V> void describe(const KpingRun& r, V&& v) {
    v("id", r.id, Presence::required);
    v("role", r.server ? "server" : "client", Presence::required);
    v("mode", name_of(r.mode), Presence::required);
    v("mem", name_of(r.mem), Presence::required);
    v("state", name_of(r.state), Presence::required);
    v("address", kping_address(r), Presence::required);
    v("count", r.count, Presence::required);
    v("size", r.size, Presence::required);
    v("depth", r.depth, Presence::required);
    v("validate", r.validate, Presence::required);
    v("timeout_ms", r.timeout_ms, Presence::optional);
    v("peer", r.peer, Presence::optional);
    if (!r.device.empty()) v("device", r.device, Presence::required);
    v("iters", r.iters, Presence::required);
    for (const KpingOps& c : kping_ops(r))
        v(c.name, schema::members([&](auto& op) {
              op("ops", c.ops, Presence::required);
              op("bytes", c.bytes, Presence::required);
          }),
          Presence::required);
    v("reg_ops", r.reg_ops, Presence::required);
    v("inv_ops", r.inv_ops, Presence::required);
    v("remote_inv_ops", r.remote_inv_ops, Presence::required);
    if (r.lat_sum_ns && r.iters) v("latency_us", kping_latency(r), Presence::required);
    v("seconds", kping_seconds(r), Presence::required);
    if (r.error)
        v("error", schema::members([&](auto& err) {
              err("errno", *r.error, Presence::required);
              err("message", r.error_msg, Presence::required);
          }),
          Presence::required);
}

namespace ping {

/// JSON's latency_us and the text's line.
template <typename V> void describe(const LatencySummary& l, V&& v) {
    v("min", l.min, Presence::required);
    v("p50", l.p50, Presence::required);
    v("p99", l.p99, Presence::required);
    v("max", l.max, Presence::required);
    v("mean", l.mean, Presence::required);
}

template <typename V> void describe(const Endpoint& e, V&& v) {
    v("address", e.address, schema::Presence::required);
    v("port", e.port, schema::Presence::required);
}

template <typename V> void describe(const PingResult& r, V&& v) {
    v("version", 1, Presence::required);
    v("mode", mode_name(r.mode), Presence::required);
    v("role", r.server ? "server" : "client", Presence::required);
    if (!r.device.empty()) v("device", r.device, Presence::required);
    if (!r.local.address.empty()) v("local", r.local, Presence::required);
    if (!r.peer.address.empty()) v("peer", r.peer, Presence::required);
    v("qp", r.qp, Presence::optional);
    v("size", r.size, Presence::required);
    if (!(r.server && r.mode == Mode::bw)) {
        v("completed", r.completed, Presence::required);
        v("bytes", r.bytes, Presence::required);
    }
    v("seconds", r.seconds, Presence::required);
    if (r.depth) v("depth", r.depth, Presence::required);
    if (!r.server && r.mode != Mode::bw) v("validated", r.validate, Presence::required);
    if (r.latency) v("latency_us", *r.latency, Presence::required);
    if (r.mode == Mode::bw && !r.server) {
        const Rates b = ping_rates(r);
        v("bandwidth", schema::members([&](auto& bw) {
              bw("gbit_per_s", b.gbit_per_s, Presence::required);
              bw("mib_per_s", b.mib_per_s, Presence::required);
              bw("ops_per_s", b.ops_per_s, Presence::required);
          }),
          Presence::required);
    }
    v("interrupted", r.interrupted, Presence::required);
    v("error", r.error, Presence::optional);
}

} // namespace ping

/// What the tracepoints tell of an event beyond its connection, each member
/// optional: JSON's members and the "key=value" tail of -E's text line.
template <typename V> void describe_event_facts(const ConnectionEvent& e, V&& v) {
    v("status", e.status, Presence::optional);
    v("reason", e.reason, Presence::optional);
    auto ms = [](const std::optional<std::chrono::nanoseconds>& d) {
        return d ? std::optional(milliseconds(*d)) : std::nullopt;
    };
    v("handshake_ms", ms(e.handshake), Presence::optional);
    v("connect_ms", ms(e.connect), Presence::optional);
    v("lifetime_ms", ms(e.lifetime), Presence::optional);
    v("family", e.other_family, Presence::optional);
    v("ending", e.ending, Presence::optional);
}

/// "  KEY VALUE" for each member of r (doubles), to decimals places: a text
/// line of figures under their JSON names.
template <typename R> void write_figures(std::ostream& out, const R& r, int decimals) {
    using schema::describe; // and, by ADL, the one beside r's type
    describe(r, [&](std::string_view key, double value, Presence) {
        out << "  " << key << ' ' << fixed(value, decimals);
    });
}

/// A device event's device: its name and index as a device's, its port and
/// netdev as a port's (schema.h); each only where the kernel said it.
template <typename V> void describe(const DeviceEvent& d, V&& v) {
    v("name", d.device, Presence::optional);
    v("index", d.device_index, Presence::optional);
    v("port", d.port, Presence::optional);
    v("netdev", d.netdev, Presence::optional);
    v("netdev_index", d.netdev_index, Presence::optional);
}

/// One line of -E's JSON: the event, when, and where events come from. A
/// device event has device_event and device instead of a connection.
struct EventLine {
    const ConnectionEvent& event;
    const std::string& batch_time;
    EventSource source;
};

template <typename V> void describe(const EventLine& line, V&& v) {
    const ConnectionEvent& e = line.event;
    v("version", events_schema_version, Presence::required);
    v("source", e.device_event ? EventSource::netlink : line.source, Presence::required);
    v("time", e.time ? timestamp_text(*e.time) : line.batch_time, Presence::required);
    v("event", name_of(e.kind), Presence::required);
    if (e.device_event) {
        v("device_event", e.device_event->type, Presence::required);
        v("device", *e.device_event, Presence::required);
        return;
    }
    v("connection", e.connection, Presence::required);
    v("old_state", e.old_state, Presence::optional);
    v("old_qp_state", e.old_qp_state, Presence::optional);
    v("cm_event", e.cm_event, Presence::optional);
    describe_event_facts(e, v);
}

/// `devices`: {"version", "source", "devices"}.
inline auto devices_document(const Snapshot& snap) {
    return schema::members([&snap](auto& v) {
        describe_header(snap, v);
        v("devices", snap.devices, Presence::required);
    });
}

/// -s: {"version", "source", "summary"}, keys as in the text summary.
inline auto summary_document(const Snapshot& snap, const Summary& s) {
    return schema::members([&snap, &s](auto& v) {
        describe_header(snap, v);
        v("summary", s, Presence::required);
    });
}

/// `check`: {"version", "source", "checks", "summary": {verdict: count},
/// "missing"}. A check's host_socket is null when host sockets were read and
/// none is named, absent when they were not read.
inline auto check_document(const Snapshot& snap, const CheckReport& report) {
    return schema::members([&snap, &report](auto& v) {
        describe_header(snap, v);
        v("checks", report.checks, Presence::required);
        v("summary", schema::members([&report](auto& counts) {
              for (std::size_t i = 0; i < verdict_count; ++i) {
                  const auto verdict = static_cast<Verdict>(i);
                  counts(lower(name_of(verdict)), report.count(verdict), Presence::required);
              }
          }),
          Presence::required);
        v("missing", report.missing, Presence::required);
    });
}

/// `lsof`: {"version", "source", "processes": [owner and "files"], "uninspected": [owner]}.
inline auto lsof_document(const Snapshot& snap, const LsofResult& r) {
    return schema::members([&snap, &r](auto& v) {
        describe_header(snap, v);
        v("processes", r.holders, Presence::required);
        std::vector<Owner> uninspected;
        for (const Process* p : r.uninspected) {
            Owner& o = uninspected.emplace_back();
            o.pid = p->pid, o.comm = p->comm, o.uid = p->uid, o.user = p->user;
        }
        v("uninspected", uninspected, Presence::required);
        if (snap.rdma_cgroups_collected)
            v("rdma_cgroups", holders_rdma_cgroups(snap, r), Presence::required);
    });
}

/// `fabric`: {"version", "source", "hosts", "summary": {status: count},
/// "connections": [{"status", "ends": [{"host", "connection"}], "peer_host"}]},
/// "peer_host" only in half-open rows.
inline auto fabric_document(const FabricInput& in, const FabricView& view) {
    return schema::members([&in, &view](auto& v) {
        v("version", Snapshot::schema_version, Presence::required);
        v("source", in.origin, Presence::required);
        v("hosts", in.hosts, Presence::required);
        v("summary", schema::members([&view](auto& counts) {
              for (std::size_t s = 0; s < fabric_status_count; ++s)
                  counts(name_of(static_cast<FabricStatus>(s)), view.count[s], Presence::required);
          }),
          Presence::required);
        v("connections", view.rows, Presence::required);
    });
}

/// `kping show`: {"version": 1, "runs"}.
inline auto kping_document(const std::vector<KpingRun>& runs) {
    return schema::members([&runs](auto& v) {
        v("version", 1, Presence::required);
        v("runs", runs, Presence::required);
    });
}

} // namespace rdmastat
