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

std::string IpAddress::to_string() const {
    if (family == AF_INET) { // inet_ntop's work in a tenth of the time: listings print many
        char buf[16], *at = buf;
        for (int i = 0; i < 4; ++i) {
            if (i) *at++ = '.';
            at = std::to_chars(at, buf + sizeof(buf), bytes[static_cast<std::size_t>(i)]).ptr;
        }
        return std::string(buf, at);
    }
    if (family != AF_INET6) return "";
    char buf[INET6_ADDRSTRLEN] = {};
    inet_ntop(family, bytes.data(), buf, sizeof(buf));
    return buf;
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
    const bool v6 = address.family == AF_INET6;
    std::string host = address.to_string();
    std::string out;
    out.reserve(host.size() + 9);
    if (v6) out += '[';
    out += host.empty() ? std::string_view("*") : std::string_view(host);
    if (v6) out += ']';
    out += ':';
    out += port ? std::to_string(port) : std::string("*");
    return out;
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
