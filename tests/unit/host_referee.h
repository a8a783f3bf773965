// SPDX-License-Identifier: MIT
#pragma once

// Files of a capture (tests/lab/scenarios/capture.sh) for the host-data tests:
// the committed one in tests/fixtures, or a fresh one from the lab ([lab] tests);
// and the referee for host sockets, `ss -Htanpe` text (ss-tanpe.txt).

#include "catch_compat.hpp"
#include "model/address.h"
#include "support.h"

#include <cstdint>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace rdmastat::test {

/// The fixtures directory of the lab run being judged ([lab] tests), from
/// RDMASTAT_LAB_OUT as tests/lab/check.sh sets it.
inline std::string lab_capture_dir() {
    const char* d = std::getenv("RDMASTAT_LAB_OUT");
    if (!d) FAIL("RDMASTAT_LAB_OUT is not set: run through tests/lab/check.sh");
    return std::string(d) + "/fixtures";
}

/// NAME of the capture in dir, or of tests/fixtures when dir is empty.
inline std::string capture_text(const std::string& dir, const std::string& name) {
    return dir.empty() ? fixture_text(name) : read_file(dir + "/" + name);
}
inline Bytes capture_bytes(const std::string& dir, const std::string& name) {
    std::string s = capture_text(dir, name);
    return Bytes(s.begin(), s.end());
}

// One line of `ss -Htanpe`.
struct SsSocket {
    std::string state, local_addr, peer_addr;
    std::uint16_t local_port = 0, peer_port = 0;
    std::uint64_t inode = 0;
    std::uint32_t uid = 0; // ss -e prints uid: only when it is not 0
    std::optional<std::uint32_t> pid, fd;
};

// "10.9.0.1:7174", "[fd00:9::1]:7176", "*:7181", "0.0.0.0:*": ss's address:port.
inline void split_ss_addr(const std::string& text, std::string& addr, std::uint16_t& port) {
    auto colon = text.rfind(':');
    addr = text.substr(0, colon);
    if (addr.size() >= 2 && addr.front() == '[') addr = addr.substr(1, addr.size() - 2);
    std::string p = text.substr(colon + 1);
    port = p == "*" ? 0 : static_cast<std::uint16_t>(std::stoul(p));
}

inline std::optional<std::uint32_t> field_after(const std::string& line, const std::string& key) {
    auto at = line.find(key);
    if (at == std::string::npos) return std::nullopt;
    return static_cast<std::uint32_t>(std::stoul(line.substr(at + key.size())));
}

/// The sockets of ss-tanpe.txt that have an inode. TIME-WAIT sockets (inode 0,
/// nobody holds them) left by an earlier scenario of the same boot may expire
/// between two views, so comparisons leave them out.
inline std::vector<SsSocket> ss_sockets(const std::string& dir = "") {
    std::vector<SsSocket> out;
    std::istringstream in(capture_text(dir, "ss-tanpe.txt"));
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        SsSocket s;
        std::string recv_q, send_q, local, peer;
        if (!(words >> s.state >> recv_q >> send_q >> local >> peer)) continue;
        split_ss_addr(local, s.local_addr, s.local_port);
        split_ss_addr(peer, s.peer_addr, s.peer_port);
        s.inode = field_after(line, " ino:").value();
        if (s.inode == 0) continue;
        s.uid = field_after(line, " uid:").value_or(0);
        s.pid = field_after(line, ",pid=");
        s.fd = field_after(line, ",fd=");
        out.push_back(s);
    }
    return out;
}

/// The same leaving out of sockets.
template <typename Socket> std::vector<Socket> with_inode(const std::vector<Socket>& all) {
    std::vector<Socket> out;
    for (const auto& s : all)
        if (s.inode) out.push_back(s);
    return out;
}

// ss prints a dual-stack socket's any address as "*".
inline bool same_address(const std::string& ss, const IpAddress& ours) {
    if (ss == "*") return ours.is_any();
    return ss == ours.to_string();
}

/// The capture scenario's ib_send_bw servers, each on an SRQ: device → pid
/// (srq-servers.txt).
inline std::map<std::string, std::uint32_t> srq_servers(const std::string& dir = "") {
    std::map<std::string, std::uint32_t> out;
    std::istringstream in(capture_text(dir, "srq-servers.txt"));
    std::string dev;
    for (std::uint32_t pid; in >> dev >> pid;)
        out[dev] = pid;
    return out;
}

/// An SRQ's QPs as `rdma -j res show srq` gives them (["6-8", "11"]), in
/// rdmastat's text ("6-8,11").
inline std::string rdma_lqpn_text(const nlohmann::json& entry) {
    std::string text;
    for (const auto& range : entry.at("lqpn"))
        text += (text.empty() ? "" : ",") + range.get<std::string>();
    return text;
}

/// Every QP number an lqpn text ("6-8,11") names.
inline std::set<std::uint32_t> qp_numbers(const std::string& lqpn) {
    std::set<std::uint32_t> out;
    std::istringstream in(lqpn);
    for (std::string part; std::getline(in, part, ',');) {
        auto dash = part.find('-');
        auto lo = static_cast<std::uint32_t>(std::stoul(part.substr(0, dash)));
        auto hi = dash == std::string::npos
                      ? lo
                      : static_cast<std::uint32_t>(std::stoul(part.substr(dash + 1)));
        for (auto n = lo; n <= hi; ++n)
            out.insert(n);
    }
    return out;
}

} // namespace rdmastat::test
