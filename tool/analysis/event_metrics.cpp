// SPDX-License-Identifier: MIT
#include "analysis/event_metrics.h"

#include "analysis/select.h"
#include "model/names.h"

#include <cstdio>

namespace rdmastat {
namespace {

bool is_failure(const ConnectionEvent& e) {
    if (e.kind == EventKind::connect_failed || e.kind == EventKind::no_listener) return true;
    if (e.kind != EventKind::cm_event || !e.cm_event) return false;
    switch (*e.cm_event) {
    case CmEventType::rejected:
    case CmEventType::unreachable:
    case CmEventType::addr_error:
    case CmEventType::route_error:
    case CmEventType::connect_error:
    case CmEventType::addrinfo_error:
        return true;
    default:
        return false;
    }
}

std::string le_text(double bound) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%g", bound);
    return buf;
}

template <typename Key>
MetricFamily counter(const char* name, const char* help, const std::map<Key, std::uint64_t>& counts,
                     std::vector<std::string> label_names) {
    MetricFamily f{name, help, MetricType::counter, {}};
    for (const auto& [key, n] : counts) {
        Sample s;
        if constexpr (std::is_same_v<Key, std::string>) {
            s.labels = {{label_names[0], key}};
        } else {
            s.labels = {{label_names[0], key.first}, {label_names[1], key.second}};
        }
        s.value = static_cast<double>(n);
        f.samples.push_back(std::move(s));
    }
    return f;
}

} // namespace

void EventMetrics::add(const ConnectionEvent& e) {
    const Connection& c = e.connection;
    if (e.kind == EventKind::cm_event && e.cm_event) ++cm_events_[{c.device, name_of(*e.cm_event)}];
    if (is_failure(e)) {
        std::string reason = e.reason     ? *e.reason
                             : e.cm_event ? name_of(*e.cm_event)
                                          : name_of(e.kind);
        ++failures_[{c.device, reason}];
    }
    if (e.handshake && e.kind != EventKind::closed) { // the line that completed it
        ++established_[c.device];
        Histogram& h = handshakes_[{c.device, name_of(c.transport)}];
        double seconds = std::chrono::duration<double>(*e.handshake).count();
        for (std::size_t i = 0; i < handshake_buckets.size(); ++i)
            if (seconds <= handshake_buckets[i]) ++h.buckets[i];
        ++h.count;
        h.sum += seconds;
    }
    if (e.kind == EventKind::closed && c.state != CmState::listen && has_peer(c))
        ++closed_[c.device];
    if (e.kind == EventKind::changed && c.via == Via::verbs && c.qp && c.qp->state)
        ++qp_transitions_[{c.device, name_of(*c.qp->state)}];
    if (e.kind == EventKind::qp_event && e.reason) ++qp_events_[{c.device, *e.reason}];
    if (e.device_event)
        ++device_events_[{e.device_event->device.value_or(""), name_of(e.device_event->type)}];
}

std::vector<MetricFamily> EventMetrics::families() const {
    std::vector<MetricFamily> out;
    out.push_back(counter("rdmastat_cm_events_total",
                          "rdma_cm events handed to consumers, by device and event", cm_events_,
                          {"device", "event"}));
    out.push_back(counter("rdmastat_connect_failures_total",
                          "Connects that failed, by device and reason (reject reason or errno)",
                          failures_, {"device", "reason"}));
    out.push_back(counter("rdmastat_connections_established_total",
                          "Connection ends that completed their handshake, by device", established_,
                          {"device"}));
    out.push_back(counter("rdmastat_connections_closed_total",
                          "Connection ends destroyed, by device", closed_, {"device"}));
    out.push_back(counter("rdmastat_qp_transitions_total",
                          "Verbs QPs moved to a state, by device and the state", qp_transitions_,
                          {"device", "state"}));
    out.push_back(counter("rdmastat_qp_async_events_total",
                          "Asynchronous events drivers raised on verbs QPs, by device and event",
                          qp_events_, {"device", "event"}));
    out.push_back(counter("rdmastat_device_events_total",
                          "RDMA netlink monitor events, by device and event (REGISTER, "
                          "UNREGISTER, NETDEV_ATTACH, NETDEV_DETACH, ...)",
                          device_events_, {"device", "event"}));
    MetricFamily h{"rdmastat_handshake_seconds",
                   "Handshake latency: address resolved (active) or connect request "
                   "(passive) to established",
                   MetricType::histogram,
                   {}};
    for (const auto& [key, hist] : handshakes_) {
        std::vector<std::pair<std::string, std::string>> labels = {{"device", key.first},
                                                                   {"transport", key.second}};
        for (std::size_t i = 0; i < handshake_buckets.size(); ++i) {
            Sample s{labels, static_cast<double>(hist.buckets[i]), "_bucket"};
            s.labels.emplace_back("le", le_text(handshake_buckets[i]));
            h.samples.push_back(std::move(s));
        }
        Sample inf{labels, static_cast<double>(hist.count), "_bucket"};
        inf.labels.emplace_back("le", "+Inf");
        h.samples.push_back(std::move(inf));
        h.samples.push_back(Sample{labels, hist.sum, "_sum"});
        h.samples.push_back(Sample{labels, static_cast<double>(hist.count), "_count"});
    }
    out.push_back(std::move(h));
    out.push_back(
        MetricFamily{"rdmastat_events_lost_total",
                     "Events lost, by cause: a tracepoint record found the ring buffer full "
                     "(ring_buffer_full), or the kernel skipped a program already running on the "
                     "CPU (program_busy); the kernel dropped RDMA netlink monitor messages, one "
                     "or more a time (netlink_overrun)",
                     MetricType::counter,
                     {Sample{{{"cause", "ring_buffer_full"}}, static_cast<double>(lost_.full), ""},
                      Sample{{{"cause", "program_busy"}}, static_cast<double>(lost_.busy), ""},
                      Sample{{{"cause", "netlink_overrun"}}, static_cast<double>(overruns_), ""}}});
    return out;
}

} // namespace rdmastat
