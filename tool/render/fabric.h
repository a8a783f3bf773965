// SPDX-License-Identifier: MIT
#pragma once

/// Output of `rdmastat fabric`: one row per connection with both its ends,
/// as text or JSON.

#include "analysis/fabric.h"

#include <ostream>

namespace rdmastat {

struct FabricTextOptions {
    bool header = true;    ///< false with -H
    bool extended = false; ///< -e: each end's container and pod
};

/// Status, Transport, then for each end Host, Device, Address, State (the CM
/// state, "/" and the QP's state when known) and Owner (as the listing's -p
/// writes it), and with extended its Container and Pod. An end the view does
/// not have shows its peer address, as the end it has sees it, and "-" in the
/// other cells; a half-open row names the host that holds that address.
void render_fabric(std::ostream& out, const FabricView& view, const FabricTextOptions& opts);

} // namespace rdmastat
