// SPDX-License-Identifier: MIT
#pragma once

/// `rdmastat check`: the iWARP port-sharing diagnosis. An iWARP RNIC runs TCP
/// itself, so a port its cm_id uses is invisible to the host's TCP stack unless the
/// iWARP port mapper moved it to a port it reserved in the host; soft iWARP (siw)
/// runs on host kernel sockets, so the host stack knows its ports; RoCE and
/// InfiniBand have port spaces of their own.

#include "model/model.h"
#include "model/names.h"

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdmastat {

/// In rising order of concern.
enum class Verdict {
    ok,         ///< no clash possible
    info,       ///< worth knowing, not a clash (a host socket in a separate port space)
    unknown,    ///< could not decide: a fact the verdict needs is missing
    unreserved, ///< an RNIC holds the port and the host does not know: a host app could take it
    conflict,   ///< an RNIC and a host TCP socket claim the same address and port
};
/// How many Verdicts there are: conflict must stay the last.
inline constexpr std::size_t verdict_count = static_cast<std::size_t>(Verdict::conflict) + 1;

RDMASTAT_NAMES(Verdict, "verdict", false, "OK", "INFO", "UNKNOWN", "UNRESERVED", "CONFLICT");
static_assert(Names<Verdict>::names.size() == verdict_count);

/// The verdict on one (device, port space, local address, port) that cm_ids use.
struct PortCheck {
    Verdict verdict = Verdict::ok;
    std::string device;
    Transport transport = Transport::unknown;
    std::optional<std::string> driver;
    std::optional<PortSpace> port_space;
    Endpoint local;               ///< as the application bound it
    std::optional<Endpoint> wire; ///< on the wire, when the iWARP port mapper moved the port
    std::vector<std::uint32_t> cm_ids;
    Owner owner; ///< of the cm_id the verdict is about
    /// False when host sockets were not collected (then host_socket is always empty).
    bool sockets_known = false;
    /// The host socket the verdict names: siw's own kernel socket, or the one on the
    /// same port (exact address before a wildcard, LISTEN first, then one with a process).
    std::optional<HostSocket> host_socket;
    std::optional<std::string> host_socket_comm; ///< of the process holding it, when known
    std::string reason;                          ///< one sentence, no trailing period
};

struct CheckReport {
    /// By device, port space, address and port.
    std::vector<PortCheck> checks;
    /// What could not be read, each a phrase ("host TCP sockets were not read"); a
    /// verdict that depends on one of them is UNKNOWN and says so in its reason.
    std::vector<std::string> missing;

    std::size_t count(Verdict v) const;
    /// Any CONFLICT or UNRESERVED.
    bool found_problem() const;
};

/// Judges every port a cm_id of snap has bound (local endpoint with a non-zero
/// port), attributing host sockets first (attribute_host_sockets). cm_ids on the
/// same device, port space, address and port share one PortCheck whose verdict is
/// the gravest of theirs. Per cm_id:
///   - RoCE, InfiniBand, usNIC: a separate port space: INFO when a host TCP socket
///     overlaps (same port; equal or wildcard addresses, see addresses_overlap), else OK;
///   - iWARP on a siw device: OK, naming the kernel socket attributed to it;
///   - iWARP on another driver (an RNIC with its own TCP stack): OK when a port
///     mapping is in effect (mapped, and mapped_local's port differs from local's);
///     with no mapping (mapped false, or true with the port unchanged) CONFLICT when a
///     host TCP socket overlaps, else UNRESERVED, UNKNOWN when host sockets were not
///     read; when mapping is unknown, UNKNOWN (NLDEV cannot know it), or INFO for an
///     id the rdmastat module reported without an iWARP CM id (not on the wire yet);
///   - an unknown driver or transport: UNKNOWN.
CheckReport check_ports(const Snapshot& snap);

/// How many of check_ports(snap)'s PortChecks have each verdict, indexed by
/// Verdict, without building them: what the metrics need, for every scrape.
std::array<std::size_t, verdict_count> count_port_verdicts(const Snapshot& snap);

} // namespace rdmastat
