// SPDX-License-Identifier: MIT
// Owners from the real /proc of the test process: itself, one of its threads, a gone pid.
#include "collect/procfs.h"

#include <atomic>
#include "catch_compat.hpp"
#include <filesystem>
#include <fstream>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace rdmastat;

namespace {
std::string my_comm() {
    std::ifstream in("/proc/self/comm");
    std::string c;
    std::getline(in, c);
    return c;
}
} // namespace

TEST_CASE("a live process resolves to its comm, uid and user", "[procfs]") {
    auto self = static_cast<std::uint32_t>(getpid());
    OwnerMap owners = resolve_owners({self});
    REQUIRE(owners.count(self));
    const Owner& o = owners.at(self);
    CHECK(o.pid == self);
    CHECK_FALSE(o.tid);
    CHECK(o.comm == my_comm());
    CHECK(o.uid == static_cast<std::uint32_t>(getuid()));
    if (getuid() == 0) CHECK(o.user == "root");
}

TEST_CASE("a thread id resolves to its process", "[procfs]") {
    std::atomic<long> tid{0};
    std::atomic<bool> done{false};
    std::thread t([&] {
        tid = syscall(SYS_gettid);
        // A thread renamed like rping's cm thread is not how the process is named.
        std::ofstream("/proc/thread-self/comm") << "cm-thread";
        while (!done)
            std::this_thread::yield();
    });
    while (!tid)
        std::this_thread::yield();
    auto t_id = static_cast<std::uint32_t>(tid.load());
    OwnerMap owners = resolve_owners({t_id});
    done = true;
    t.join();
    const Owner& o = owners.at(t_id);
    CHECK(o.pid == static_cast<std::uint32_t>(getpid()));
    CHECK(o.tid == t_id);
    CHECK(o.comm == my_comm());
}

TEST_CASE("a process that is gone keeps only its pid", "[procfs]") {
    pid_t child = fork();
    if (child == 0) _exit(0);
    REQUIRE(child > 0);
    int status;
    waitpid(child, &status, 0);
    auto pid = static_cast<std::uint32_t>(child);
    OwnerMap owners = resolve_owners({pid});
    const Owner& o = owners.at(pid);
    CHECK(o.pid == pid);
    CHECK_FALSE(o.comm);
    CHECK_FALSE(o.uid);
    CHECK_FALSE(o.user);
}

TEST_CASE("user names come from the user database, once per uid", "[procfs]") {
    // 4294967294 is (uid_t)-2, which no user database names.
    UserMap users = resolve_users({0, 4294967294u});
    REQUIRE(users.size() == 2);
    CHECK(users.at(0) == "root");
    CHECK_FALSE(users.at(4294967294u));
}

TEST_CASE("network namespaces come from /proc/PID/ns/net links", "[procfs]") {
    CHECK(parse_netns_link("net:[4026531840]") == std::optional<std::uint32_t>(4026531840u));
    CHECK_FALSE(parse_netns_link("net:[]"));
    CHECK_FALSE(parse_netns_link("mnt:[4026531840]"));
    CHECK_FALSE(parse_netns_link("net:[99999999999]")); // not an inode number
    namespace fs = std::filesystem;
    fs::path root = fs::temp_directory_path() / ("rdmastat-netns-" + std::to_string(getpid()));
    fs::remove_all(root);
    fs::create_directories(root / "7" / "ns");
    fs::create_symlink("net:[4026532140]", root / "7" / "ns" / "net");
    fs::create_directories(root / "8" / "ns"); // a process whose link is unreadable
    NetnsMap m = resolve_netns({7, 8, 9}, root.string());
    fs::remove_all(root);
    CHECK(m == NetnsMap{{7u, 4026532140u}});
    // This process's own namespace, as the kernel shows it.
    NetnsMap self = resolve_netns({static_cast<std::uint32_t>(getpid())});
    REQUIRE(self.size() == 1);
    auto own = parse_netns_link(fs::read_symlink("/proc/self/ns/net").string());
    REQUIRE(own);
    CHECK(self.begin()->second == *own);
}
