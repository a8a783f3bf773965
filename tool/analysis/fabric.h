// SPDX-License-Identifier: MIT
#pragma once

/// The fabric view (`rdmastat fabric`): both ends of every connection, joined
/// across the hosts of a FabricInput, and what is wrong with each pair.

#include "model/fabric.h"
#include "model/names.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rdmastat {

/// What a row of the fabric view is, in the order the view lists them.
enum class FabricStatus : std::uint8_t {
    half_open,   ///< one end; its peer's address is a host of the view, which has no end for it
    disagree,    ///< both ends, not both up (CONNECT; a verbs QP in RTR or RTS), or a QP
                 ///< in an error state (ERR, SQE)
    unobserved,  ///< one end; its peer's address belongs to no host of the view, or is unknown
    connecting,  ///< one end, still resolving its peer (a CM state before CONNECT)
    established, ///< both ends up, no QP in an error state
    listening,   ///< a listener (only when asked for: listeners, or a port)
};
inline constexpr std::size_t fabric_status_count = 6;

/// One end: a connection of a host (pointers into the FabricInput).
struct FabricEnd {
    const FabricHost* host = nullptr;
    const Connection* connection = nullptr;
};

struct FabricRow {
    FabricStatus status = FabricStatus::established;
    /// The ends: two for a joined pair (the accepting side first, when one of
    /// them has a listener on its port), one otherwise.
    std::vector<FabricEnd> ends;
    /// half_open: the host that holds the peer's address.
    const FabricHost* peer_host = nullptr;
    /// Two verbs ends joined by their QP numbers alone (at least one of them
    /// without its path's addresses), the only such candidate pair.
    bool probable = false;
};

struct FabricQuery {
    bool listeners = false;            ///< list listeners too
    std::optional<std::uint16_t> port; ///< only rows with an end (or a listener) bound to this port
};

struct FabricView {
    std::vector<FabricRow> rows;
    std::size_t count[fabric_status_count] = {}; ///< rows by status

    std::size_t of(FabricStatus s) const { return count[static_cast<std::size_t>(s)]; }
};

/// Joins the ends of in's hosts: an id whose (local, peer) addresses are
/// another id's (peer, local) is its other end. The addresses on the wire
/// (mapped_local, mapped_peer) are used where the source knows them, an
/// IPv4-mapped IPv6 address as IPv4; a loopback or link-local address pairs
/// and is held only within its own host. Internal
/// ids are left out; an id with no peer is a listener when in LISTEN, and is
/// otherwise not part of any connection.
/// A verbs connection of a connected type with its peer's QP number is an end
/// too: its other end has (local GID address, QP number) equal to its (peer
/// GID address, remote QP number) and the reverse. GIDs are global, so they
/// pair across hosts whatever their prefix. Ends left without a partner then
/// pair by QP numbers alone, when their transports agree, their known
/// addresses do not contradict it, and the pair is the only candidate for
/// both: such a row is probable. A QP connected to itself is a row of one
/// end, its own peer. A verbs end alone is half_open when its peer's address
/// is held by a host of the view (another verbs end's GID or a port address,
/// link-local ones too), else unobserved; so is an end with several
/// candidates by numbers.
/// Rows are ordered by status, then by their first end's host and local
/// address. in must outlive the view.
FabricView join_fabric(const FabricInput& in, const FabricQuery& query = {});

RDMASTAT_NAMES(FabricStatus, "fabric status", false, "half_open", "disagree", "unobserved",
               "connecting", "established", "listening");
static_assert(Names<FabricStatus>::names.size() == fabric_status_count);

} // namespace rdmastat
