// SPDX-License-Identifier: MIT
#include "collect/proc_net_tcp.h"

#include "collect/sockdiag.h"
#include "collect/sockdiag_parse.h"
#include "common/file.h"
#include "common/numbers.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>

namespace rdmastat {
namespace {

template <typename T> std::optional<T> hex(std::string_view text) {
    return parse_number<T>(text, 16);
}

// "0100007F:1F90": the address as the kernel's 32-bit words, each printed with
// %08X in host order, then the port in hex.
std::optional<Endpoint> endpoint(std::string_view text, int family) {
    auto colon = text.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    std::string_view addr = text.substr(0, colon);
    auto port = hex<std::uint16_t>(text.substr(colon + 1));
    const std::size_t words = family == AF_INET ? 1 : 4;
    if (!port || addr.size() != 8 * words) return std::nullopt;
    std::uint32_t raw[4] = {};
    for (std::size_t i = 0; i < words; ++i) {
        auto w = hex<std::uint32_t>(addr.substr(8 * i, 8));
        if (!w) return std::nullopt;
        raw[i] = *w;
    }
    char buf[INET6_ADDRSTRLEN];
    if (!inet_ntop(family, raw, buf, sizeof(buf))) return std::nullopt;
    auto ip = IpAddress::parse(buf);
    if (!ip) return std::nullopt;
    return Endpoint{*ip, *port};
}

} // namespace

Result<std::vector<HostSocket>> parse_proc_net_tcp(std::string_view text, int family) {
    std::vector<HostSocket> out;
    std::size_t line_no = 0;
    while (!text.empty()) {
        auto nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        if (++line_no == 1) continue; // "  sl  local_address rem_address   st ..."
        std::vector<std::string_view> f;
        for (std::size_t i = 0; i < line.size();) {
            while (i < line.size() && line[i] == ' ')
                ++i;
            std::size_t j = line.find(' ', i);
            if (j == std::string_view::npos) j = line.size();
            if (j > i) f.push_back(line.substr(i, j - i));
            i = j;
        }
        if (f.empty()) continue;
        // sl local rem st tx:rx tr:when retrnsmt uid timeout inode ...
        auto local = f.size() > 9 ? endpoint(f[1], family) : std::nullopt;
        auto peer = f.size() > 9 ? endpoint(f[2], family) : std::nullopt;
        auto state = f.size() > 9 ? hex<std::uint8_t>(f[3]) : std::nullopt;
        auto uid = f.size() > 9 ? parse_number<std::uint32_t>(f[7]) : std::nullopt;
        auto inode = f.size() > 9 ? parse_number<std::uint64_t>(f[9]) : std::nullopt;
        if (!local || !peer || !state || !uid || !inode)
            return Failure{"line " + std::to_string(line_no) + ": not a socket line"};
        HostSocket s;
        s.state = static_cast<TcpState>(*state);
        s.local = *local;
        s.peer = *peer;
        s.uid = *uid;
        s.inode = *inode;
        out.push_back(std::move(s));
    }
    return out;
}

Result<std::vector<HostSocket>> read_proc_net_tcp(const std::string& proc_root) {
    std::vector<HostSocket> out;
    for (int family : {AF_INET, AF_INET6}) {
        const std::string path = proc_root + (family == AF_INET ? "/net/tcp" : "/net/tcp6");
        auto text = read_whole_file(path);
        if (!text) {
            if (family == AF_INET6 && text.error_code() == ENOENT) break; // no IPv6
            return text.failure();
        }
        auto sockets = parse_proc_net_tcp(text.value(), family);
        if (!sockets) return Failure{path + ": " + sockets.error()};
        for (auto& s : sockets.value())
            out.push_back(std::move(s));
    }
    return out;
}

Result<HostSockets> collect_host_sockets(const std::string& proc_root) {
    auto source = SockDiagSource::open();
    auto sockets = source ? source.value().collect() : source.failure();
    if (sockets) return HostSockets{std::move(sockets.value()), std::nullopt};
    // No sock_diag for TCP here (ENOENT: no inet_diag/tcp_diag; EPROTONOSUPPORT:
    // no NETLINK_SOCK_DIAG; EPERM/EACCES: a container that refuses it).
    const int e = sockets.error_code();
    if (e != ENOENT && e != EPROTONOSUPPORT && e != EOPNOTSUPP && e != EPERM && e != EACCES)
        return sockets.failure();
    auto proc = read_proc_net_tcp(proc_root);
    if (!proc)
        return Failure{sockets.error() + "; and /proc/net: " + proc.error(), proc.error_code()};
    const std::string why = e == ENOENT ? "no TCP sock_diag: inet_diag and tcp_diag are "
                                          "neither loaded nor loadable"
                                        : std::strerror(e);
    return HostSockets{std::move(proc.value()), "sock_diag unavailable (" + why + "): reading " +
                                                    proc_root + "/net/tcp and tcp6 instead"};
}

} // namespace rdmastat
