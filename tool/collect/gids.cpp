// SPDX-License-Identifier: MIT
#include "collect/gids.h"

#include "common/numbers.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <sys/socket.h>

namespace rdmastat {
namespace {

// The first line of a sysfs file; nullopt when it cannot be read (the kernel
// answers EINVAL for the attributes of an empty or typeless entry).
std::optional<std::string> first_line(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    if (!in || !std::getline(in, line)) return std::nullopt;
    return line;
}

} // namespace

Result<std::optional<Gid>> parse_gid_entry(const GidFiles& files, Transport transport) {
    auto gid = IpAddress::parse(files.gid);
    if (!gid || gid->family != AF_INET6)
        return Failure{"gids/" + std::to_string(files.index) + ": '" + files.gid +
                       "' is not a GID"};
    if (gid->is_any()) return std::optional<Gid>{};
    Gid g;
    g.index = files.index;
    g.gid = *gid;
    // iWARP has no GID types: siw's table says "IB/RoCE v1" all the same.
    if (files.type && transport != Transport::iwarp) {
        if (*files.type == "RoCE v2")
            g.type = GidType::roce_v2;
        else if (*files.type == "IB/RoCE v1")
            g.type = transport == Transport::infiniband ? GidType::ib : GidType::roce_v1;
        else
            return Failure{"gid_attrs/types/" + std::to_string(files.index) +
                           ": unknown GID type '" + *files.type + "'"};
    }
    if (files.ndev && !files.ndev->empty()) g.netdev = files.ndev;
    if (g.type == GidType::roce_v1 || g.type == GidType::roce_v2) g.address = unmapped(*gid);
    return std::optional<Gid>{g};
}

std::optional<std::uint16_t> parse_vlan_id(const std::string& text) {
    std::istringstream in(text);
    for (std::string word; in >> word;)
        if (word == "VID:" && in >> word) return parse_number<std::uint16_t>(word);
    return std::nullopt;
}

Status collect_gid_tables(std::vector<Device>& devices, const std::string& sysfs_root,
                          const std::string& vlan_root) {
    namespace fs = std::filesystem;
    std::map<std::string, std::optional<std::uint16_t>> vlans;
    // Kept aside until every port is read: a failure leaves devices untouched.
    std::vector<std::vector<Gid>> tables;
    for (const Device& d : devices)
        for (const Port& p : d.ports) {
            const std::string dir =
                sysfs_root + "/" + d.name + "/ports/" + std::to_string(p.index) + "/";
            std::vector<Gid> table;
            std::error_code ec;
            // Entries by index: the kernel's table order, whatever the directory's.
            std::vector<std::uint32_t> indexes;
            for (const auto& e : fs::directory_iterator(dir + "gids", ec))
                if (auto i = parse_number<std::uint32_t>(e.path().filename().string()))
                    indexes.push_back(*i);
            std::sort(indexes.begin(), indexes.end());
            for (std::uint32_t i : indexes) {
                const std::string n = std::to_string(i);
                GidFiles f;
                f.index = i;
                auto gid = first_line(dir + "gids/" + n);
                if (!gid) return Failure{dir + "gids/" + n + ": cannot be read"};
                f.gid = *gid;
                auto entry = parse_gid_entry(f, d.transport);
                if (!entry)
                    return Failure{d.name + " port " + std::to_string(p.index) + ": " +
                                   entry.error()};
                if (!entry.value()) continue; // an empty entry: its attributes say nothing
                f.type = first_line(dir + "gid_attrs/types/" + n);
                f.ndev = first_line(dir + "gid_attrs/ndevs/" + n);
                entry = parse_gid_entry(f, d.transport);
                if (!entry)
                    return Failure{d.name + " port " + std::to_string(p.index) + ": " +
                                   entry.error()};
                Gid g = *entry.value();
                if (g.netdev) {
                    auto [it, fresh] = vlans.try_emplace(*g.netdev);
                    if (fresh) { // not a VLAN device when the file is absent
                        std::ifstream in(vlan_root + "/" + *g.netdev);
                        std::stringstream all;
                        all << in.rdbuf();
                        it->second = parse_vlan_id(all.str());
                    }
                    g.vlan = it->second;
                }
                table.push_back(std::move(g));
            }
            tables.push_back(std::move(table));
        }
    auto table = tables.begin();
    for (Device& d : devices)
        for (Port& p : d.ports)
            p.gids = std::move(*table++);
    return Ok{};
}

} // namespace rdmastat
