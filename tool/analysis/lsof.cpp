// SPDX-License-Identifier: MIT
#include "analysis/lsof.h"

#include "analysis/attribution.h"
#include "analysis/ports.h"
#include "analysis/select.h"
#include "model/names.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace rdmastat {
namespace {

/// Processes first (by pid), then kernel owners (by name), then nobody.
using HolderKey = std::tuple<int, std::uint32_t, std::string>;

HolderKey key_of(std::optional<std::uint32_t> pid, const std::optional<std::string>& kernel) {
    if (pid) return {0, *pid, ""};
    if (kernel) return {1, 0, *kernel};
    return {2, 0, ""};
}

bool starts_with_any(const std::optional<std::string>& name, const std::vector<std::string>& v) {
    return name && std::any_of(v.begin(), v.end(),
                               [&](const std::string& p) { return name->starts_with(p); });
}

bool user_in(const LsofHolder& h, const std::vector<UserSpec>& users) {
    return std::any_of(users.begin(), users.end(), [&](const UserSpec& u) {
        return u.uid ? h.uid == u.uid : h.user == u.name;
    });
}

bool contains(const std::vector<std::uint32_t>& v, std::optional<std::uint32_t> x) {
    return x && std::find(v.begin(), v.end(), *x) != v.end();
}

std::optional<std::string> command_of(const LsofHolder& h) {
    return h.comm ? h.comm : h.kernel;
}

bool excluded(const LsofHolder& h, const LsofSelectors& sel) {
    return contains(sel.excluded_pids, h.pid) ||
           starts_with_any(command_of(h), sel.excluded_comms) ||
           (h.pid && user_in(h, sel.excluded_users));
}

struct Endpoints {
    int family = 0;
    std::optional<std::string> protocol; ///< "tcp" for host sockets, else the port space's name
    std::vector<std::pair<Endpoint, bool>> list; ///< endpoint, local (a wildcard covers)
};

Endpoints endpoints_of(const LsofFile& f) {
    Endpoints e;
    auto add = [&](const std::optional<Endpoint>& ep, bool local) {
        if (ep) e.list.emplace_back(*ep, local);
    };
    if (f.connection) {
        const Connection& c = *f.connection;
        e.family = c.local ? c.local->address.family : c.peer ? c.peer->address.family : 0;
        if (c.port_space) e.protocol = name_of(*c.port_space);
        add(c.local, true);
        add(c.mapped_local, true);
        // A listener's peer is the kernel's placeholder (0.0.0.0:0), not a peer.
        if (has_peer(c)) {
            add(c.peer, false);
            add(c.mapped_peer, false);
        }
    } else if (f.socket) {
        e.family = f.socket->local.address.family;
        e.protocol = "tcp";
        add(f.socket->local, true);
        if (!f.socket->peer.address.is_any() || f.socket->peer.port) add(f.socket->peer, false);
    }
    return e;
}

bool spec_matches(const InetSpec& spec, const Endpoints& e) {
    if (spec.family && *spec.family != e.family) return false;
    if (spec.protocol && spec.protocol != e.protocol) return false;
    return std::any_of(e.list.begin(), e.list.end(), [&](const auto& item) {
        const auto& ep = item.first; // not a structured binding: clang 14 cannot capture one
        const bool local = item.second;
        if (spec.address && !(local ? address_covers(ep.address, *spec.address)
                                    : unmapped(ep.address) == unmapped(*spec.address)))
            return false;
        return spec.ports.empty() ||
               std::any_of(spec.ports.begin(), spec.ports.end(), [&](const PortRange& r) {
                   return ep.port >= r.low && ep.port <= r.high;
               });
    });
}

bool inet_matches(const LsofFile& f, const LsofSelectors& sel) {
    if (f.kind != LsofKind::cm_id && f.kind != LsofKind::socket) return false;
    Endpoints e = endpoints_of(f);
    return std::any_of(sel.inets.begin(), sel.inets.end(),
                       [&](const InetSpec& s) { return spec_matches(s, e); });
}

/// Whether the holder matches the -p, -c and -u includes given (all of them with
/// all_of, else any); false when none is given.
bool process_matches(const LsofHolder& h, const LsofSelectors& sel) {
    std::vector<bool> given;
    if (!sel.pids.empty()) given.push_back(contains(sel.pids, h.pid));
    if (!sel.comms.empty()) given.push_back(starts_with_any(command_of(h), sel.comms));
    if (!sel.users.empty()) given.push_back(h.pid && user_in(h, sel.users));
    if (given.empty()) return false;
    return sel.all_of ? std::all_of(given.begin(), given.end(), [](bool b) { return b; })
                      : std::any_of(given.begin(), given.end(), [](bool b) { return b; });
}

bool selected(const LsofHolder& h, const LsofFile& f, const LsofSelectors& sel) {
    bool procs = sel.selects_processes(), inet = sel.inet();
    if (!procs && !inet) return true;
    if (!inet) return process_matches(h, sel);
    if (!procs) return inet_matches(f, sel);
    return sel.all_of ? process_matches(h, sel) && inet_matches(f, sel)
                      : process_matches(h, sel) || inet_matches(f, sel);
}

/// The one fd of p whose target satisfies pred, when there is exactly one.
template <typename P> std::optional<std::uint32_t> sole_fd(const Process* p, P pred) {
    if (!p) return std::nullopt;
    std::optional<std::uint32_t> fd;
    for (const OpenFile& f : p->files) {
        if (!pred(f.target)) continue;
        if (fd) return std::nullopt;
        fd = f.fd;
    }
    return fd;
}

class Builder {
  public:
    explicit Builder(const Snapshot& snap) {
        for (const Process& p : snap.processes)
            processes_[p.pid] = &p;
    }

    LsofHolder& holder(std::optional<std::uint32_t> pid, const Owner* owner) {
        auto [it, fresh] = holders_.try_emplace(key_of(pid, owner ? owner->kernel : std::nullopt));
        LsofHolder& h = it->second;
        if (fresh) {
            h.pid = pid;
            if (owner && !pid) h.kernel = owner->kernel;
            if (const Process* p = process(pid)) {
                h.comm = p->comm;
                h.uid = p->uid;
                h.user = p->user;
            }
        }
        if (owner && pid) { // /proc knows best; the owner fills what it lacks
            if (!h.comm) h.comm = owner->comm;
            if (!h.uid) h.uid = owner->uid;
            if (!h.user) h.user = owner->user;
            if (!h.cgroup && owner->cgroup) {
                h.cgroup = owner->cgroup;
                h.container = owner->container;
                h.pod = owner->pod;
            }
        }
        return h;
    }

    const Process* process(std::optional<std::uint32_t> pid) const {
        auto it = pid ? processes_.find(*pid) : processes_.end();
        return it == processes_.end() ? nullptr : it->second;
    }

    std::map<HolderKey, LsofHolder>& holders() { return holders_; }

  private:
    std::map<std::uint32_t, const Process*> processes_;
    std::map<HolderKey, LsofHolder> holders_;
};

void collect_files(const Snapshot& snap, bool with_sockets, Builder& b) {
    // A verbs connection is its QP, which the resources list (with its remote
    // QP number); a cm id is a file of its own beside its QP.
    std::vector<const Connection*> conns;
    for (const Connection& c : snap.connections)
        if (c.via == Via::cm) conns.push_back(&c);
    std::stable_sort(conns.begin(), conns.end(), [](const Connection* x, const Connection* y) {
        return std::tie(x->device, x->cm_id) < std::tie(y->device, y->cm_id);
    });
    for (const Connection* c : conns) {
        LsofHolder& h = b.holder(c->owner.pid, &c->owner);
        LsofFile f;
        f.kind = LsofKind::cm_id;
        f.connection = c;
        if (!c->owner.kernel)
            f.fd = sole_fd(b.process(c->owner.pid),
                           [](const std::string& t) { return t == "/dev/infiniband/rdma_cm"; });
        h.files.push_back(f);
    }
    std::vector<const Resource*> res;
    for (const Resource& r : snap.resources)
        res.push_back(&r);
    // By kind in the enum's order, then device and number.
    std::stable_sort(res.begin(), res.end(), [](const Resource* x, const Resource* y) {
        return std::tie(x->kind, x->device, x->number) < std::tie(y->kind, y->device, y->number);
    });
    for (const Resource* r : res) {
        LsofHolder& h = b.holder(r->owner.pid, &r->owner);
        LsofFile f;
        f.kind = LsofKind::resource;
        f.resource = r;
        if (!r->owner.kernel)
            f.fd = sole_fd(b.process(r->owner.pid), [](const std::string& t) {
                return t.starts_with("/dev/infiniband/uverbs");
            });
        h.files.push_back(f);
    }
    for (const Process& p : snap.processes) {
        std::vector<const OpenFile*> chardevs;
        for (const OpenFile& of : p.files)
            if (is_rdma_chardev(of.target)) chardevs.push_back(&of);
        if (chardevs.empty()) continue;
        std::stable_sort(chardevs.begin(), chardevs.end(),
                         [](const OpenFile* x, const OpenFile* y) { return x->fd < y->fd; });
        LsofHolder& h = b.holder(p.pid, nullptr);
        for (const OpenFile* of : chardevs) {
            LsofFile f;
            f.kind = LsofKind::chardev;
            f.fd = of->fd;
            f.open_file = of;
            h.files.push_back(f);
        }
    }
    if (!with_sockets) return;
    std::vector<const HostSocket*> socks;
    for (const HostSocket& s : snap.host_sockets)
        socks.push_back(&s);
    std::stable_sort(socks.begin(), socks.end(), [](const HostSocket* x, const HostSocket* y) {
        return std::tuple(x->fd.value_or(0), x->local.address, x->local.port) <
               std::tuple(y->fd.value_or(0), y->local.address, y->local.port);
    });
    const ConnectionIndex ids(snap);
    for (const HostSocket* s : socks) {
        LsofHolder& h = b.holder(s->pid, nullptr);
        LsofFile f;
        f.kind = LsofKind::socket;
        if (s->pid) f.fd = s->fd;
        f.socket = s;
        if (!s->pid) f.carries = ids.of(*s);
        h.files.push_back(f);
    }
}

} // namespace

bool is_rdma_chardev(const std::string& target) {
    return target.starts_with("/dev/infiniband/");
}

LsofResult select_lsof(const Snapshot& snap, const LsofSelectors& sel) {
    Builder b(snap);
    collect_files(snap, sel.inet(), b);
    LsofResult out;
    bool unowned_socket = false;
    for (auto& entry : b.holders()) {
        LsofHolder& h = entry.second;
        if (excluded(h, sel)) continue;
        std::erase_if(h.files, [&](const LsofFile& f) { return !selected(h, f, sel); });
        if (h.files.empty()) continue;
        for (const LsofFile& f : h.files)
            unowned_socket |= f.socket && !f.socket->pid && !f.carries;
        out.holders.push_back(std::move(h));
    }
    std::set<std::uint32_t> listed_pids;
    for (const LsofHolder& h : out.holders)
        if (h.pid) listed_pids.insert(*h.pid);
    for (const Process& p : snap.processes) {
        if (p.inspected) continue;
        LsofHolder h;
        h.pid = p.pid;
        h.comm = p.comm;
        h.uid = p.uid;
        h.user = p.user;
        bool listed = listed_pids.count(p.pid) > 0;
        if (!excluded(h, sel) && (listed || process_matches(h, sel)))
            out.uninspected.push_back(&p);
        else
            ++out.other_uninspected;
    }
    if (!unowned_socket) out.other_uninspected = 0;
    return out;
}

std::vector<CgroupRdma> holders_rdma_cgroups(const Snapshot& snap, const LsofResult& r) {
    std::vector<std::string> paths;
    for (const LsofHolder& h : r.holders)
        if (h.cgroup) paths.push_back(*h.cgroup);
    return rdma_cgroups_covering(snap.rdma_cgroups, paths);
}

} // namespace rdmastat
