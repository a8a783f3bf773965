// SPDX-License-Identifier: MIT
#include "analysis/select.h"

namespace rdmastat {
namespace {

bool in_scope(const Connection& c, Scope scope) {
    switch (scope) {
    case Scope::connected:
        return has_peer(c);
    case Scope::listening:
        return is_listening(c);
    case Scope::all:
        return true;
    }
    return true;
}

int family_of(const Connection& c) {
    if (c.local) return c.local->address.family;
    if (c.peer) return c.peer->address.family;
    return 0;
}

} // namespace

bool has_peer(const Connection& c) {
    if (c.via == Via::verbs) return c.qp && c.qp->type && connected_type(*c.qp->type);
    return c.peer && !c.peer->address.is_any();
}

bool is_listening(const Connection& c) {
    if (c.via == Via::verbs) return c.qp && c.qp->type == QpType::ud;
    return c.state == CmState::listen;
}

bool selected(const Connection& c, const Selection& sel, const Filter& filter) {
    return in_scope(c, sel.scope) && (!sel.family || family_of(c) == *sel.family) &&
           filter.matches(c);
}

std::vector<const Connection*> select(const Snapshot& snap, const Selection& sel,
                                      const Filter& filter) {
    std::vector<const Connection*> out;
    for (const auto& c : snap.connections)
        if (selected(c, sel, filter)) out.push_back(&c);
    return out;
}

} // namespace rdmastat
