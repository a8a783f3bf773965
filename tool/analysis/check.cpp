// SPDX-License-Identifier: MIT
#include "analysis/check.h"

#include "analysis/attribution.h"
#include "analysis/ports.h"
#include "model/names.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace rdmastat {
namespace {

struct Judgement {
    Judgement(Verdict v, std::string r, const HostSocket* s = nullptr,
              std::optional<Endpoint> w = std::nullopt)
        : verdict(v), reason(std::move(r)), socket(s), wire(w) {}
    Verdict verdict;
    std::string reason;
    const HostSocket* socket;
    std::optional<Endpoint> wire;
};

/// The verdicts of one snapshot's cm_ids, with its host sockets attributed and
/// indexed once.
class Judge {
  public:
    explicit Judge(const Snapshot& snap)
        : snap_(snap), sockets_(attribute_host_sockets(snap)), ids_(snap) {
        for (const Process& p : snap.processes) {
            processes_[p.pid] = &p;
            uninspected_ += !p.inspected;
        }
        for (const HostSocket& s : sockets_) {
            by_port_.emplace(s.local.port, &s);
            if (s.rdma_device && s.rdma_cm_id)
                carrying_.try_emplace({*s.rdma_device, *s.rdma_cm_id}, &s);
        }
    }

    std::size_t uninspected() const { return uninspected_; }

    std::optional<std::string> comm_of(const HostSocket& s) const {
        auto it = s.pid ? processes_.find(*s.pid) : processes_.end();
        return it == processes_.end() ? std::nullopt : it->second->comm;
    }

    /// c must have a local endpoint.
    Judgement judge(const Connection& c) const {
        const Device* d = find_device(snap_, c.device);
        Transport t = c.transport;
        if (t == Transport::unknown && d) t = d->transport;
        if (t == Transport::unknown)
            return {Verdict::unknown, "the transport of " + c.device +
                                          " is unknown: cannot tell whether it shares the "
                                          "host's TCP ports"};
        if (t != Transport::iwarp) return separate_space(c, t);
        if (!d || !d->driver)
            return {Verdict::unknown, "the driver of " + c.device +
                                          " is unknown: cannot tell soft iWARP (siw, on host "
                                          "TCP) from an iWARP RNIC (its own TCP stack)"};
        if (is_siw(*d)) return soft_iwarp(c);
        return rnic(c, *d->driver);
    }

  private:
    /// The host socket overlapping e (best first, see PortCheck) and how many others do.
    std::pair<const HostSocket*, std::size_t> overlapping(const Endpoint& e) const {
        std::vector<const HostSocket*> found;
        auto [first, last] = by_port_.equal_range(e.port);
        for (auto it = first; it != last; ++it)
            if (endpoints_overlap(it->second->local, e)) found.push_back(it->second);
        auto rank = [&](const HostSocket* s) {
            return std::tuple(unmapped(s->local.address) != unmapped(e.address),
                              s->state != "LISTEN", !s->pid);
        };
        std::stable_sort(found.begin(), found.end(),
                         [&](auto* x, auto* y) { return rank(x) < rank(y); });
        if (found.empty()) return {nullptr, 0};
        return {found.front(), found.size() - 1};
    }

    std::string holder(const HostSocket& s) const {
        if (s.pid) return "held by " + std::to_string(*s.pid) + "/" + comm_of(s).value_or("?");
        if (const Connection* c = ids_.of(s)) {
            std::string text =
                "the kernel socket of " + c->device + " cm_id " + std::to_string(c->cm_id);
            if (c->owner.pid)
                text +=
                    " (" + std::to_string(*c->owner.pid) + "/" + c->owner.comm.value_or("?") + ")";
            return text;
        }
        if (!snap_.processes_collected) return "held by a process not looked up";
        if (uninspected_) return "held by no process rdmastat could inspect";
        return "held by no process (a kernel socket)";
    }

    std::string socket_text(const HostSocket& s, std::size_t others) const {
        std::string text =
            "host TCP socket " + s.local.to_string() + " (" + s.state + ") " + holder(s);
        if (others) text += " and " + std::to_string(others) + " more";
        return text;
    }

    Judgement separate_space(const Connection& c, Transport t) const {
        std::string name = t == Transport::roce         ? "RoCE"
                           : t == Transport::infiniband ? "InfiniBand"
                                                        : "usNIC";
        std::string space = name + ": rdma_cm's " +
                            (c.port_space ? port_space_name(*c.port_space) : "?") +
                            " port space is separate from host TCP";
        if (!snap_.host_sockets_collected) return {Verdict::ok, space + " (host sockets not read)"};
        auto [s, others] = overlapping(*c.local);
        if (!s) return {Verdict::ok, space};
        return {Verdict::info, space + ": " + socket_text(*s, others) + " does not clash", s};
    }

    Judgement soft_iwarp(const Connection& c) const {
        std::string what = "soft iWARP (siw) runs on the host's TCP stack";
        if (auto it = carrying_.find({c.device, c.cm_id}); it != carrying_.end()) {
            const HostSocket& s = *it->second;
            return {Verdict::ok,
                    what + ": its kernel socket (inode " + std::to_string(s.inode) + ", " +
                        s.state + ") holds the port",
                    &s};
        }
        if (!snap_.host_sockets_collected)
            return {Verdict::ok, what + ", which reserves the port (host sockets not read)"};
        return {Verdict::ok,
                what + "; no kernel socket carries this id (state " + cm_state_name(c.state) + ")"};
    }

    Judgement rnic(const Connection& c, const std::string& driver) const {
        std::string what = "iWARP RNIC (" + driver + ") runs its own TCP stack";
        auto wire = wire_local(c);
        if (c.mapped.value_or(false) && wire && wire->port != c.local->port)
            return {Verdict::ok,
                    what + ": the iWARP port mapper put this port on the wire as " +
                        wire->to_string() + ", which it reserves in the host",
                    nullptr, wire};
        if (!c.mapped) {
            // The module sends mapping information for every id with an iWARP CM id.
            if (c.netns || c.mapped_local || c.mapped_peer ||
                snap_.source == SnapshotSource::module) {
                std::string reason = what + ": not on the wire yet (no iWARP connection manager id";
                return {Verdict::info, reason + "; state " + cm_state_name(c.state) + ")"};
            }
            std::string reason = what + ": whether the iWARP port mapper moved this port is "
                                        "known only with rdmastat.ko loaded";
            auto [s, others] = overlapping(*c.local);
            if (s) reason += "; " + socket_text(*s, others) + " is on it (CONFLICT unless mapped)";
            return {Verdict::unknown, reason, s};
        }
        what += " and no port mapper moved this port";
        if (!snap_.host_sockets_collected)
            return {Verdict::unknown,
                    what + ": host TCP sockets were not read, so a clash cannot be ruled out"};
        auto [s, others] = overlapping(*c.local);
        if (s)
            return {Verdict::conflict, what + ": " + socket_text(*s, others) + " claims it too", s};
        return {Verdict::unreserved,
                what + ": the host does not know it is taken, so a host application can bind it"};
    }

    const Snapshot& snap_;
    std::vector<HostSocket> sockets_; ///< attributed
    ConnectionIndex ids_;             ///< the cm_ids sockets are attributed to
    std::multimap<std::uint16_t, const HostSocket*> by_port_;
    std::map<std::pair<std::string, std::uint32_t>, const HostSocket*> carrying_; ///< by cm_id
    std::map<std::uint32_t, const Process*> processes_;
    std::size_t uninspected_ = 0;
};

} // namespace

std::string_view verdict_name(Verdict v) {
    switch (v) {
    case Verdict::ok:
        return "OK";
    case Verdict::info:
        return "INFO";
    case Verdict::unknown:
        return "UNKNOWN";
    case Verdict::unreserved:
        return "UNRESERVED";
    case Verdict::conflict:
        return "CONFLICT";
    }
    return "UNKNOWN";
}

std::size_t CheckReport::count(Verdict v) const {
    return std::count_if(checks.begin(), checks.end(),
                         [&](const PortCheck& c) { return c.verdict == v; });
}

bool CheckReport::found_problem() const {
    return count(Verdict::conflict) || count(Verdict::unreserved);
}

namespace {

// The report's groups, ordered as it lists them: by device, then port space by
// name, address and port.
using GroupKey = std::tuple<std::string, std::string, IpAddress, std::uint16_t>;

// Every cm_id with a bound port, judged, with its group.
template <typename F> void judge_each(const Snapshot& snap, const Judge& judge, F&& f) {
    for (const Connection& c : snap.connections) {
        if (!c.local || !c.local->port) continue;
        GroupKey key{c.device, c.port_space ? port_space_name(*c.port_space) : "",
                     unmapped(c.local->address), c.local->port};
        f(c, std::move(key), judge.judge(c));
    }
}

} // namespace

std::array<std::size_t, verdict_count> count_port_verdicts(const Snapshot& snap) {
    Judge judge(snap);
    std::map<GroupKey, Verdict> gravest;
    judge_each(snap, judge, [&](const Connection&, GroupKey key, Judgement j) {
        auto [it, fresh] = gravest.try_emplace(std::move(key), j.verdict);
        if (!fresh) it->second = std::max(it->second, j.verdict);
    });
    std::array<std::size_t, verdict_count> counts{};
    for (const auto& [key, v] : gravest)
        ++counts[static_cast<std::size_t>(v)];
    return counts;
}

CheckReport check_ports(const Snapshot& snap) {
    Judge judge(snap);
    CheckReport report;
    std::map<GroupKey, PortCheck> groups;
    judge_each(snap, judge, [&](const Connection& c, GroupKey key, Judgement j) {
        auto [it, fresh] = groups.try_emplace(std::move(key));
        PortCheck& pc = it->second;
        pc.cm_ids.push_back(c.cm_id);
        if (!fresh && j.verdict <= pc.verdict) return;
        const Device* d = find_device(snap, c.device);
        pc.verdict = j.verdict;
        pc.device = c.device;
        pc.transport = c.transport != Transport::unknown || !d ? c.transport : d->transport;
        pc.driver = d ? d->driver : std::nullopt;
        pc.port_space = c.port_space;
        pc.local = *c.local;
        pc.wire = j.wire;
        pc.owner = c.owner;
        pc.sockets_known = snap.host_sockets_collected;
        pc.host_socket = j.socket ? std::optional(*j.socket) : std::nullopt;
        pc.host_socket_comm = j.socket ? judge.comm_of(*j.socket) : std::nullopt;
        pc.reason = std::move(j.reason);
    });
    report.checks.reserve(groups.size());
    for (auto& [key, pc] : groups)
        report.checks.push_back(std::move(pc));

    if (!snap.host_sockets_collected) report.missing.push_back("host TCP sockets were not read");
    if (!snap.processes_collected)
        report.missing.push_back("processes were not looked up: host sockets show no owner");
    if (std::size_t n = judge.uninspected()) {
        std::string pids;
        std::size_t listed = 0;
        for (const Process& p : snap.processes)
            if (!p.inspected && listed++ < 10)
                pids += (pids.empty() ? "" : ",") + std::to_string(p.pid);
        if (listed > 10) pids += ",...";
        report.missing.push_back(std::to_string(n) + " process" + (n == 1 ? "" : "es") +
                                 " could not be inspected (/proc/PID/fd unreadable: " + pids +
                                 "): a host socket's owner may be unknown");
    }
    return report;
}

} // namespace rdmastat
