// SPDX-License-Identifier: MIT
// libFuzzer target: what a ping peer sends (ping/wire.h). The first byte picks
// the local capacity the advertisement is judged against; the rest is the
// message, also read as a hello and printed as -v would print it.
#include "ping/wire.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::uint32_t capacities[] = {1, 26, 64, 65535, rdmastat::ping::max_buffer};
    const std::uint32_t capacity = capacities[data[0] % 5];
    std::span<const std::uint8_t> message(data + 1, size - 1);
    (void)rdmastat::ping::parse_advertisement(message, capacity);
    (void)rdmastat::ping::parse_hello(message);
    (void)rdmastat::ping::printable_prefix(message);
    return 0;
}
