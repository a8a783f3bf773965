// SPDX-License-Identifier: MIT
#include "collect/cgroup.h"

#include "model/names.h"

#include <algorithm>
#include <fstream>
#include <vector>

namespace rdmastat {
namespace {

bool all_hex(std::string_view s) {
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool is_container_id(std::string_view s) {
    return s.size() == 64 && all_hex(s);
}

// A UUID (8-4-4-4-12 hex digits) or a static pod's 32 hex digits.
bool is_pod_uid(std::string_view s) {
    if (s.size() == 32) return all_hex(s);
    if (s.size() != 36) return false;
    for (std::size_t i = 0; i < s.size(); ++i)
        if ((i == 8 || i == 13 || i == 18 || i == 23) ? s[i] != '-' : !all_hex(s.substr(i, 1)))
            return false;
    return true;
}

// s without prefix and suffix, or nullopt when it lacks either.
std::optional<std::string_view> between(std::string_view s, std::string_view prefix,
                                        std::string_view suffix) {
    if (s.size() < prefix.size() + suffix.size() || !s.starts_with(prefix) || !s.ends_with(suffix))
        return std::nullopt;
    return s.substr(prefix.size(), s.size() - prefix.size() - suffix.size());
}

std::vector<std::string_view> components(std::string_view path) {
    std::vector<std::string_view> out;
    while (!path.empty()) {
        std::size_t slash = path.find('/');
        std::string_view part = path.substr(0, slash);
        if (!part.empty()) out.push_back(part);
        if (slash == std::string_view::npos) break;
        path.remove_prefix(slash + 1);
    }
    return out;
}

// The container a component names by its own spelling (parent is the
// component above it, pod whether a pod's cgroup is above it).
std::optional<Container> container_named(std::string_view part, std::string_view parent,
                                         bool in_pod) {
    struct Form {
        std::string_view prefix, suffix;
        ContainerRuntime runtime;
    };
    static constexpr Form forms[] = {
        {"docker-", ".scope", ContainerRuntime::docker},
        {"cri-containerd-", ".scope", ContainerRuntime::containerd},
        {"crio-", ".scope", ContainerRuntime::crio},
        {"crio-", "", ContainerRuntime::crio},
        {"libpod-", ".scope", ContainerRuntime::podman},
        {"libpod-", "", ContainerRuntime::podman},
    };
    for (const Form& f : forms)
        if (auto id = between(part, f.prefix, f.suffix); id && is_container_id(*id))
            return Container{f.runtime, std::string(*id)};
    if (is_container_id(part)) {
        if (parent == "docker") return Container{ContainerRuntime::docker, std::string(part)};
        if (in_pod) return Container{ContainerRuntime::containerd, std::string(part)};
    }
    return std::nullopt;
}

// The pod a component under kubepods names; qos is what the components
// between kubepods and it said.
std::optional<Pod> pod_named(std::string_view part, PodQos qos) {
    std::string uid;
    std::size_t at = part.find("kubepods-");
    if (auto rest = at == std::string_view::npos
                        ? std::nullopt
                        : between(part.substr(at), "kubepods-", ".slice")) { // systemd
        for (PodQos q : {PodQos::burstable, PodQos::besteffort}) {
            std::string level = name_of(q) + "-";
            if (rest->starts_with(level)) {
                rest->remove_prefix(level.size());
                qos = q;
            }
        }
        if (!rest->starts_with("pod")) return std::nullopt;
        uid = rest->substr(3);
        std::replace(uid.begin(), uid.end(), '_', '-'); // systemd's escaping of '-'
    } else if (auto id = between(part, "pod", "")) {    // cgroupfs
        uid = *id;
    }
    if (!is_pod_uid(uid)) return std::nullopt;
    return Pod{std::move(uid), qos};
}

} // namespace

std::optional<std::string> cgroup_v2_path(std::string_view text) {
    while (!text.empty()) {
        std::size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        if (line.starts_with("0::")) return std::string(line.substr(3));
        if (nl == std::string_view::npos) break;
        text.remove_prefix(nl + 1);
    }
    return std::nullopt;
}

Workload workload_of(std::string_view path) {
    Workload w;
    std::vector<std::string_view> parts = components(path);
    bool in_kubepods = false;
    PodQos qos = PodQos::guaranteed;
    std::string_view parent;
    for (std::string_view part : parts) {
        // A kubelet with its own --cgroup-root (kind's "/kubelet") prefixes
        // its slices: "kubelet-kubepods.slice", "kubelet-kubepods-burstable.slice".
        if (part == "kubepods" || part.ends_with("kubepods.slice")) {
            in_kubepods = true;
        } else if (in_kubepods && !w.pod) {
            if (part == "burstable" || part.ends_with("kubepods-burstable.slice"))
                qos = PodQos::burstable;
            else if (part == "besteffort" || part.ends_with("kubepods-besteffort.slice"))
                qos = PodQos::besteffort;
            else
                w.pod = pod_named(part, qos);
        }
        // The first container named is the one the host's runtime runs: a
        // container nested in it (docker in docker) and a runtime's own
        // sub-cgroups (podman's ".../libpod-ID.scope/container") stay its.
        if (auto c = container_named(part, parent, w.pod.has_value()); c && !w.container)
            w.container = std::move(c);
        parent = part;
    }
    return w;
}

CgroupMap resolve_cgroups(const std::set<std::uint32_t>& pids, const std::string& proc_root) {
    CgroupMap out;
    for (std::uint32_t pid : pids) {
        std::ifstream in(proc_root + "/" + std::to_string(pid) + "/cgroup");
        if (!in) continue; // gone
        std::string line;
        while (std::getline(in, line))
            if (auto path = cgroup_v2_path(line)) {
                out.emplace(pid, ProcessCgroup{*path, workload_of(*path)});
                break;
            }
    }
    return out;
}

void set_workload(Owner& o, const CgroupMap& cgroups) {
    if (!o.pid) return;
    auto it = cgroups.find(*o.pid);
    if (it == cgroups.end()) return;
    o.cgroup = it->second.path;
    o.container = it->second.workload.container;
    o.pod = it->second.workload.pod;
}

void CgroupCache::fill(Owner& o) {
    if (!o.pid || o.cgroup || unknown_.contains(*o.pid)) return;
    if (!known_.contains(*o.pid)) {
        CgroupMap one = resolve_cgroups({*o.pid}, proc_root_);
        if (one.empty()) {
            unknown_.insert(*o.pid);
            return;
        }
        known_.merge(one);
    }
    set_workload(o, known_);
}

void CgroupCache::forget() {
    known_.clear();
    unknown_.clear();
}

} // namespace rdmastat
