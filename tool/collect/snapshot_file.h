// SPDX-License-Identifier: MIT
#pragma once

/// A saved snapshot as a source (`--input FILE`): the JSON that `rdmastat -j -a` writes.

#include "common/error.h"
#include "model/model.h"

#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>

namespace rdmastat {

/// Deepest nesting of arrays and objects parse_snapshot_json accepts.
inline constexpr int max_snapshot_depth = 64;
/// Most keys one JSON object may have (a snapshot's have a dozen at most).
inline constexpr std::size_t max_snapshot_object_keys = 1000;

/// Reads a snapshot written by write_snapshot_json; its source becomes "file".
/// name is used in messages. Unknown keys are ignored (a newer writer may add
/// some); wrong types, bad addresses, and a missing or newer version are a
/// Failure naming the JSON path, e.g. "connections[2].local.address". Text that
/// is not JSON is a Failure "NAME: not valid JSON at byte N: REASON", and nesting
/// deeper than max_snapshot_depth, or an object with more than
/// max_snapshot_object_keys keys, is refused as soon as it is read (see
/// parse_json_stream). The text is read in blocks and never held whole; a root
/// key given twice is a Failure "KEY: given twice".
/// "host_sockets", "processes" and "resources" are read when present, and their
/// Snapshot::*_collected flags say whether they were.
///
/// With a sink, the connections go to it as they are read, and the Snapshot
/// returned has none, when the text gives a supported version and the devices
/// before them (as write_snapshot_json orders them); otherwise they are kept
/// in the Snapshot as without a sink, and the sink is not called. A Failure
/// found after the sink began leaves it with the connections before it.
///
/// size, when not 0, is the text's length in bytes: the connections kept are
/// then reserved for at once, by the size of the first ones read, up to 256 MiB
/// of them, and not grown by doubling (a guess past the end reserves address
/// space it never touches).
Result<Snapshot> parse_snapshot_json(std::istream& in, const std::string& name,
                                     ConnectionSink* sink = nullptr, std::uint64_t size = 0);

/// The same from a file (or FIFO); "-" reads standard input. A directory is a
/// Failure "PATH: Is a directory".
Result<Snapshot> load_snapshot_file(const std::string& path, ConnectionSink* sink = nullptr);

} // namespace rdmastat
