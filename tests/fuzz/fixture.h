// SPDX-License-Identifier: MIT
#pragma once

// The lab's captured snapshot (tests/fixtures), for fuzz targets that run what
// they parsed against real connections, processes and sockets.

#include "../unit/fixtures_dir.h"
#include "collect/snapshot_file.h"

#include <cstdlib>
#include <iostream>

namespace rdmastat::fuzz {

inline const Snapshot& lab_snapshot() {
    static const Snapshot snap = [] {
        auto loaded = load_snapshot_file(fixtures_dir() + "/snapshot-host-user.json");
        if (!loaded) {
            std::cerr << "fuzz: " << loaded.error() << '\n';
            std::abort();
        }
        return std::move(loaded.value());
    }();
    return snap;
}

} // namespace rdmastat::fuzz
