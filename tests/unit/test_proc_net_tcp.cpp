// SPDX-License-Identifier: MIT
// The sock_diag fallback: /proc/net/tcp and tcp6 as the lab kernel printed them
// (tests/lab/scenarios/capture.sh), judged against the sock_diag dumps taken at
// the same moment, and against a socket this test opens itself.
#include "catch_compat.hpp"
#include "collect/proc_net_tcp.h"
#include "collect/sockdiag_parse.h"
#include "model/names.h"
#include "support.h"

#include <algorithm>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace rdmastat;
using namespace rdmastat::test;

namespace {

// What both sources report, in a comparable order.
std::vector<std::string> facts(const std::vector<HostSocket>& sockets) {
    std::vector<std::string> out;
    for (const auto& s : sockets)
        out.push_back(name_of(s.state) + " " + s.local.to_string() + " " + s.peer.to_string() +
                      " uid " + std::to_string(s.uid) + " inode " + std::to_string(s.inode));
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

TEST_CASE("/proc/net/tcp and tcp6 list what sock_diag dumped at the same moment", "[procnet]") {
    FOR_EACH_FIXTURE_KERNEL();
    for (int family : {AF_INET, AF_INET6}) {
        const bool v4 = family == AF_INET;
        INFO((v4 ? "IPv4" : "IPv6"));
        auto proc =
            parse_proc_net_tcp(fixture_text(v4 ? "proc-net-tcp.txt" : "proc-net-tcp6.txt"), family)
                .take();
        auto diag = parse_inet_diag_dump(fixture_bytes(v4 ? "proc-net-sockdiag-ipv4.bin"
                                                          : "proc-net-sockdiag-ipv6.bin"))
                        .take();
        REQUIRE_FALSE(proc.empty());
        CHECK(facts(proc) == facts(diag));
    }
}

TEST_CASE("/proc/net/tcp holds siw's kernel sockets: listener and both ends", "[procnet]") {
    FOR_EACH_FIXTURE_KERNEL();
    auto proc = parse_proc_net_tcp(fixture_text("proc-net-tcp.txt"), AF_INET).take();
    // The header line is not a socket; every other line is one.
    const std::string text = fixture_text("proc-net-tcp.txt");
    CHECK(proc.size() == static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) - 1);
    bool listener = false;
    for (const auto& s : proc) {
        // A TIME-WAIT minisocket has no inode (the 6.12 and 7.2 captures hold some).
        CHECK((s.inode != 0) == (s.state != TcpState::time_wait));
        if (s.state == TcpState::listen && s.local.to_string() == "10.9.0.1:7174") listener = true;
    }
    CHECK(listener);
}

TEST_CASE("/proc/net/tcp lines that do not parse are errors naming the line", "[procnet]") {
    const std::string head = "  sl  local_address rem_address   st ...\n";
    CHECK(parse_proc_net_tcp(head, AF_INET).take().empty());
    for (const char* bad :
         {"   0: 0100090A:11D7 00000000:0000 0A\n",                                  // cut short
          "   0: 0100090A 00000000:0000 0A 0:0 00:0 0 0 0 9959 1\n",                 // no port
          "   0: 0100090G:11D7 00000000:0000 0A 0:0 00:0 0 0 0 9959 1\n",            // not hex
          "   0: 0100090A:11D7 00000000:0000 0A 0:0 00:0 0 x 0 9959 1\n",            // uid
          "   0: 0100090A:11D7 00000000:0000 0A 0:0 00:0 0 0 0 99x 1\n",             // inode
          "   0: 0100090A0100090A:11D7 00000000:0000 0A 0:0 00:0 0 0 0 9959 1\n"}) { // v6 in v4
        INFO(bad);
        auto r = parse_proc_net_tcp(head + bad, AF_INET);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error() == "line 2: not a socket line");
    }
}

TEST_CASE("a listener this test opens is in /proc/net/tcp with its inode", "[procnet]") {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    sockaddr_in sin{};
    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&sin), sizeof(sin)) == 0);
    REQUIRE(listen(fd, 1) == 0);
    socklen_t len = sizeof(sin);
    REQUIRE(getsockname(fd, reinterpret_cast<sockaddr*>(&sin), &len) == 0);
    struct stat st {};
    REQUIRE(fstat(fd, &st) == 0);
    auto all = read_proc_net_tcp().take();
    close(fd);
    const std::string local = "127.0.0.1:" + std::to_string(ntohs(sin.sin_port));
    auto it = std::find_if(all.begin(), all.end(),
                           [&](const HostSocket& s) { return s.local.to_string() == local; });
    REQUIRE(it != all.end());
    CHECK(it->state == TcpState::listen);
    CHECK(it->inode == st.st_ino);
    CHECK(it->uid == getuid());
    CHECK(it->peer.port == 0);
    CHECK(it->peer.address.to_string() == "0.0.0.0");
    // No /proc at all is an error naming the file.
    auto none = read_proc_net_tcp("/nonexistent");
    REQUIRE_FALSE(none.ok());
    CHECK_THAT(none.error(), Catch::Contains("/nonexistent/net/tcp"));
}
