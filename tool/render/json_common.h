// SPDX-License-Identifier: MIT
#pragma once

/// JSON pieces the lsof and check renderers share with the schema of
/// rdmastat(8): endpoints, owners, host sockets, the version header.

#include "model/model.h"
#include "model/names.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <type_traits>

namespace rdmastat {

/// nlohmann would write a model enum as its number; every JSON writer names it.
template <typename J> void to_json(J& j, CmState v) {
    j = name_of(v);
}
template <typename J> void to_json(J& j, QpState v) {
    j = name_of(v);
}
template <typename J> void to_json(J& j, QpType v) {
    j = name_of(v);
}
template <typename J> void to_json(J& j, PortSpace v) {
    j = name_of(v);
}
template <typename J> void to_json(J& j, SnapshotSource v) {
    j = name_of(v);
}
template <typename J> void to_json(J& j, ResourceKind v) {
    j = name_of(v);
}
template <typename J> void to_json(J& j, Transport v) {
    j = name_of(v);
}

} // namespace rdmastat

namespace rdmastat::json_common {

using json = nlohmann::ordered_json;

/// j[key] = v when v is known; a model enum by its name.
template <typename T> void put(json& j, const char* key, const std::optional<T>& v) {
    if (!v) return;
    if constexpr (std::is_enum_v<T>)
        j[key] = name_of(*v);
    else
        j[key] = *v;
}

/// {"address": "10.0.0.1", "port": 7174}
json endpoint(const Endpoint& e);
/// A connection's "local", "peer", "mapped_local", "mapped_peer" (each when known).
void put_addresses(json& j, const Connection& c);
/// One connection as "connections" holds it in the snapshot schema.
json connection(const Connection& c);
/// {"pid","tid","comm","uid","user"} (each when known), {"kernel": NAME}, or {}.
json owner(const Owner& o);
/// {"state","local","peer","inode","uid"} plus "pid", "fd", "comm" (the process
/// holding it, comm given separately) and "rdma_device", "rdma_cm_id" when known.
json host_socket(const HostSocket& s, const std::optional<std::string>& comm);
/// {"version": 1, "source": ...}
json header(const Snapshot& snap);
/// Writes j and a newline, indented with pretty. Strings from the system need not
/// be UTF-8 (a comm cut at 15 bytes can split a character): invalid bytes become
/// U+FFFD instead of failing the whole output.
void emit(std::ostream& out, const json& j, bool pretty);

} // namespace rdmastat::json_common
