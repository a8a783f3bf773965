// SPDX-License-Identifier: MIT
#pragma once

/// Number formatting shared by the text renderers.

#include <cstdio>
#include <string>

namespace rdmastat {

/// v with exactly digits decimals ("%.*f"): fixed(2.5, 3) is "2.500".
inline std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

/// A kernel owner as ps shows kernel threads: "[nvme_rdma]".
inline std::string kernel_owner_text(const std::string& module) {
    return "[" + module + "]";
}

} // namespace rdmastat
