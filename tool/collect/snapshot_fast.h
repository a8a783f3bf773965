// SPDX-License-Identifier: MIT
#pragma once

/// The fast path of snapshot loading: a connection pulled straight from the
/// text, driven by its description in model/schema.h, without building events
/// or a JSON document.

#include "collect/json_stream.h"
#include "model/model.h"

namespace rdmastat {

/// Reads one element of "connections" into out when it has the usual shape
/// (an object of known keys, each once and in the order writers put them, with
/// values of the right types and valid names and addresses: nearly always).
/// Returns false otherwise, with out untouched, and the caller reads the
/// element's document instead, which names what is wrong. Where both succeed
/// they give the same Connection.
bool fast_connection(JsonPull& pull, Connection& out);

} // namespace rdmastat
