// SPDX-License-Identifier: MIT
#pragma once

/// Counts for `rdmastat -s`.

#include "model/model.h"

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace rdmastat {

struct ProcessCount {
    Owner owner; ///< pid and comm, or kernel name; empty when the kernel did not say
    std::size_t count = 0;
};

struct Summary {
    std::size_t total = 0;
    std::size_t listening = 0; ///< in LISTEN
    std::size_t with_peer = 0; ///< with a peer address
    std::size_t other = 0;     ///< neither in LISTEN nor with a peer (bound, idle, ...)
    std::map<std::string, std::size_t> by_device;
    std::map<std::string, std::size_t> by_transport;
    std::map<std::string, std::size_t> by_state;
    std::vector<ProcessCount> by_process; ///< most connections first, then by pid
};

/// Counts of the given connections. An id in LISTEN with a peer counts in listening
/// and with_peer, so total can be less than listening + with_peer + other.
Summary summarize(const std::vector<const Connection*>& connections);

} // namespace rdmastat
