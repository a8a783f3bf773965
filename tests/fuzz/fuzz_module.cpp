// SPDX-License-Identifier: MIT
// libFuzzer target: the rdmastat module's generic netlink dump parsers (its
// cm_id dump and its QP dump), each given every input.
#include "collect/module_parse.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const rdmastat::Bytes bytes(data, data + size);
    (void)rdmastat::parse_module_dump(bytes);
    (void)rdmastat::parse_module_qp_dump(bytes);
    return 0;
}
