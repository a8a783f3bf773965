// SPDX-License-Identifier: MIT
#include "collect/procfs.h"

#include "common/numbers.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <limits.h>
#include <map>
#include <memory>
#include <optional>
#include <pwd.h>
#include <sstream>
#include <string_view>
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

// The entries of an open directory whose names are numbers, ascending.
template <typename T> std::vector<T> numbered_entries(DIR* dir) {
    std::vector<T> out;
    while (dirent* e = readdir(dir))
        if (auto n = parse_number<T>(e->d_name)) out.push_back(*n);
    std::sort(out.begin(), out.end());
    return out;
}

struct DirCloser {
    void operator()(DIR* d) const { closedir(d); }
};
using DirHandle = std::unique_ptr<DIR, DirCloser>;

// What readlink of one fd gave: a file worth reporting (a socket or an RDMA
// device), a file of no interest or closed since the directory was read (empty),
// or a refusal (EACCES, EPERM: the process may not be inspected).
struct FdLink {
    std::optional<OpenFile> file;
    bool refused = false;
};

FdLink open_file(int fd_dir, std::uint32_t fd) {
    char buf[PATH_MAX];
    ssize_t n = readlinkat(fd_dir, std::to_string(fd).c_str(), buf, sizeof(buf));
    if (n < 0) return FdLink{std::nullopt, errno == EACCES || errno == EPERM};
    std::string_view target(buf, static_cast<std::size_t>(n));
    OpenFile f;
    f.fd = fd;
    f.target = std::string(target);
    if (target.starts_with("socket:[") && target.ends_with("]")) {
        f.inode = parse_number<std::uint64_t>(target.substr(8, target.size() - 9));
        return FdLink{std::move(f)};
    }
    if (target.starts_with("/dev/infiniband/")) return FdLink{std::move(f)};
    return FdLink{};
}

// One process of the scan; nullopt when it is gone (its status unreadable).
std::optional<Process> scan_process(const std::string& dir, std::uint32_t pid) {
    ProcStatus st = read_status(dir);
    if (!st.uid) return std::nullopt;
    Process p;
    p.pid = pid;
    p.uid = st.uid;
    p.comm = read_comm(dir);
    DirHandle fds(opendir((dir + "/fd").c_str()));
    if (!fds) {
        if (errno == ENOENT || errno == ESRCH) return std::nullopt; // exited meanwhile
        // EACCES for another user's process; anything else is as unreadable.
        p.inspected = false;
        return p;
    }
    for (std::uint32_t fd : numbered_entries<std::uint32_t>(fds.get())) {
        FdLink link = open_file(dirfd(fds.get()), fd);
        // A listable directory whose links are refused (a process that became
        // non-dumpable, another pid namespace's view): what was read is kept.
        if (link.refused) p.inspected = false;
        if (link.file) p.files.push_back(std::move(*link.file));
    }
    return p;
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

std::optional<std::uint32_t> parse_netns_link(std::string_view target) {
    if (!target.starts_with("net:[") || !target.ends_with("]")) return std::nullopt;
    return parse_number<std::uint32_t>(target.substr(5, target.size() - 6));
}

NetnsMap resolve_netns(const std::set<std::uint32_t>& pids, const std::string& proc_root) {
    NetnsMap out;
    for (std::uint32_t pid : pids) {
        char buf[64];
        std::string link = proc_root + "/" + std::to_string(pid) + "/ns/net";
        // Another user's process without privilege (EACCES), or one gone: no netns.
        ssize_t n = readlink(link.c_str(), buf, sizeof(buf));
        if (n <= 0) continue;
        if (auto inode = parse_netns_link(std::string_view(buf, static_cast<std::size_t>(n))))
            out[pid] = *inode;
    }
    return out;
}

Result<std::vector<Process>> scan_processes(const std::string& proc_root) {
    DirHandle root(opendir(proc_root.c_str()));
    if (!root) return Failure{proc_root + ": " + std::strerror(errno), errno};
    std::vector<Process> out;
    UserMap users;
    for (std::uint32_t pid : numbered_entries<std::uint32_t>(root.get())) {
        auto p = scan_process(proc_root + "/" + std::to_string(pid), pid);
        if (!p) continue;
        if (p->uid) p->user = cached_user_name(users, *p->uid);
        out.push_back(std::move(*p));
    }
    return out;
}

void attribute_socket_holders(std::vector<HostSocket>& sockets,
                              const std::vector<Process>& processes) {
    std::map<std::uint64_t, std::pair<std::uint32_t, std::uint32_t>> holders; // inode → pid, fd
    for (const Process& p : processes)
        for (const OpenFile& f : p.files)
            if (f.inode) holders.emplace(*f.inode, std::pair(p.pid, f.fd));
    for (HostSocket& s : sockets) {
        if (!s.inode) continue;
        auto it = holders.find(s.inode);
        if (it == holders.end()) continue;
        s.pid = it->second.first;
        s.fd = it->second.second;
    }
}

} // namespace rdmastat
