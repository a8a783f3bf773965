// SPDX-License-Identifier: MIT
#include "render/table.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

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

void append_printable(std::string& out, std::string_view s) {
    // Printable ASCII, nearly every cell, is kept as is.
    if (std::all_of(s.begin(), s.end(), [](char ch) { return ch >= 0x20 && ch < 0x7f; })) {
        out += s;
        return;
    }
    static constexpr char hex[] = "0123456789abcdef";
    auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(s[k]); };
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
}

std::string printable(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    append_printable(out, s);
    return out;
}

void Table::cell(std::string_view text) {
    append_printable(text_, text);
    ends_.push_back(text_.size());
}

void Table::add(const std::vector<std::string>& row) {
    for (const std::string& c : row)
        cell(c);
    end_row();
}

void Table::write(std::ostream& out, bool with_header) const {
    std::vector<std::size_t> width;
    write_rows(out, with_header, width);
}

void Table::flush(std::ostream& out, bool with_header) {
    write_rows(out, with_header && !flushed_, width_);
    flushed_ = true;
    text_.clear();
    ends_.clear();
    rows_.clear();
    marks_.clear();
}

void Table::write_rows(std::ostream& out, bool with_header, std::vector<std::size_t>& width) const {
    auto cell = [&](std::size_t k) {
        std::size_t begin = k == 0 ? 0 : ends_[k - 1];
        return std::string_view(text_).substr(begin, ends_[k] - begin);
    };
    width.resize(headers_.size(), 0);
    if (with_header)
        for (std::size_t i = 0; i < headers_.size(); ++i)
            width[i] = std::max(width[i], headers_[i].size());
    for (std::size_t r = 0, k = 0; r < rows_.size(); ++r)
        for (std::size_t i = 0; k < rows_[r]; ++i, ++k)
            if (i < width.size()) width[i] = std::max(width[i], cell(k).size());

    // Each line is written in place, at most line_max bytes, and the buffer
    // goes out when the next line might not fit.
    std::size_t line_max = marked_ ? 3 : 1;
    for (std::size_t w : width)
        line_max += w + 2;
    std::string buf(std::max<std::size_t>(64 * 1024, 2 * line_max), '\0');
    std::size_t used = 0;
    auto emit = [&](char mark, std::size_t n, auto get) {
        if (buf.size() - used < line_max) {
            out.write(buf.data(), static_cast<std::streamsize>(used));
            used = 0;
        }
        char* const start = buf.data() + used;
        char* p = start;
        if (marked_) {
            *p++ = mark;
            *p++ = ' ';
        }
        for (std::size_t i = 0; i < n && i < width.size(); ++i) {
            std::string_view c = get(i);
            std::memcpy(p, c.data(), c.size());
            p += c.size();
            if (i + 1 < n) {
                const std::size_t pad = width[i] - c.size() + 2;
                std::memset(p, ' ', pad);
                p += pad;
            }
        }
        while (p > start && p[-1] == ' ')
            --p;
        *p++ = '\n';
        used = static_cast<std::size_t>(p - buf.data());
    };
    if (with_header)
        emit(' ', headers_.size(), [&](std::size_t i) { return std::string_view(headers_[i]); });
    for (std::size_t r = 0; r < rows_.size(); ++r) {
        std::size_t first = r == 0 ? 0 : rows_[r - 1];
        emit(marked_ ? marks_[r] : ' ', rows_[r] - first,
             [&](std::size_t i) { return cell(first + i); });
    }
    out.write(buf.data(), static_cast<std::streamsize>(used));
}

} // namespace rdmastat
