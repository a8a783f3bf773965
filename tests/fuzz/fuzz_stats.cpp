// SPDX-License-Identifier: MIT
// libFuzzer target: NLDEV statistics replies (a port's counters, QP-bound counters).
#include "collect/stats_parse.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    rdmastat::Bytes bytes(data, data + size);
    (void)rdmastat::parse_port_stat(bytes);
    (void)rdmastat::parse_qp_counter_dump(bytes);
    return 0;
}
