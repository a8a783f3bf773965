// SPDX-License-Identifier: MIT
#include "collect/rdma_cgroup.h"

#include "collect/cgroup.h"
#include "common/file.h"

#include <charconv>
#include <map>

namespace rdmastat {
namespace {

struct Line {
    std::string device;
    std::optional<std::uint64_t> handle, object; // nullopt: "max"
};

// "rxe0 hca_handle=1 hca_object=max"; either key may be missing in a file
// from a kernel with other resources (none so far), which reads as max.
Result<Line> parse_line(std::string_view text) {
    Line l;
    std::size_t space = text.find(' ');
    l.device = text.substr(0, space);
    if (l.device.empty()) return Failure{"a line without a device"};
    text.remove_prefix(space == std::string_view::npos ? text.size() : space + 1);
    while (!text.empty()) {
        std::size_t end = text.find(' ');
        std::string_view word = text.substr(0, end);
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
        if (word.empty()) continue;
        std::size_t eq = word.find('=');
        if (eq == std::string_view::npos) return Failure{"'" + std::string(word) + "' has no '='"};
        std::string_view key = word.substr(0, eq), value = word.substr(eq + 1);
        std::optional<std::uint64_t> n;
        if (value != "max") {
            std::uint64_t v = 0;
            auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
            if (ec != std::errc() || p != value.data() + value.size())
                return Failure{"'" + std::string(word) + "' is not a count"};
            n = v;
        }
        if (key == "hca_handle") l.handle = n;
        else if (key == "hca_object") l.object = n;
    }
    return l;
}

Result<std::vector<Line>> parse_lines(std::string_view text, const char* file) {
    std::vector<Line> out;
    while (!text.empty()) {
        std::size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
        if (line.empty()) continue;
        auto l = parse_line(line);
        if (!l) return Failure{std::string(file) + ": " + l.error()};
        out.push_back(std::move(l.value()));
    }
    return out;
}

// "/a/b/c" → "/a/b/c", "/a/b", "/a", "/". The root has no files on the host;
// in a private cgroup namespace it is the container's own cgroup, which has
// them. A path outside rdmastat's namespace ("/../../x") names a cgroup it
// cannot see: none.
std::vector<std::string> self_and_ancestors(std::string path) {
    std::vector<std::string> out;
    if (path.empty() || path.front() != '/' || path == "/.." || path.starts_with("/../") ||
        path.find("/../") != std::string::npos || path.ends_with("/.."))
        return out;
    while (path.size() > 1) {
        out.push_back(path);
        path.resize(path.rfind('/'));
        if (path.empty()) path = "/";
    }
    out.push_back("/");
    return out;
}

} // namespace

Result<std::vector<CgroupRdmaDevice>> parse_rdma_cgroup(std::string_view current,
                                                         std::string_view max) {
    auto now = parse_lines(current, "rdma.current");
    if (!now) return now.failure();
    auto limits = parse_lines(max, "rdma.max");
    if (!limits) return limits.failure();
    std::vector<CgroupRdmaDevice> out;
    for (const Line& c : now.value()) {
        CgroupRdmaDevice d{c.device, c.handle.value_or(0), c.object.value_or(0), {}, {}};
        for (const Line& m : limits.value())
            if (m.device == c.device) {
                d.hca_handle_max = m.handle;
                d.hca_object_max = m.object;
            }
        out.push_back(std::move(d));
    }
    return out;
}

std::vector<CgroupRdma> read_rdma_cgroups(const std::set<std::string>& paths,
                                          const std::string& root) {
    std::map<std::string, CgroupRdma> found;
    std::set<std::string> seen;
    for (const std::string& own : paths)
        for (const std::string& path : self_and_ancestors(own)) {
            if (!seen.insert(path).second) continue;
            const std::string dir = path == "/" ? root : root + path;
            auto current = read_whole_file(dir + "/rdma.current");
            auto max = read_whole_file(dir + "/rdma.max");
            if (!current || !max) continue;
            auto devices = parse_rdma_cgroup(current.value(), max.value());
            if (!devices) continue; // a kernel whose format we do not know
            Workload w = workload_of(path);
            CgroupRdma c{path, w.container, w.pod, std::move(devices.value())};
            // A pod's own cgroup (its containers' parent), where pod-wide limits go.
            bool pod_cgroup = c.pod && !c.container;
            if (paths.contains(path) || c.limited() || pod_cgroup)
                found.emplace(path, std::move(c));
        }
    std::vector<CgroupRdma> out;
    for (auto& [path, c] : found)
        out.push_back(std::move(c));
    return out;
}

} // namespace rdmastat
