// SPDX-License-Identifier: MIT
#pragma once

/// The selectors of `rdmastat lsof`, parsed as lsof(8) reads them. Every parse
/// failure is a Failure "lsof: -X: '<item>' <reason>", e.g.
/// "lsof: -i: '70000' is not a port".

#include "common/error.h"
#include "model/address.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdmastat {

/// Ports low..high, both included; a single port has low == high.
struct PortRange {
    std::uint16_t low = 0, high = 0;
    bool operator==(const PortRange&) const = default;
};

/// One -i argument, [4|6][PROTOCOL][@ADDR][:PORT[,PORT|,LOW-HIGH]...]. Every part is
/// optional; an empty spec (a bare -i) selects every internet file.
struct InetSpec {
    std::optional<int> family;           ///< AF_INET (4) or AF_INET6 (6)
    std::optional<std::string> protocol; ///< "tcp" or "udp" (lower case)
    std::optional<IpAddress> address;
    std::vector<PortRange> ports; ///< empty: any port
    bool operator==(const InetSpec&) const = default;
};

/// A -u item: a user name, or a uid when it is all digits.
struct UserSpec {
    std::optional<std::uint32_t> uid;
    std::string name; ///< empty when uid is set
    bool operator==(const UserSpec&) const = default;
};

/// Everything that selects files. Include lists of one option are OR-ed; with
/// all_of (-a) the options given are AND-ed, else OR-ed; exclusions (^) always
/// remove what they name.
struct LsofSelectors {
    std::vector<std::uint32_t> pids, excluded_pids; ///< -p
    std::vector<std::string> comms, excluded_comms; ///< -c, prefixes of the command name
    std::vector<UserSpec> users, excluded_users;    ///< -u
    std::vector<InetSpec> inets;                    ///< -i, one per option given
    bool all_of = false;                            ///< -a

    /// True when -i was given: TCP sockets join the files that can be listed.
    bool inet() const { return !inets.empty(); }
    /// True when any -p, -c or -u names something to include (not only exclusions).
    bool selects_processes() const { return !pids.empty() || !comms.empty() || !users.empty(); }
};

/// Adds a -p list "PID[,PID...]", "^PID" excluding. PIDs are decimal, 1 to 2^32-1.
Status add_pid_list(LsofSelectors& sel, std::string_view list);
/// Adds one -c value: a command name prefix, or "^PREFIX" excluding. Empty and
/// lsof's /REGEX/ form are refused.
Status add_command(LsofSelectors& sel, std::string_view value);
/// Adds a -u list "USER|UID[,...]", "^" excluding.
Status add_user_list(LsofSelectors& sel, std::string_view list);
/// Parses one -i argument (without the -i). ADDR is dotted IPv4 or IPv6 in
/// brackets; names are not resolved (neither hosts nor services). A family digit
/// and an address of the other family, a port outside 1-65535 and a range whose
/// low end is above its high end are refused.
Result<InetSpec> parse_inet_spec(std::string_view spec);

} // namespace rdmastat
