// SPDX-License-Identifier: MIT
// libFuzzer target: the rdmastat module's generic netlink dump parser.
#include "collect/module_parse.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    (void)rdmastat::parse_module_dump(rdmastat::Bytes(data, data + size));
    return 0;
}
