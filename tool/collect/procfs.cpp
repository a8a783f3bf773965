// SPDX-License-Identifier: MIT
#include "collect/procfs.h"

#include <fstream>
#include <map>
#include <optional>
#include <pwd.h>
#include <sstream>
#include <unistd.h>
#include <vector>

namespace rdmastat {
namespace {

std::optional<std::string> read_comm(const std::string& dir) {
    std::ifstream in(dir + "/comm");
    std::string comm;
    if (!in || !std::getline(in, comm)) return std::nullopt;
    return comm;
}

struct Status {
    std::optional<std::uint32_t> tgid, uid;
};

Status read_status(const std::string& dir) {
    Status st;
    std::ifstream in(dir + "/status");
    std::string line;
    while (in && std::getline(in, line) && !(st.tgid && st.uid)) {
        std::uint32_t v;
        if (line.rfind("Tgid:", 0) == 0 && std::istringstream(line.substr(5)) >> v) st.tgid = v;
        // Uid: real effective saved fs; the real one is who started it.
        if (line.rfind("Uid:", 0) == 0 && std::istringstream(line.substr(4)) >> v) st.uid = v;
    }
    return st;
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
        Status st = read_status(proc_root + "/" + std::to_string(pid));
        if (st.tgid && *st.tgid != pid) {
            o.pid = st.tgid;
            o.tid = pid;
        }
        o.comm = read_comm(proc_root + "/" + std::to_string(*o.pid));
        o.uid = st.uid;
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
