// SPDX-License-Identifier: MIT
#include "collect/procfs.h"

#include <fstream>
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

struct ProcStatus {
    std::optional<std::uint32_t> tgid, uid;
};

ProcStatus read_status(const std::string& dir) {
    ProcStatus st;
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

const std::optional<std::string>& cached_user_name(UserMap& users, std::uint32_t uid) {
    auto it = users.find(uid);
    if (it == users.end()) it = users.emplace(uid, user_name(uid)).first;
    return it->second;
}

} // namespace

UserMap resolve_users(const std::set<std::uint32_t>& uids) {
    UserMap users;
    for (std::uint32_t uid : uids)
        cached_user_name(users, uid);
    return users;
}

OwnerMap resolve_owners(const std::set<std::uint32_t>& pids, const std::string& proc_root) {
    OwnerMap owners;
    UserMap users;
    for (std::uint32_t pid : pids) {
        Owner o;
        o.pid = pid;
        ProcStatus st = read_status(proc_root + "/" + std::to_string(pid));
        if (st.tgid && *st.tgid != pid) {
            o.pid = st.tgid;
            o.tid = pid;
        }
        o.comm = read_comm(proc_root + "/" + std::to_string(*o.pid));
        o.uid = st.uid;
        if (o.uid) o.user = cached_user_name(users, *o.uid);
        owners.emplace(pid, std::move(o));
    }
    return owners;
}

} // namespace rdmastat
