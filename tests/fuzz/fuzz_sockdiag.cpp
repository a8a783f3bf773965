// SPDX-License-Identifier: MIT
// libFuzzer target: the sock_diag (inet_diag) dump parser.
#include "collect/sockdiag_parse.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    (void)rdmastat::parse_inet_diag_dump(rdmastat::Bytes(data, data + size));
    return 0;
}
