// SPDX-License-Identifier: MIT
// The /proc fd scan against the real /proc of the test process (its own socket and
// files), an unprivileged view of it (a child that drops to another uid), and a
// hand-made proc tree for what the real one cannot show on demand (targets under
// /dev/infiniband on a host without RDMA, a process gone mid-scan).
#include "collect/procfs.h"
#include "collect/sockdiag.h"

#include <arpa/inet.h>
#include "catch_compat.hpp"
#include <cerrno>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <grp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace rdmastat;
namespace fs = std::filesystem;

namespace {

const Process* find_pid(const std::vector<Process>& ps, std::uint32_t pid) {
    for (const auto& p : ps)
        if (p.pid == pid) return &p;
    return nullptr;
}

const OpenFile* find_fd(const Process& p, int fd) {
    for (const auto& f : p.files)
        if (f.fd == static_cast<std::uint32_t>(fd)) return &f;
    return nullptr;
}

std::uint64_t inode_of(int fd) {
    struct stat st {};
    REQUIRE(fstat(fd, &st) == 0);
    return st.st_ino;
}

// A listening TCP socket on 127.0.0.1 (port chosen by the kernel), closed on scope exit.
struct Listener {
    int fd = -1;
    std::uint16_t port = 0;
    Listener() {
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        REQUIRE(fd >= 0);
        sockaddr_in sin{};
        sin.sin_family = AF_INET;
        sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&sin), sizeof(sin)) == 0);
        REQUIRE(listen(fd, 1) == 0);
        socklen_t len = sizeof(sin);
        REQUIRE(getsockname(fd, reinterpret_cast<sockaddr*>(&sin), &len) == 0);
        port = ntohs(sin.sin_port);
    }
    ~Listener() { close(fd); }
};

// A temporary directory removed on scope exit.
struct TempDir {
    fs::path path;
    TempDir() {
        std::string tmpl = (fs::temp_directory_path() / "rdmastat-proc.XXXXXX").string();
        REQUIRE(mkdtemp(tmpl.data()));
        path = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

void write_file(const fs::path& p, const std::string& text) {
    std::ofstream(p) << text;
}

} // namespace

TEST_CASE("the scan finds this process's socket by fd and inode", "[procscan]") {
    Listener l;
    // A regular file is open too: only sockets and RDMA devices are reported.
    int file = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    REQUIRE(file >= 0);
    auto procs = scan_processes().take();
    close(file);

    auto self = static_cast<std::uint32_t>(getpid());
    const Process* me = find_pid(procs, self);
    REQUIRE(me);
    CHECK(me->inspected);
    CHECK(me->uid == static_cast<std::uint32_t>(getuid()));
    if (getuid() == 0) CHECK(me->user == "root");
    std::ifstream comm("/proc/self/comm");
    std::string my_comm;
    std::getline(comm, my_comm);
    CHECK(me->comm == my_comm);

    const OpenFile* sock = find_fd(*me, l.fd);
    REQUIRE(sock);
    CHECK(sock->inode == inode_of(l.fd));
    CHECK(sock->target == "socket:[" + std::to_string(inode_of(l.fd)) + "]");
    CHECK_FALSE(find_fd(*me, file));
    for (const auto& f : me->files)
        CHECK((f.target.starts_with("socket:[") || f.target.starts_with("/dev/infiniband/")));
    // Processes come in pid order, each once.
    for (std::size_t i = 1; i < procs.size(); ++i)
        CHECK(procs[i - 1].pid < procs[i].pid);
}

TEST_CASE("sock_diag and the scan together name the holder of a socket", "[procscan]") {
    Listener l;
    auto source = SockDiagSource::open();
    REQUIRE(source.ok());
    auto sockets = source.value().collect();
    if (!sockets && (sockets.error_code() == ENOENT || sockets.error_code() == EPROTONOSUPPORT)) {
        WARN("this kernel has no inet_diag for TCP: " << sockets.error());
        return;
    }
    REQUIRE(sockets.ok());
    auto procs = scan_processes().take();
    attribute_socket_holders(sockets.value(), procs);
    auto mine = std::find_if(sockets.value().begin(), sockets.value().end(),
                             [&](const HostSocket& s) { return s.inode == inode_of(l.fd); });
    REQUIRE(mine != sockets.value().end());
    CHECK(mine->state == TcpState::listen);
    CHECK(mine->local.address.to_string() == "127.0.0.1");
    CHECK(mine->local.port == l.port);
    CHECK(mine->uid == static_cast<std::uint32_t>(getuid()));
    CHECK(mine->pid == static_cast<std::uint32_t>(getpid()));
    CHECK(mine->fd == static_cast<std::uint32_t>(l.fd));
}

TEST_CASE("another user's processes are reported, not inspected", "[procscan]") {
    // As root, a child drops to uid/gid 65534 and scans: this process (root's)
    // is then another user's. As anyone else, root's init already is.
    int pipefd[2];
    REQUIRE(pipe(pipefd) == 0);
    auto parent = static_cast<std::uint32_t>(getpid());
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        close(pipefd[0]);
        if (getuid() == 0 &&
            (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0))
            _exit(3);
        auto procs = scan_processes();
        std::string report = "error";
        if (procs) {
            // Root's parent, or (not root to begin with) any other user's process.
            const Process* other = find_pid(procs.value(), parent);
            if (!other || other->uid == getuid()) {
                other = nullptr;
                for (const auto& p : procs.value())
                    if (p.uid && *p.uid != getuid() && !other) other = &p;
            }
            const Process* self = find_pid(procs.value(), static_cast<std::uint32_t>(getpid()));
            auto text = [](const Process* p) {
                if (!p) return std::string("missing;");
                return std::to_string(p->inspected) + "," + std::to_string(p->files.size()) + "," +
                       (p->comm ? "comm" : "") + ";";
            };
            report = text(other) + text(self);
        }
        (void)!::write(pipefd[1], report.data(), report.size());
        _exit(0);
    }
    close(pipefd[1]);
    char buf[256];
    ssize_t n = read(pipefd[0], buf, sizeof(buf));
    close(pipefd[0]);
    int status = 0;
    waitpid(child, &status, 0);
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    std::string report(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
    INFO("child saw: " << report);
    // The other process: kept, not inspected, no files, its uid and comm known.
    auto first = report.substr(0, report.find(';'));
    CHECK_THAT(first, Catch::StartsWith("0,0,"));
    CHECK(first != "missing");
    // The child itself: inspected.
    auto second = report.substr(report.find(';') + 1);
    CHECK_THAT(second, Catch::StartsWith("1,"));
}

TEST_CASE("a hand-made proc tree: RDMA device files, sockets, gone processes", "[procscan]") {
    // Hand-made because a host without RDMA has no /dev/infiniband to open, and a
    // process cannot be made to vanish between two reads on demand. readlink of
    // these symlinks returns their text as it does for /proc/PID/fd links.
    TempDir root;
    auto proc = [&](const std::string& pid, const std::string& comm, unsigned uid) {
        fs::create_directories(root.path / pid / "fd");
        write_file(root.path / pid / "comm", comm + "\n");
        write_file(root.path / pid / "status", "Name:\t" + comm + "\nTgid:\t" + pid + "\nUid:\t" +
                                                   std::to_string(uid) + "\t0\t0\t0\n");
    };
    proc("100", "rping", 0);
    fs::create_symlink("/dev/null", root.path / "100/fd/0");
    fs::create_symlink("socket:[4242]", root.path / "100/fd/3");
    fs::create_symlink("/dev/infiniband/rdma_cm", root.path / "100/fd/4");
    fs::create_symlink("/dev/infiniband/uverbs0", root.path / "100/fd/10");
    fs::create_symlink("anon_inode:[infinibandevent]", root.path / "100/fd/5");
    fs::create_symlink("socket:[x]", root.path / "100/fd/7");
    proc("101", "exited", 0);
    fs::remove(root.path / "101/fd");          // gone between its status and its fds
    fs::create_directories(root.path / "102"); // gone before its status was read
    proc("20", "other", 4294967294u);          // a uid without a user name
    fs::create_directories(root.path / "net");
    fs::create_directory_symlink("100", root.path / "self");

    auto procs = scan_processes(root.path.string()).take();
    REQUIRE(procs.size() == 2);
    CHECK(procs[0].pid == 20u);
    CHECK(procs[0].comm == "other");
    CHECK(procs[0].uid == 4294967294u);
    CHECK_FALSE(procs[0].user);
    CHECK(procs[0].files.empty());
    const Process& p = procs[1];
    CHECK(p.pid == 100u);
    CHECK(p.comm == "rping");
    CHECK(p.uid == 0u);
    CHECK(p.user == "root");
    CHECK(p.inspected);
    REQUIRE(p.files.size() == 4); // fd order, numerically: 3, 4, 7, 10
    CHECK(p.files[0] == OpenFile{3, "socket:[4242]", 4242});
    CHECK(p.files[1] == OpenFile{4, "/dev/infiniband/rdma_cm", std::nullopt});
    CHECK(p.files[2] == OpenFile{7, "socket:[x]", std::nullopt}); // no inode to read
    CHECK(p.files[3] == OpenFile{10, "/dev/infiniband/uverbs0", std::nullopt});
}

TEST_CASE("a proc root that cannot be listed is an error naming it", "[procscan]") {
    auto procs = scan_processes("/nonexistent/proc");
    REQUIRE_FALSE(procs.ok());
    CHECK_THAT(procs.error(), Catch::StartsWith("/nonexistent/proc: "));
    CHECK(procs.error_code() == ENOENT);
}

TEST_CASE("socket holders are matched by inode, the first holder wins", "[procscan]") {
    std::vector<Process> procs(3);
    procs[0].pid = 10;
    procs[0].files = {{5, "/dev/infiniband/rdma_cm", std::nullopt}, {6, "socket:[77]", 77}};
    procs[1].pid = 11;
    procs[1].inspected = false; // nothing known about its fds
    procs[2].pid = 12;
    procs[2].files = {{3, "socket:[77]", 77}, {4, "socket:[88]", 88}};
    std::vector<HostSocket> sockets(4);
    sockets[0].inode = 77;
    sockets[1].inode = 88;
    sockets[2].inode = 99; // a kernel socket (siw's): nobody holds it
    sockets[3].inode = 0;  // TIME-WAIT
    attribute_socket_holders(sockets, procs);
    CHECK(sockets[0].pid == 10u);
    CHECK(sockets[0].fd == 6u);
    CHECK(sockets[1].pid == 12u);
    CHECK(sockets[1].fd == 4u);
    CHECK_FALSE(sockets[2].pid);
    CHECK_FALSE(sockets[2].fd);
    CHECK_FALSE(sockets[3].pid);
}
