// SPDX-License-Identifier: MIT
#include "collect/procfs.h"

#include <pwd.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

namespace rdmastat {
namespace {

std::optional<std::string> read_comm(const std::string& dir) {
    std::ifstream in(dir + "/comm");
    std::string comm;
    if (!in || !std::getline(in, comm)) return std::nullopt;
    return comm;
}

std::optional<std::uint32_t> read_uid(const std::string& dir) {
    std::ifstream in(dir + "/status");
    std::string line;
    while (in && std::getline(in, line)) {
        if (line.rfind("Uid:", 0) != 0) continue;
        std::istringstream fields(line.substr(4));
        std::uint32_t real_uid;
        if (fields >> real_uid) return real_uid;
        return std::nullopt;
    }
    return std::nullopt;
}

std::optional<std::string> user_name(std::uint32_t uid) {
    long size = sysconf(_SC_GETPW_R_SIZE_MAX);
    std::vector<char> buf(size > 0 ? static_cast<std::size_t>(size) : 16384);
    passwd pw;
    passwd* found = nullptr;
    if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) != 0 || !found) return std::nullopt;
    return std::string(found->pw_name);
}

} // namespace

OwnerMap resolve_owners(const std::set<std::uint32_t>& pids, const std::string& proc_root) {
    OwnerMap owners;
    std::map<std::uint32_t, std::optional<std::string>> users;
    for (std::uint32_t pid : pids) {
        Owner o;
        o.pid = pid;
        std::string dir = proc_root + "/" + std::to_string(pid);
        o.comm = read_comm(dir);
        o.uid = read_uid(dir);
        if (o.uid) {
            auto it = users.find(*o.uid);
            if (it == users.end()) it = users.emplace(*o.uid, user_name(*o.uid)).first;
            o.user = it->second;
        }
        owners.emplace(pid, std::move(o));
    }
    return owners;
}

} // namespace rdmastat
