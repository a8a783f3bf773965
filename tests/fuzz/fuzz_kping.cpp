// SPDX-License-Identifier: MIT
// libFuzzer target: rdmastat_kping's generic netlink dump parser.
#include "collect/kping.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    (void)rdmastat::parse_kping_reply(rdmastat::Bytes(data, data + size));
    return 0;
}
