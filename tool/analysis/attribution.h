// SPDX-License-Identifier: MIT
#pragma once

/// Attribution of host TCP sockets to RDMA cm_ids: soft iWARP (siw) carries each
/// iWARP connection and listener on a kernel TCP socket of the host, which no
/// process holds, so `ss -tlnp` shows it without an owner. Matching its addresses
/// with a siw cm_id's names the process behind it.

#include "model/model.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace rdmastat {

/// The cm_id of snap that the host socket s carries, or nullptr. Only a socket no
/// process holds (pid empty) can match, and only an iWARP cm_id on a device whose
/// driver is siw, compared on the wire addresses (mapped_local/mapped_peer when the
/// source reported them, else local/peer):
///   - a LISTEN socket matches a LISTEN cm_id on the same port whose address covers
///     the socket's (equal, or the cm_id's is a wildcard: see address_covers);
///   - any other socket matches a cm_id that is not in LISTEN with equal local and
///     peer endpoints (IPv4-mapped IPv6 compares as IPv4).
/// Of several matches, an equal address beats a wildcard, then an id whose owner has a
/// pid beats one without, then the first in snapshot order.
const Connection* attributed_cm_id(const Snapshot& snap, const HostSocket& s);

/// snap's host sockets, in order, with rdma_device and rdma_cm_id set on every
/// socket attributed_cm_id finds a cm_id for. Other sockets are unchanged (an
/// attribution a saved snapshot carried stays).
std::vector<HostSocket> attribute_host_sockets(const Snapshot& snap);

/// snap with its host sockets attributed (attribute_host_sockets).
Snapshot with_attribution(Snapshot snap);

/// The Connections of a snapshot by device and cm id, indexed once: a listing of
/// ten thousand siw ids has as many kernel sockets to look up.
class ConnectionIndex {
  public:
    explicit ConnectionIndex(const Snapshot& snap);
    /// The Connection s is attributed to (rdma_device and rdma_cm_id), or nullptr
    /// when it is not attributed or the snapshot lacks that cm_id.
    const Connection* of(const HostSocket& s) const;

  private:
    std::map<std::pair<std::string, std::uint32_t>, const Connection*> by_id_;
};

} // namespace rdmastat
