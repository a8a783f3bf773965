// SPDX-License-Identifier: MIT
#pragma once

#include <array>
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

/// The bytes a JSON string holds as they are, with no escape: printable ASCII
/// but '"' and '\\'. The JSON writer and the snapshot reader's fast path test
/// each byte against it.
inline constexpr auto json_plain = [] {
    std::array<bool, 256> t{};
    for (int c = 0x20; c <= 0x7e; ++c)
        t[static_cast<std::size_t>(c)] = c != '"' && c != '\\';
    return t;
}();

} // namespace rdmastat
