// SPDX-License-Identifier: MIT
#pragma once

/// The fast path of snapshot loading: a connection read straight from its
/// parser events, without building its JSON document.

#include "collect/json_stream.h"
#include "model/model.h"

#include <optional>
#include <vector>

namespace rdmastat {

/// The Connection of one element of "connections" when it has the usual shape
/// (an object of known keys, each once, with values of the right types and valid
/// addresses: nearly always); nullopt otherwise, and the caller reads the
/// element's document instead, which names what is wrong. Where both succeed
/// they give the same Connection.
std::optional<Connection> fast_connection(const std::vector<JsonEvent>& events);

} // namespace rdmastat
