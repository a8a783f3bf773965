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

/// What the judge found about one cm_id: each finding has one verdict and one
/// reason, whose text is written only when a report needs it.
enum class Finding {
    transport_unknown,    ///< unknown
    separate,             ///< ok: a port space of its own, no host socket on the port
    separate_unread,      ///< ok: the same, host sockets not read
    separate_shared,      ///< info: a host socket on the port does not clash
    driver_unknown,       ///< unknown
    siw_socket,           ///< ok: its kernel socket holds the port
    siw_unread,           ///< ok: host sockets not read
    siw_no_socket,        ///< ok: no kernel socket carries the id
    rnic_mapped,          ///< ok: the port mapper moved the port
    rnic_not_on_wire,     ///< info: no iWARP CM id yet
    rnic_mapping_unknown, ///< unknown: NLDEV cannot tell a mapping
    rnic_unread,          ///< unknown: no mapping, host sockets not read
    rnic_conflict,        ///< conflict: a host socket claims the port too
    rnic_unreserved,      ///< unreserved: the host does not know the port is taken
};

Verdict verdict_of(Finding f) {
    switch (f) {
    case Finding::separate:
    case Finding::separate_unread:
    case Finding::siw_socket:
    case Finding::siw_unread:
    case Finding::siw_no_socket:
    case Finding::rnic_mapped:
        return Verdict::ok;
    case Finding::separate_shared:
    case Finding::rnic_not_on_wire:
        return Verdict::info;
    case Finding::transport_unknown:
    case Finding::driver_unknown:
    case Finding::rnic_mapping_unknown:
    case Finding::rnic_unread:
        return Verdict::unknown;
    case Finding::rnic_unreserved:
        return Verdict::unreserved;
    case Finding::rnic_conflict:
        return Verdict::conflict;
    }
    return Verdict::unknown;
}

struct Judgement {
    Judgement(Finding f, Transport t, const HostSocket* s = nullptr, std::size_t n = 0,
              std::optional<Endpoint> w = std::nullopt)
        : finding(f), verdict(verdict_of(f)), transport(t), socket(s), others(n), wire(w) {}
    Finding finding;
    Verdict verdict;
    Transport transport;      ///< the cm_id's, or its device's when it has none
    const HostSocket* socket; ///< the one the reason names
    std::size_t others;       ///< more host sockets on the same port
    std::optional<Endpoint> wire;
};

/// What judging needs beyond the verdicts: reasons name the holders of host
/// sockets, which takes an index of the cm_ids.
enum class Detail { verdicts, reasons };

/// The verdicts of one snapshot's cm_ids, with its host sockets attributed and
/// indexed once.
class Judge {
  public:
    Judge(const Snapshot& snap, Detail detail)
        : snap_(snap), sockets_(attribute_host_sockets(snap)) {
        if (detail == Detail::reasons) ids_.emplace(snap);
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
        if (t == Transport::unknown) return {Finding::transport_unknown, t};
        if (t != Transport::iwarp) {
            if (!snap_.host_sockets_collected) return {Finding::separate_unread, t};
            auto [s, others] = overlapping(*c.local);
            if (!s) return {Finding::separate, t};
            return {Finding::separate_shared, t, s, others};
        }
        if (!d || !d->driver) return {Finding::driver_unknown, t};
        if (is_siw(*d)) {
            if (auto it = carrying_.find({c.device, c.cm_id.value_or(0)}); it != carrying_.end())
                return {Finding::siw_socket, t, it->second};
            return {snap_.host_sockets_collected ? Finding::siw_no_socket : Finding::siw_unread, t};
        }
        auto wire = wire_local(c);
        if (c.mapped.value_or(false) && wire && wire->port != c.local->port)
            return {Finding::rnic_mapped, t, nullptr, 0, wire};
        if (!c.mapped) {
            // The module sends mapping information for every id with an iWARP CM
            // id, unless it says it withheld it.
            if (!c.mapping_withheld && (c.netns || c.mapped_local || c.mapped_peer ||
                                        snap_.source == SnapshotSource::module))
                return {Finding::rnic_not_on_wire, t};
            auto [s, others] = overlapping(*c.local);
            return {Finding::rnic_mapping_unknown, t, s, others};
        }
        if (!snap_.host_sockets_collected) return {Finding::rnic_unread, t};
        auto [s, others] = overlapping(*c.local);
        if (s) return {Finding::rnic_conflict, t, s, others};
        return {Finding::rnic_unreserved, t};
    }

    /// The sentence that explains j, a judgement of c: one the report lists.
    std::string reason(const Connection& c, const Judgement& j) const {
        const Device* d = find_device(snap_, c.device);
        const std::string siw = "soft iWARP (siw) runs on the host's TCP stack";
        const std::string rnic =
            d && d->driver ? "iWARP RNIC (" + *d->driver + ") runs its own TCP stack" : "";
        auto socket = [&] { return socket_text(*j.socket, j.others); };
        switch (j.finding) {
        case Finding::transport_unknown:
            return "the transport of " + c.device +
                   " is unknown: cannot tell whether it shares the host's TCP ports";
        case Finding::separate:
            return separate_space(c, j.transport);
        case Finding::separate_unread:
            return separate_space(c, j.transport) + " (host sockets not read)";
        case Finding::separate_shared:
            return separate_space(c, j.transport) + ": " + socket() + " does not clash";
        case Finding::driver_unknown:
            return "the driver of " + c.device +
                   " is unknown: cannot tell soft iWARP (siw, on host TCP) from an iWARP RNIC "
                   "(its own TCP stack)";
        case Finding::siw_socket:
            return siw + ": its kernel socket (inode " + std::to_string(j.socket->inode) + ", " +
                   name_of(j.socket->state) + ") holds the port";
        case Finding::siw_unread:
            return siw + ", which reserves the port (host sockets not read)";
        case Finding::siw_no_socket:
            return siw + "; no kernel socket carries this id (state " + state_name(c) + ")";
        case Finding::rnic_mapped:
            return rnic + ": the iWARP port mapper put this port on the wire as " +
                   j.wire->to_string() + ", which it reserves in the host";
        case Finding::rnic_not_on_wire:
            return rnic + ": not on the wire yet (no iWARP connection manager id; state " +
                   state_name(c) + ")";
        case Finding::rnic_mapping_unknown: {
            std::string text = rnic + ": whether the iWARP port mapper moved this port is " +
                               (c.mapping_withheld ? "unknown: rdmastat.ko cannot read a " +
                                                         state_name(c) + " id's mapping safely"
                                                   : "known only with rdmastat.ko loaded");
            if (j.socket) text += "; " + socket() + " is on it (CONFLICT unless mapped)";
            return text;
        }
        case Finding::rnic_unread:
            return rnic + " and no port mapper moved this port: host TCP sockets were not "
                          "read, so a clash cannot be ruled out";
        case Finding::rnic_conflict:
            return rnic + " and no port mapper moved this port: " + socket() + " claims it too";
        case Finding::rnic_unreserved:
            return rnic + " and no port mapper moved this port: the host does not know it is "
                          "taken, so a host application can bind it";
        }
        return {};
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
                              s->state != TcpState::listen, !s->pid);
        };
        std::stable_sort(found.begin(), found.end(),
                         [&](auto* x, auto* y) { return rank(x) < rank(y); });
        if (found.empty()) return {nullptr, 0};
        return {found.front(), found.size() - 1};
    }

    std::string holder(const HostSocket& s) const {
        if (s.pid) return "held by " + std::to_string(*s.pid) + "/" + comm_of(s).value_or("?");
        if (const Connection* c = ids_ ? ids_->of(s) : nullptr) {
            std::string text = "the kernel socket of " + c->device + " cm_id " +
                               std::to_string(c->cm_id.value_or(0));
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
            "host TCP socket " + s.local.to_string() + " (" + name_of(s.state) + ") " + holder(s);
        if (others) text += " and " + std::to_string(others) + " more";
        return text;
    }

    static std::string separate_space(const Connection& c, Transport t) {
        std::string name = t == Transport::roce         ? "RoCE"
                           : t == Transport::infiniband ? "InfiniBand"
                                                        : "usNIC";
        return name + ": rdma_cm's " + (c.port_space ? name_of(*c.port_space) : "?") +
               " port space is separate from host TCP";
    }

    const Snapshot& snap_;
    std::vector<HostSocket> sockets_;    ///< attributed
    std::optional<ConnectionIndex> ids_; ///< the cm_ids sockets are attributed to, for reasons
    std::multimap<std::uint16_t, const HostSocket*> by_port_;
    std::map<std::pair<std::string, std::uint32_t>, const HostSocket*> carrying_; ///< by cm_id
    std::map<std::uint32_t, const Process*> processes_;
    std::size_t uninspected_ = 0;
};

} // namespace

std::size_t CheckReport::count(Verdict v) const {
    return std::count_if(checks.begin(), checks.end(),
                         [&](const PortCheck& c) { return c.verdict == v; });
}

bool CheckReport::found_problem() const {
    return count(Verdict::conflict) || count(Verdict::unreserved);
}

namespace {

// Every cm_id with a bound port, judged.
template <typename F> void judge_each(const Snapshot& snap, const Judge& judge, F&& f) {
    for (const Connection& c : snap.connections)
        if (c.via == Via::cm && c.local && c.local->port) f(c, judge.judge(c));
}

} // namespace

std::array<std::size_t, verdict_count> count_port_verdicts(const Snapshot& snap) {
    Judge judge(snap, Detail::verdicts);
    // check_ports' groups in another order, the port first: it tells most of
    // them apart. A port space's value stands for its name.
    using Group = std::tuple<std::uint16_t, std::string_view, std::optional<PortSpace>, IpAddress>;
    std::map<Group, Verdict> gravest;
    judge_each(snap, judge, [&](const Connection& c, const Judgement& j) {
        Group key{c.local->port, c.device, c.port_space, unmapped(c.local->address)};
        auto [it, fresh] = gravest.try_emplace(key, j.verdict);
        if (!fresh) it->second = std::max(it->second, j.verdict);
    });
    std::array<std::size_t, verdict_count> counts{};
    for (const auto& [key, v] : gravest)
        ++counts[static_cast<std::size_t>(v)];
    return counts;
}

CheckReport check_ports(const Snapshot& snap) {
    Judge judge(snap, Detail::reasons);
    CheckReport report;
    // Ordered as the report lists them: by device, then port space by name,
    // address and port.
    using Group = std::tuple<std::string, std::string, IpAddress, std::uint16_t>;
    std::map<Group, PortCheck> groups;
    judge_each(snap, judge, [&](const Connection& c, const Judgement& j) {
        Group key{c.device, c.port_space ? name_of(*c.port_space) : "", unmapped(c.local->address),
                  c.local->port};
        auto [it, fresh] = groups.try_emplace(std::move(key));
        PortCheck& pc = it->second;
        if (c.cm_id) pc.cm_ids.push_back(*c.cm_id);
        if (!fresh && j.verdict <= pc.verdict) return;
        const Device* d = find_device(snap, c.device);
        pc.verdict = j.verdict;
        pc.device = c.device;
        pc.transport = j.transport;
        pc.driver = d ? d->driver : std::nullopt;
        pc.port_space = c.port_space;
        pc.local = *c.local;
        pc.wire = j.wire;
        pc.owner = c.owner;
        pc.sockets_known = snap.host_sockets_collected;
        pc.host_socket = j.socket ? std::optional(*j.socket) : std::nullopt;
        pc.host_socket_comm = j.socket ? judge.comm_of(*j.socket) : std::nullopt;
        pc.reason = judge.reason(c, j);
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
