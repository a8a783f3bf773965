// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>

namespace rdmastat {

/// s with ASCII letters lowered; other bytes unchanged (no locale).
inline std::string lower(std::string_view s) {
    std::string out(s);
    for (char& ch : out)
        if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
    return out;
}

} // namespace rdmastat
