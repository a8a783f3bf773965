// SPDX-License-Identifier: MIT
#include "model/address.h"

#include <algorithm>
#include <arpa/inet.h>
#include <charconv>
#include <cstring>
#include <netinet/in.h>
#include <string_view>

namespace rdmastat {

std::optional<IpAddress> IpAddress::parse(std::string_view text) {
    if (text.size() >= 2 && text.front() == '[' && text.back() == ']')
        text = text.substr(1, text.size() - 2);
    if (text.empty() || text.size() >= INET6_ADDRSTRLEN) return std::nullopt;
    // A NUL would end inet_pton's text early: "::1\0x" is not an address.
    if (text.find('\0') != std::string_view::npos) return std::nullopt;
    IpAddress a;
    // Digits and dots alone are IPv4 or nothing: read here, by inet_pton's rules
    // (four decimal octets up to 255, no leading zero), in a fraction of its time.
    if (std::all_of(text.begin(), text.end(),
                    [](char ch) { return (ch >= '0' && ch <= '9') || ch == '.'; })) {
        std::size_t octet = 0, digits = 0;
        unsigned value = 0;
        for (char ch : text) {
            if (ch == '.') {
                if (!digits || octet == 3) return std::nullopt;
                a.bytes[octet++] = static_cast<std::uint8_t>(value);
                digits = value = 0;
                continue;
            }
            if (digits && !value) return std::nullopt; // a leading zero
            value = value * 10 + static_cast<unsigned>(ch - '0');
            if (value > 255) return std::nullopt;
            ++digits;
        }
        if (!digits || octet != 3) return std::nullopt;
        a.bytes[3] = static_cast<std::uint8_t>(value);
        a.family = AF_INET;
        return a;
    }
    char buf[INET6_ADDRSTRLEN] = {};
    std::memcpy(buf, text.data(), text.size());
    if (inet_pton(AF_INET6, buf, a.bytes.data()) == 1) {
        a.family = AF_INET6;
        return a;
    }
    return std::nullopt;
}

namespace {

void append_ipv4(std::string& out, const std::uint8_t* b) {
    char buf[16], *at = buf;
    for (int i = 0; i < 4; ++i) {
        if (i) *at++ = '.';
        at = std::to_chars(at, buf + sizeof(buf), b[i]).ptr;
    }
    out.append(buf, at);
}

// inet_ntop's IPv6 text (RFC 5952, as glibc writes it) without its sprintf:
// lowercase hex words, the first longest run of two or more zero words as
// "::", and the last 32 bits as IPv4 after ::ffff: or a run of six zero words.
void append_ipv6(std::string& out, const std::array<std::uint8_t, 16>& bytes) {
    std::array<unsigned, 8> w{};
    for (std::size_t i = 0; i < 8; ++i)
        w[i] = static_cast<unsigned>(bytes[2 * i] << 8 | bytes[2 * i + 1]);
    std::size_t best = 8, best_len = 0;
    for (std::size_t i = 0; i < 8;) {
        std::size_t j = i;
        while (j < 8 && w[j] == 0)
            ++j;
        if (j - i > best_len) best = i, best_len = j - i;
        i = j == i ? i + 1 : j;
    }
    if (best_len < 2) best = 8, best_len = 0;
    char buf[INET6_ADDRSTRLEN], *at = buf;
    for (std::size_t i = 0; i < 8; ++i) {
        if (i >= best && i < best + best_len) {
            if (i == best) *at++ = ':';
            continue;
        }
        if (i) *at++ = ':';
        if (i == 6 && best == 0 && (best_len == 6 || (best_len == 5 && w[5] == 0xffff))) {
            out.append(buf, at);
            return append_ipv4(out, bytes.data() + 12);
        }
        at = std::to_chars(at, buf + sizeof(buf), w[i], 16).ptr;
    }
    if (best_len && best + best_len == 8) *at++ = ':';
    out.append(buf, at);
}

} // namespace

void IpAddress::append_to(std::string& out) const {
    if (family == AF_INET) return append_ipv4(out, bytes.data());
    if (family == AF_INET6) append_ipv6(out, bytes);
}

std::string IpAddress::to_string() const {
    std::string out;
    append_to(out);
    return out;
}

IpAddress unmapped(const IpAddress& a) {
    static constexpr std::uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (a.family != AF_INET6 || !std::equal(prefix, prefix + 12, a.bytes.begin())) return a;
    IpAddress v4;
    v4.family = AF_INET;
    std::copy(a.bytes.begin() + 12, a.bytes.end(), v4.bytes.begin());
    return v4;
}

bool IpAddress::is_any() const {
    std::size_t n = family == AF_INET ? 4 : 16;
    for (std::size_t i = 0; i < n; ++i)
        if (bytes[i]) return false;
    return true;
}

bool IpAddress::in_prefix(const IpAddress& network, unsigned prefix_len) const {
    if (family != network.family) return false;
    unsigned max_bits = family == AF_INET ? 32 : 128;
    if (prefix_len > max_bits) prefix_len = max_bits;
    unsigned whole = prefix_len / 8, rest = prefix_len % 8;
    if (std::memcmp(bytes.data(), network.bytes.data(), whole) != 0) return false;
    if (!rest) return true;
    std::uint8_t mask = static_cast<std::uint8_t>(0xff << (8 - rest));
    return (bytes[whole] & mask) == (network.bytes[whole] & mask);
}

std::string Endpoint::to_string() const {
    std::string out;
    append_to(out);
    return out;
}

void Endpoint::append_to(std::string& out) const {
    const bool v6 = address.family == AF_INET6;
    const std::size_t before = out.size();
    if (v6) out += '[';
    address.append_to(out);
    if (out.size() == before) out += '*'; // an address of no family
    if (v6) out += ']';
    out += ':';
    if (!port) {
        out += '*';
        return;
    }
    char buf[8];
    out.append(buf, std::to_chars(buf, buf + sizeof(buf), port).ptr);
}

std::optional<Endpoint> endpoint_from_sockaddr(const void* data, std::size_t len) {
    sa_family_t family;
    if (len < sizeof(family)) return std::nullopt;
    std::memcpy(&family, data, sizeof(family));
    Endpoint e;
    if (family == AF_INET && len >= sizeof(sockaddr_in)) {
        sockaddr_in sin;
        std::memcpy(&sin, data, sizeof(sin));
        e.address.family = AF_INET;
        std::memcpy(e.address.bytes.data(), &sin.sin_addr, 4);
        e.port = ntohs(sin.sin_port);
        return e;
    }
    if (family == AF_INET6 && len >= sizeof(sockaddr_in6)) {
        sockaddr_in6 sin6;
        std::memcpy(&sin6, data, sizeof(sin6));
        e.address.family = AF_INET6;
        std::memcpy(e.address.bytes.data(), &sin6.sin6_addr, 16);
        e.port = ntohs(sin6.sin6_port);
        return e;
    }
    return std::nullopt;
}

void sort_unique(std::vector<IpAddress>& addresses) {
    std::sort(addresses.begin(), addresses.end());
    addresses.erase(std::unique(addresses.begin(), addresses.end()), addresses.end());
}

} // namespace rdmastat
