// SPDX-License-Identifier: MIT
#pragma once

/// The JSON schema (version 1) of rdmastat(8): snake_case keys, addresses and
/// ports as separate fields, absent fields for what a source cannot know.
/// Bytes of strings that are not valid UTF-8 are written as U+FFFD.
/// collect/snapshot_file reads back what write_snapshot_json writes (`--input FILE`).

#include "model/model.h"
#include "render/listing.h"

#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace rdmastat {

/// {"version":1,"source":...,"devices":[...],"connections":[...]} with the given
/// connections (the selection being shown) and all devices, then whichever of
/// "host_sockets", "processes", "resources", the counters and "rdma_cgroups"
/// the snapshot collected (all of each; absent when not collected).
void write_snapshot_json(std::ostream& out, const Snapshot& snap,
                         const std::vector<const Connection*>& connections, bool pretty);
/// The same document written as its connections come (render/listing.h): the
/// header and devices of begin()'s snapshot, then each connection, then at
/// finish() the host data of finish()'s.
std::unique_ptr<ListingWriter> json_listing_writer(std::ostream& out, bool pretty);

} // namespace rdmastat
