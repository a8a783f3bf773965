// SPDX-License-Identifier: MIT
// sock_diag (inet_diag) parsing of bytes captured from the lab kernel
// (tests/lab/scenarios/capture.sh: sockdiag-ipv4.bin, sockdiag-ipv6.bin), judged
// against `ss -Htanpe` captured at the same moment (ss-tanpe.txt).
#include "catch_compat.hpp"
#include "collect/sockdiag_parse.h"
#include "host_referee.h"
#include "model/names.h"
#include "support.h"

#include <cstring>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sstream>

using namespace rdmastat;
using namespace rdmastat::test;

namespace {

std::vector<HostSocket> all_sockets(const std::string& dir = "") {
    auto v4 = parse_inet_diag_dump(capture_bytes(dir, "sockdiag-ipv4.bin")).take();
    auto v6 = parse_inet_diag_dump(capture_bytes(dir, "sockdiag-ipv6.bin")).take();
    v4.insert(v4.end(), v6.begin(), v6.end());
    return v4;
}

Bytes message(std::uint16_t type, const std::vector<std::uint8_t>& payload) {
    nlmsghdr h{};
    h.nlmsg_len = static_cast<std::uint32_t>(NLMSG_HDRLEN + payload.size());
    h.nlmsg_type = type;
    h.nlmsg_flags = NLM_F_MULTI;
    auto* raw = reinterpret_cast<const std::uint8_t*>(&h);
    Bytes out(raw, raw + sizeof(h));
    out.insert(out.end(), payload.begin(), payload.end());
    out.resize(NLMSG_ALIGN(out.size()), 0);
    return out;
}

Bytes done_message() {
    return message(NLMSG_DONE, {0, 0, 0, 0});
}

// The dumps of a capture against its ss output.
void judge_against_ss(const std::string& dir) {
    auto ours = with_inode(all_sockets(dir));
    auto refs = ss_sockets(dir);
    REQUIRE(refs.size() >= 9);
    REQUIRE(ours.size() == refs.size());
    for (const auto& r : refs) {
        INFO("ss: " << r.state << " " << r.local_addr << ":" << r.local_port << " " << r.peer_addr
                    << ":" << r.peer_port << " ino " << r.inode);
        auto it = std::find_if(ours.begin(), ours.end(),
                               [&](const HostSocket& s) { return s.inode == r.inode; });
        REQUIRE(it != ours.end());
        CHECK(name_of(it->state) == r.state);
        CHECK(same_address(r.local_addr, it->local.address));
        CHECK(it->local.port == r.local_port);
        CHECK(same_address(r.peer_addr, it->peer.address));
        CHECK(it->peer.port == r.peer_port);
        CHECK(it->uid == r.uid);
        CHECK_FALSE(it->pid); // holders come from the /proc scan, not from sock_diag
    }
}

// siw's sockets of the capture's rping connections, and nc's for contrast.
void judge_siw_sockets(const std::string& dir) {
    auto ours = all_sockets(dir);
    auto refs = ss_sockets(dir);
    auto find = [&](const std::string& state, const std::string& local, std::uint16_t lport,
                    std::uint16_t rport) -> const HostSocket* {
        for (const auto& s : ours)
            if (name_of(s.state) == state && s.local.address.to_string() == local &&
                s.local.port == lport && (rport == 0 || s.peer.port == rport))
                return &s;
        return nullptr;
    };
    for (auto [local, port] : {std::pair<std::string, std::uint16_t>{"10.9.0.1", 7174},
                               std::pair<std::string, std::uint16_t>{"fd00:9::1", 7176}}) {
        INFO(local << ":" << port);
        const HostSocket* listener = find("LISTEN", local, port, 0);
        REQUIRE(listener);
        CHECK(listener->inode != 0);
        CHECK(listener->peer.address.is_any());
        CHECK(listener->peer.port == 0);
        // Both ends of the connection: the server's accepted socket and the client's.
        std::size_t ends = 0;
        for (const auto& s : ours) {
            if (s.state != TcpState::established || s.local.address.to_string() != local) continue;
            if (s.local.port != port && s.peer.port != port) continue;
            ++ends;
            CHECK(s.inode != 0);
            // ss shows no process for them: siw holds them in the kernel.
            for (const auto& r : refs)
                if (r.inode == s.inode) CHECK_FALSE(r.pid);
        }
        CHECK(ends == 2);
    }
    // A process-held socket of the same capture, for contrast: nc's dual-stack
    // listener and the IPv4-mapped side of its connection.
    const HostSocket* nc = find("LISTEN", "::", 7181, 0);
    REQUIRE(nc);
    CHECK(nc->local.address.family == AF_INET6);
    const HostSocket* mapped = find("ESTAB", "::ffff:10.9.0.1", 7180, 0);
    REQUIRE(mapped);
}

} // namespace

TEST_CASE("inet_diag dumps from the lab kernel match ss -tanpe", "[sockdiag]") {
    FOR_EACH_FIXTURE_KERNEL();
    judge_against_ss("");
}

TEST_CASE("siw's kernel sockets are in the dump with inodes and no process", "[sockdiag]") {
    FOR_EACH_FIXTURE_KERNEL();
    judge_siw_sockets("");
}

TEST_CASE("lab: a fresh sock_diag capture agrees with ss", "[lab]") {
    judge_against_ss(lab_capture_dir());
    judge_siw_sockets(lab_capture_dir());
}

TEST_CASE("TCP states are named as ss names them", "[sockdiag]") {
    auto name = [](int v) { return name_of(static_cast<TcpState>(v)); };
    CHECK(name(1) == "ESTAB");
    CHECK(name(2) == "SYN-SENT");
    CHECK(name(3) == "SYN-RECV");
    CHECK(name(4) == "FIN-WAIT-1");
    CHECK(name(5) == "FIN-WAIT-2");
    CHECK(name(6) == "TIME-WAIT");
    CHECK(name(7) == "UNCONN");
    CHECK(name(8) == "CLOSE-WAIT");
    CHECK(name(9) == "LAST-ACK");
    CHECK(name(10) == "LISTEN");
    CHECK(name(11) == "CLOSING");
    CHECK(name(12) == "SYN-RECV"); // TCP_NEW_SYN_RECV: a request socket
    CHECK(name(13) == "BOUND-INACTIVE");
    CHECK(name(0) == "0");
    CHECK(name(99) == "99");
    // Read back from a snapshot: a request socket's "SYN-RECV" is syn_recv, a
    // number without a name is itself, anything else is refused.
    CHECK(enum_from_name<TcpState>("LISTEN") == TcpState::listen);
    CHECK(enum_from_name<TcpState>("SYN-RECV") == TcpState::syn_recv);
    CHECK(enum_from_name<TcpState>("99") == static_cast<TcpState>(99));
    CHECK_FALSE(enum_from_name<TcpState>("listen"));
    CHECK_FALSE(enum_from_name<TcpState>("ESTABLISHED"));
}

TEST_CASE("a sock_diag dump cut short is an error, never a partial answer", "[sockdiag]") {
    Bytes bytes = fixture_bytes("sockdiag-ipv4.bin");
    require_cut_dumps_refused(bytes, [](const Bytes& b) { return parse_inet_diag_dump(b); });
}

TEST_CASE("a message shorter than struct inet_diag_msg is an error", "[sockdiag]") {
    Bytes bytes = message(SOCK_DIAG_BY_FAMILY, std::vector<std::uint8_t>(20, 0));
    Bytes done = done_message();
    bytes.insert(bytes.end(), done.begin(), done.end());
    auto parsed = parse_inet_diag_dump(bytes);
    REQUIRE_FALSE(parsed.ok());
    CHECK_THAT(parsed.error(), Catch::Contains("inet_diag dump message 1") &&
                                   Catch::Contains("struct inet_diag_msg"));
}

TEST_CASE("a malformed attribute after the header is an error", "[sockdiag]") {
    Bytes bytes = fixture_bytes("sockdiag-ipv4.bin");
    // An attribute header claiming 40 bytes, appended to the first message's tail.
    auto* nlh = reinterpret_cast<nlmsghdr*>(bytes.data());
    REQUIRE(nlh->nlmsg_len == NLMSG_ALIGN(nlh->nlmsg_len));
    // struct nlattr in host order (little-endian here): nla_len 40, nla_type.
    const std::vector<std::uint8_t> bogus = {40, 0, INET_DIAG_SHUTDOWN, 0};
    std::uint32_t len = nlh->nlmsg_len;
    bytes.insert(bytes.begin() + len, bogus.begin(), bogus.end());
    reinterpret_cast<nlmsghdr*>(bytes.data())->nlmsg_len = len + 4;
    auto parsed = parse_inet_diag_dump(bytes);
    REQUIRE_FALSE(parsed.ok());
    CHECK_THAT(parsed.error(), Catch::Contains("inet_diag dump message 1") &&
                                   Catch::Contains("truncated attribute"));
}

TEST_CASE("a family other than IPv4 or IPv6 is an error", "[sockdiag]") {
    Bytes bytes = fixture_bytes("sockdiag-ipv4.bin");
    bytes[NLMSG_HDRLEN] = AF_UNIX; // inet_diag_msg.idiag_family of the first message
    auto parsed = parse_inet_diag_dump(bytes);
    REQUIRE_FALSE(parsed.ok());
    CHECK_THAT(parsed.error(), Catch::Contains("address family 1"));
}

TEST_CASE("a reply that is not sock_diag is rejected", "[sockdiag]") {
    auto parsed = parse_inet_diag_dump(fixture_bytes("cq-siw0.bin"));
    REQUIRE_FALSE(parsed.ok());
    CHECK_THAT(parsed.error(), Catch::Contains("unexpected message type"));
}
