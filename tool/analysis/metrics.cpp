// SPDX-License-Identifier: MIT
#include "analysis/metrics.h"

#include "analysis/check.h"
#include "analysis/select.h"
#include "common/format.h"
#include "model/names.h"
#include "model/schema_labels.h"

#include <algorithm>

namespace rdmastat {
namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

// Counts by label set, one sample each, in label order.
struct Tally {
    std::map<Labels, double> counts;
    void add(Labels labels, double n = 1) { counts[std::move(labels)] += n; }
    MetricFamily family(std::string name, std::string help,
                        MetricType type = MetricType::gauge) const {
        MetricFamily f{std::move(name), std::move(help), type, {}};
        for (const auto& [labels, n] : counts)
            f.samples.push_back(Sample{labels, n});
        return f;
    }
};

std::string text(const std::optional<std::string>& s) {
    return s.value_or("");
}
std::string number(const std::optional<std::uint32_t>& n) {
    return n ? std::to_string(*n) : "";
}

MetricFamily connections(const Snapshot& snap) {
    // Counted by value first: labels are strings, and building five of them for
    // each of ten thousand ids would cost more than reading the ids did.
    using Key = std::tuple<std::string_view, std::optional<std::uint32_t>, Transport,
                           std::optional<PortSpace>, CmState>;
    std::map<Key, double> counts;
    for (const Connection& c : snap.connections)
        if (c.via == Via::cm && c.state)
            ++counts[{c.device, c.port, c.transport, c.port_space, *c.state}];
    Tally t;
    for (const auto& [key, n] : counts) {
        const auto& [device, port, transport, port_space, state] = key;
        t.add({{"device", std::string(device)},
               {"port", number(port)},
               {"transport", name_of(transport)},
               {"port_space", port_space ? name_of(*port_space) : ""},
               {"state", name_of(state)}},
              n);
    }
    return t.family("rdmastat_connections", "rdma_cm ids (every id rdmastat -a via cm lists)");
}

MetricFamily verbs_connections(const Snapshot& snap) {
    Tally t;
    for (const Connection& c : snap.connections)
        if (c.via == Via::verbs && c.qp) {
            Labels labels = schema::label_pairs(c, {"device", "port", "transport"});
            for (auto& l : schema::label_pairs(*c.qp, {"type", "state"}))
                labels.push_back(std::move(l));
            t.add(std::move(labels));
        }
    return t.family("rdmastat_verbs_connections",
                    "QPs connected with raw verbs (no cm_id), by device, port, type and state");
}

MetricFamily qps(const Snapshot& snap) {
    Tally t;
    if (snap.resources_collected) {
        for (const Resource& r : snap.resources) {
            if (r.kind != ResourceKind::qp) continue;
            std::string type, state;
            for (const auto& [key, value] : r.details) {
                if (key == "type") type = value;
                if (key == "state") state = value;
            }
            t.add({{"device", r.device}, {"type", type}, {"state", state}});
        }
    } else {
        for (const Connection& c : snap.connections)
            if (c.qp) {
                Labels labels = schema::label_pairs(c, {"device"});
                for (auto& l : schema::label_pairs(*c.qp, {"type", "state"}))
                    labels.push_back(std::move(l));
                t.add(std::move(labels));
            }
    }
    return t.family("rdmastat_qps", "Queue pairs by device, type and state");
}

MetricFamily port_checks(const Snapshot& snap) {
    const auto counts = count_port_verdicts(snap);
    Tally t;
    for (std::size_t v = 0; v < verdict_count; ++v)
        t.add({{"verdict", name_of(static_cast<Verdict>(v))}}, static_cast<double>(counts[v]));
    return t.family("rdmastat_port_checks",
                    "Ports bound by cm_ids, by port-sharing verdict (rdmastat check)");
}

void counter_families(const Snapshot& snap, std::vector<MetricFamily>& out) {
    Tally available, port, qp;
    // Each series of a counter: its record's own labels, and the counter's name.
    auto add_counters = [](Tally& t, Labels labels, const std::vector<Counter>& counters) {
        labels.emplace_back("counter", "");
        for (const Counter& c : counters) {
            labels.back().second = c.name;
            t.add(labels, static_cast<double>(c.value));
        }
    };
    for (const PortCounters& p : snap.port_counters) {
        available.add(schema::label_pairs(p, {"device", "port", "source"}),
                      p.counters.empty() ? 0 : 1);
        add_counters(port, schema::label_pairs(p, {"device", "port"}), p.counters);
    }
    for (const QpCounters& q : snap.qp_counters)
        add_counters(qp, schema::label_pairs(q, {"device", "port", "counter_id"}), q.counters);
    out.push_back(available.family("rdmastat_port_counters_available",
                                   "1 when the port exposes hardware counters, 0 when none"));
    out.push_back(port.family("rdmastat_port_statistic_total",
                              "Port hardware counters (NLDEV statistics or sysfs hw_counters)",
                              MetricType::counter));
    out.push_back(qp.family("rdmastat_qp_statistic_total",
                            "Hardware counters of NLDEV statistics counters bound to QPs",
                            MetricType::counter));
}

MetricFamily processes(const Snapshot& snap) {
    Tally t;
    for (const Connection* c : select(snap, Selection{Scope::all, std::nullopt}, Filter()))
        t.add({{"pid", number(c->owner.pid)},
               {"comm",
                c->owner.kernel ? kernel_owner_text(*c->owner.kernel) : text(c->owner.comm)}});
    return t.family("rdmastat_process_connections",
                    "Connections (rdma_cm ids and verbs QPs) by owning process");
}

MetricFamily containers(const Snapshot& snap) {
    Tally t;
    for (const Connection* c : select(snap, Selection{Scope::all, std::nullopt}, Filter())) {
        const Owner& o = c->owner;
        if (!o.container && !o.pod) continue;
        t.add({{"runtime", o.container ? name_of(o.container->runtime) : ""},
               {"container", o.container ? o.container->id : ""},
               {"pod", o.pod ? o.pod->uid : ""},
               {"qos", o.pod ? name_of(o.pod->qos) : ""}});
    }
    return t.family("rdmastat_container_connections",
                    "Connections (rdma_cm ids and verbs QPs) by the container and Kubernetes "
                    "pod of their owner");
}

// One series per cm_id, its labels the connection's JSON members flattened
// (model/schema_labels.h): what the fabric view reads back from Prometheus.
MetricFamily connection_info(const Snapshot& snap) {
    MetricFamily f{"rdmastat_connection_info",
                   "One series per connection (rdma_cm id or verbs QP), value 1; its labels are "
                   "its JSON members (rdmastat fabric joins both ends from them)",
                   MetricType::gauge,
                   {}};
    for (const Connection* c : select(snap, Selection{Scope::all, std::nullopt}, Filter())) {
        if (c->internal) continue;
        schema::LabelMap labels = schema::to_labels(*c);
        f.samples.push_back(Sample{Labels(labels.begin(), labels.end()), 1});
    }
    std::sort(f.samples.begin(), f.samples.end(),
              [](const Sample& a, const Sample& b) { return a.labels < b.labels; });
    return f;
}

MetricFamily port_addresses(const Snapshot& snap) {
    Tally t;
    for (const Device& d : snap.devices)
        for (const Port& p : d.ports)
            if (p.addresses)
                for (const IpAddress& a : *p.addresses)
                    t.add({{"device", d.name},
                           {"port", std::to_string(p.index)},
                           {"netdev", text(p.netdev)},
                           {"address", a.to_string()}});
    return t.family("rdmastat_port_address_info",
                    "IP addresses of each RDMA port's network device, value 1");
}

// The rdma cgroup controller's use and limits: of the cgroups that set a
// limit, and with per_container of every cgroup that holds something; a
// device a cgroup neither uses nor limits has no series.
void rdma_cgroups(const Snapshot& snap, bool every, std::vector<MetricFamily>& out) {
    Tally usage, limit;
    for (const CgroupRdma& c : snap.rdma_cgroups) {
        if (!c.accounted() || (!every && !c.limited())) continue;
        for (const CgroupRdmaDevice& d : c.devices) {
            if (!d.accounted()) continue;
            for (const auto& [resource, now, max] :
                 {std::tuple{"hca_handle", d.hca_handle, d.hca_handle_max},
                  std::tuple{"hca_object", d.hca_object, d.hca_object_max}}) {
                Labels labels{{"cgroup", c.path},
                              {"runtime", c.container ? name_of(c.container->runtime) : ""},
                              {"container", c.container ? c.container->id : ""},
                              {"pod", c.pod ? c.pod->uid : ""},
                              {"device", d.device},
                              {"resource", resource}};
                usage.add(labels, static_cast<double>(now));
                if (max) limit.add(std::move(labels), static_cast<double>(*max));
            }
        }
    }
    out.push_back(usage.family("rdmastat_cgroup_rdma_usage",
                               "HCA handles and objects a cgroup and its descendants hold on a "
                               "device (rdma.current)"));
    out.push_back(limit.family("rdmastat_cgroup_rdma_limit",
                               "HCA handles and objects a cgroup may hold on a device (rdma.max; "
                               "no series when unlimited)"));
}

} // namespace

std::vector<MetricFamily> build_metrics(const Snapshot& snap, const MetricsOptions& opts) {
    std::vector<MetricFamily> out;
    out.push_back(connections(snap));
    out.push_back(verbs_connections(snap));
    out.push_back(qps(snap));
    out.push_back(port_checks(snap));
    counter_families(snap, out);
    if (opts.per_process) out.push_back(processes(snap));
    if (opts.per_container) out.push_back(containers(snap));
    if (opts.per_connection) {
        out.push_back(connection_info(snap));
        out.push_back(port_addresses(snap));
    }
    if (snap.rdma_cgroups_collected) rdma_cgroups(snap, opts.per_container, out);
    return out;
}

std::vector<MetricFamily> scrape_metrics(const ScrapeStats& stats) {
    std::vector<MetricFamily> out;
    out.push_back(MetricFamily{"rdmastat_scrape_duration_seconds",
                               "Time this scrape took to collect and analyse",
                               MetricType::gauge,
                               {Sample{{}, stats.duration_seconds}}});
    Tally errors;
    for (const char* source : scrape_sources)
        errors.add({{"source", source}}, 0);
    for (const auto& [source, n] : stats.errors)
        errors.add({{"source", source}}, static_cast<double>(n));
    out.push_back(errors.family("rdmastat_scrape_errors_total",
                                "Failed reads per source (cumulative over the life of serve)",
                                MetricType::counter));
    return out;
}

} // namespace rdmastat
