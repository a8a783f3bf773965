// SPDX-License-Identifier: MIT
#pragma once

/// Which connections a listing shows: netstat's -a/-l default, -4/-6, and the FILTER.

#include "analysis/filter.h"
#include "model/model.h"

#include <optional>
#include <vector>

namespace rdmastat {

enum class Scope {
    connected, ///< default: ids with a peer address
    listening, ///< -l: ids in LISTEN
    all,       ///< -a: every id
};

struct Selection {
    Scope scope = Scope::connected;
    std::optional<int> family; ///< AF_INET or AF_INET6 (-4/-6): ids of that family only
};

/// True when c has a peer: a destination address that is set and not the any address.
bool has_peer(const Connection& c);

/// The connections of snap that scope, family and filter admit, in snapshot order.
std::vector<const Connection*> select(const Snapshot& snap, const Selection& sel,
                                      const Filter& filter);

} // namespace rdmastat
