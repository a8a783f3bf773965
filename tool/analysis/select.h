// SPDX-License-Identifier: MIT
#pragma once

/// Which connections a listing shows: netstat's -a/-l default, -4/-6, and the FILTER.

#include "analysis/filter.h"
#include "model/model.h"

#include <optional>
#include <vector>

namespace rdmastat {

enum class Scope {
    connected, ///< default: connections with a peer (has_peer)
    listening, ///< -l: ids in LISTEN and UD QPs (is_listening)
    all,       ///< -a: every connection
};

struct Selection {
    Scope scope = Scope::connected;
    std::optional<int> family; ///< AF_INET or AF_INET6 (-4/-6): ids of that family only
};

/// True when c has a peer: for a cm id, a destination address that is set and
/// not the any address; for a verbs connection, a connected QP type (RC, UC,
/// XRC: past INIT it was moved to RTR towards a peer, whose number NLDEV
/// reports for RC and UC only).
bool has_peer(const Connection& c);

/// True for what -l lists, as netstat -l lists listening TCP and bound UDP
/// sockets: a cm id in LISTEN, and a verbs UD QP (datagrams to any peer).
bool is_listening(const Connection& c);

/// Whether scope, family and filter admit c.
bool selected(const Connection& c, const Selection& sel, const Filter& filter);

/// The connections of snap that scope, family and filter admit, in snapshot order.
std::vector<const Connection*> select(const Snapshot& snap, const Selection& sel,
                                      const Filter& filter);

/// The same as a ConnectionSink: passes on to `to` the connections admitted.
class SelectingSink final : public ConnectionSink {
  public:
    SelectingSink(const Selection& sel, const Filter& filter, ConnectionSink& to)
        : sel_(sel), filter_(filter), to_(to) {}
    void begin(const Snapshot& head) override { to_.begin(head); }
    void connection(const Connection& c) override {
        if (selected(c, sel_, filter_)) to_.connection(c);
    }

  private:
    const Selection& sel_;
    const Filter& filter_;
    ConnectionSink& to_;
};

} // namespace rdmastat
