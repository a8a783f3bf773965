// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdmastat {

/// An IPv4 or IPv6 address in network byte order. family is AF_INET or AF_INET6
/// (AF_UNSPEC for the empty address); IPv4 uses the first 4 bytes.
struct IpAddress {
    int family = 0;
    std::array<std::uint8_t, 16> bytes{};

    bool operator==(const IpAddress&) const = default;
    auto operator<=>(const IpAddress&) const = default;

    /// Parses dotted IPv4 or textual IPv6 (with optional [] brackets); nullopt if invalid.
    static std::optional<IpAddress> parse(std::string_view text);
    /// inet_ntop form; IPv4-mapped IPv6 stays IPv6, as the kernel reports it.
    std::string to_string() const;
    /// Appends to_string()'s text to out.
    void append_to(std::string& out) const;
    /// True for 0.0.0.0 and ::.
    bool is_any() const;
    /// Whether the first prefix_len bits equal those of network (same family only).
    bool in_prefix(const IpAddress& network, unsigned prefix_len) const;
};

/// a with an IPv4-mapped IPv6 address (::ffff:a.b.c.d) turned into IPv4; others unchanged.
IpAddress unmapped(const IpAddress& a);

/// An address and port, as the kernel's sockaddr carries them.
struct Endpoint {
    IpAddress address;
    std::uint16_t port = 0;

    bool operator==(const Endpoint&) const = default;
    /// "10.0.0.1:7174", "[fe80::1]:7174"; the any address prints as ss prints it,
    /// "0.0.0.0:7174", "[::]:7174", port 0 as "*" ("0.0.0.0:*"), and an address of
    /// no family as "*".
    std::string to_string() const;
    /// Appends to_string()'s text to out.
    void append_to(std::string& out) const;
};

/// Decodes a struct sockaddr_in / sockaddr_in6 (as the kernel puts it in a
/// sockaddr_storage attribute); nullopt for AF_UNSPEC, other families or short data.
std::optional<Endpoint> endpoint_from_sockaddr(const void* data, std::size_t len);

/// Puts an address list in order, each address once: a host's or a netdev's
/// addresses, however many places reported them.
void sort_unique(std::vector<IpAddress>& addresses);

} // namespace rdmastat
