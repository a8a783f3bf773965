// SPDX-License-Identifier: MIT
#pragma once

/// The listing written as its connections come, so that a listing of any
/// length (a saved snapshot of ten million connections) needs no more memory
/// than its output buffers: JSON is written connection by connection, text in
/// blocks of rows (render/text.h, render/json.h).

#include "model/model.h"

#include <cstddef>
#include <vector>

namespace rdmastat {

class ListingWriter : public ConnectionSink {
  public:
    /// Ends the listing. snap gives what follows the connections (in JSON, the
    /// host data it collected); its own connections are not written.
    virtual void finish(const Snapshot& snap) = 0;
};

/// The rows a text listing aligns at a time: a listing this long or shorter is
/// one table; a longer one is written a block at a time, each block aligned
/// with those before it (a column widens where a later block needs it, never
/// narrows).
inline constexpr std::size_t listing_block_rows = 65536;

/// The whole listing of connections through w: begin, each, finish.
inline void write_listing(ListingWriter& w, const Snapshot& snap,
                          const std::vector<const Connection*>& connections) {
    w.begin(snap);
    for (const Connection* c : connections)
        w.connection(*c);
    w.finish(snap);
}

} // namespace rdmastat
