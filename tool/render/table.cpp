// SPDX-License-Identifier: MIT
#include "render/table.h"

#include <algorithm>
#include <cstdint>

namespace rdmastat {
namespace {

// Length of the valid UTF-8 sequence starting at s[i] (1 to 4), or 0 when there is none.
std::size_t utf8_length(std::string_view s, std::size_t i) {
    auto at = [&](std::size_t k) { return static_cast<std::uint8_t>(s[k]); };
    std::uint8_t b = at(i);
    if (b < 0x80) return 1;
    std::size_t n = b >= 0xc2 && b <= 0xdf   ? 2
                    : b >= 0xe0 && b <= 0xef ? 3
                    : b >= 0xf0 && b <= 0xf4 ? 4
                                             : 0;
    if (!n || i + n > s.size()) return 0;
    // The second byte's range excludes overlong forms, surrogates and code points past U+10FFFF.
    std::uint8_t lo = b == 0xe0 ? 0xa0 : b == 0xf0 ? 0x90 : 0x80;
    std::uint8_t hi = b == 0xed ? 0x9f : b == 0xf4 ? 0x8f : 0xbf;
    if (at(i + 1) < lo || at(i + 1) > hi) return 0;
    for (std::size_t k = i + 2; k < i + n; ++k)
        if (at(k) < 0x80 || at(k) > 0xbf) return 0;
    return n;
}

} // namespace

std::string printable(std::string_view s) {
    static constexpr char hex[] = "0123456789abcdef";
    auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(s[k]); };
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        std::size_t n = utf8_length(s, i);
        bool escape = n == 0 || (n == 1 && (byte(i) < 0x20 || byte(i) == 0x7f)) ||
                      (n == 2 && byte(i) == 0xc2 && byte(i + 1) < 0xa0);
        for (std::size_t end = i + std::max<std::size_t>(n, 1); i < end; ++i) {
            if (escape)
                out += {'\\', 'x', hex[byte(i) >> 4], hex[byte(i) & 0xf]};
            else
                out += s[i];
        }
    }
    return out;
}

void Table::add(std::vector<std::string> row) {
    for (std::string& cell : row)
        cell = printable(cell);
    rows_.push_back(std::move(row));
}

void Table::write(std::ostream& out, bool with_header) const {
    std::vector<std::size_t> width(headers_.size(), 0);
    auto measure = [&](const std::vector<std::string>& row) {
        for (std::size_t i = 0; i < row.size() && i < width.size(); ++i)
            width[i] = std::max(width[i], row[i].size());
    };
    if (with_header) measure(headers_);
    for (const auto& r : rows_)
        measure(r);

    auto emit = [&](const std::vector<std::string>& row) {
        std::string line;
        for (std::size_t i = 0; i < row.size() && i < width.size(); ++i) {
            line += row[i];
            if (i + 1 < row.size()) line.append(width[i] - row[i].size() + 2, ' ');
        }
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        out << line << '\n';
    };
    if (with_header) emit(headers_);
    for (const auto& r : rows_)
        emit(r);
}

} // namespace rdmastat
