// SPDX-License-Identifier: MIT
#pragma once

/// Numbers read from text: command-line words, /proc and sysfs entries, snapshot
/// fields. One rule everywhere: the whole text is the number, nothing else.

#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

namespace rdmastat {

/// text as an unsigned number in base (10 or 16): digits only, no sign, no
/// prefix, no spaces, and fitting T; nullopt otherwise (empty text too).
template <typename T> std::optional<T> parse_number(std::string_view text, int base = 10) {
    static_assert(std::is_unsigned_v<T>, "counts, ids and ports are unsigned");
    T v{};
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, base);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return v;
}

/// A TCP/UDP port, 0 to 65535, written "7174" or ":7174".
inline std::optional<std::uint16_t> parse_port(std::string_view text) {
    if (!text.empty() && text.front() == ':') text.remove_prefix(1);
    return parse_number<std::uint16_t>(text);
}

/// A finite, non-negative number of seconds ("2", "0.5", "1e-2"); nullopt for
/// anything else ("nan", "inf", "-1", "1s").
inline std::optional<double> parse_seconds(std::string_view text) {
    double v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() ||
        !std::isfinite(v) || v < 0)
        return std::nullopt;
    return v;
}

} // namespace rdmastat
