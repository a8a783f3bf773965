// SPDX-License-Identifier: MIT
#include "render/json_writer.h"

#include "common/text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace rdmastat {

void JsonWriter::newline_indent() {
    out_ += '\n';
    out_.append(2 * levels_.size(), ' ');
}

void JsonWriter::before_value() {
    char piece[1];
    const char* end = lead(piece);
    out_.append(piece, static_cast<std::size_t>(end - piece));
}

char* JsonWriter::lead(char* piece) {
    if (after_key_) {
        after_key_ = false;
        return piece;
    }
    if (levels_.empty()) return piece;
    const bool comma = !levels_.back().empty;
    levels_.back().empty = false;
    if (pretty_) {
        if (comma) out_ += ',';
        newline_indent();
    } else if (comma) {
        *piece++ = ',';
    }
    return piece;
}

void JsonWriter::before_key() {
    if (!levels_.back().empty) out_ += ',';
    levels_.back().empty = false;
    if (pretty_) newline_indent();
}

void JsonWriter::key(std::string_view k) {
    before_key();
    quoted(k);
    out_ += pretty_ ? ": " : ":";
    after_key_ = true;
}

void JsonWriter::schema_key(std::string_view k) {
    // This runs for every member written: the comma, the quoted key and the
    // colon go out in one append, built on the stack.
    char piece[64];
    if (pretty_ || k.size() > sizeof(piece) - 4) return key(k);
    char* p = piece;
    if (!levels_.back().empty) *p++ = ',';
    levels_.back().empty = false;
    *p++ = '"';
    std::memcpy(p, k.data(), k.size());
    p += k.size();
    *p++ = '"';
    *p++ = ':';
    out_.append(piece, static_cast<std::size_t>(p - piece));
    after_key_ = true;
}

void JsonWriter::open(char bracket) {
    char piece[2];
    char* p = lead(piece);
    *p++ = bracket;
    out_.append(piece, static_cast<std::size_t>(p - piece));
    levels_.push_back(Level{});
}

void JsonWriter::close(char bracket) {
    const bool empty = levels_.back().empty;
    levels_.pop_back();
    if (!empty && pretty_) newline_indent();
    out_ += bracket;
    if (sink_ && out_.size() >= 64 * 1024) {
        *sink_ << out_;
        out_.clear();
    }
}

void JsonWriter::end() {
    out_ += '\n';
    if (!sink_) return;
    *sink_ << out_;
    out_.clear();
}

namespace {

// How many bytes of s, from i, make one well-formed UTF-8 character (the
// Unicode standard's table 3-7), or 0 when they do not; *bad is then how many
// bytes the one U+FFFD that replaces them stands for: the lead byte and those
// that fit after it.
std::size_t utf8_length(std::string_view s, std::size_t i, std::size_t* bad) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char lead = byte(i);
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xbf; // what the second byte may be
    if (lead >= 0xc2 && lead <= 0xdf)
        n = 2;
    else if (lead >= 0xe0 && lead <= 0xef)
        n = 3, lo = lead == 0xe0 ? 0xa0 : 0x80, hi = lead == 0xed ? 0x9f : 0xbf;
    else if (lead >= 0xf0 && lead <= 0xf4)
        n = 4, lo = lead == 0xf0 ? 0x90 : 0x80, hi = lead == 0xf4 ? 0x8f : 0xbf;
    std::size_t k = 1;
    for (; k < n && i + k < s.size(); ++k) {
        const unsigned char b = byte(i + k);
        if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xbf)) break;
    }
    if (n && k == n) return n;
    *bad = k;
    return 0;
}

// Anything but plain printable ASCII: out of line, quoted() runs for every key
// and string, and this almost never.
[[gnu::noinline]] void append_escaped(std::string& out, std::string_view s) {
    static constexpr char hex[] = "0123456789abcdef";
    out += '"';
    for (std::size_t i = 0; i < s.size();) {
        const auto ch = static_cast<unsigned char>(s[i]);
        if (ch >= 0x80) {
            std::size_t bad = 0;
            const std::size_t n = utf8_length(s, i, &bad);
            out.append(n ? s.substr(i, n) : "\xef\xbf\xbd");
            i += n ? n : bad;
            continue;
        }
        ++i;
        if (json_plain[ch] || ch == 0x7f) {
            out += static_cast<char>(ch);
            continue;
        }
        // The short escapes, and \u00XX for the other control bytes.
        static constexpr std::string_view shorts = "\"\\\b\f\n\r\t", letters = "\"\\bfnrt";
        if (const auto k = shorts.find(static_cast<char>(ch)); k != shorts.npos)
            out += {'\\', letters[k]};
        else
            out += {'\\', 'u', '0', '0', hex[ch >> 4], hex[ch & 15]};
    }
    out += '"';
}

} // namespace

namespace {

bool plain(std::string_view s) {
    for (char ch : s)
        if (!json_plain[static_cast<unsigned char>(ch)]) return false;
    return true;
}

} // namespace

void JsonWriter::quoted(std::string_view s) {
    if (!plain(s)) return append_escaped(out_, s);
    out_ += '"';
    out_ += s;
    out_ += '"';
}

void JsonWriter::string(std::string_view s) {
    // Each value goes out in one append with its comma, as keys do: at 10k
    // rows the appends, not the text, are the writer's cost.
    char piece[64];
    if (s.size() > sizeof(piece) - 3 || !plain(s)) {
        before_value();
        return quoted(s);
    }
    char* p = lead(piece);
    *p++ = '"';
    if (!s.empty()) std::memcpy(p, s.data(), s.size()); // a null data() when empty
    p += s.size();
    *p++ = '"';
    out_.append(piece, static_cast<std::size_t>(p - piece));
}

void JsonWriter::number(std::uint64_t n) {
    char piece[24];
    char* p = lead(piece);
    p = std::to_chars(p, piece + sizeof(piece), n).ptr;
    out_.append(piece, static_cast<std::size_t>(p - piece));
}

void JsonWriter::integer(std::int64_t n) {
    char piece[24];
    char* p = lead(piece);
    p = std::to_chars(p, piece + sizeof(piece), n).ptr;
    out_.append(piece, static_cast<std::size_t>(p - piece));
}

void JsonWriter::real(double d) {
    before_value();
    if (!std::isfinite(d)) {
        out_ += "null";
        return;
    }
    // The shortest digits that read back as d, laid out as JavaScript and
    // nlohmann do: 2.0, 0.000125, 1e+16, 1.5e-05.
    char buf[32];
    const char* end = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific).ptr;
    const char* p = buf;
    if (*p == '-') out_ += *p++;
    const char* e = std::find(p, end, 'e');
    std::string digits(p, e);
    if (digits.size() > 1) digits.erase(1, 1); // the point after the first digit
    int exp10 = 0;
    std::from_chars(e + 1 + (e[1] == '+'), end, exp10);
    const int k = static_cast<int>(digits.size());
    const int n = exp10 + 1; // d is 0.DIGITS times 10 to the n
    if (k <= n && n <= 15) {
        out_ += digits;
        out_.append(static_cast<std::size_t>(n - k), '0');
        out_ += ".0";
    } else if (0 < n && n <= 15) {
        out_.append(digits, 0, static_cast<std::size_t>(n));
        out_ += '.';
        out_.append(digits, static_cast<std::size_t>(n));
    } else if (-4 < n && n <= 0) {
        out_ += "0.";
        out_.append(static_cast<std::size_t>(-n), '0');
        out_ += digits;
    } else {
        out_ += digits[0];
        if (k > 1) {
            out_ += '.';
            out_.append(digits, 1);
        }
        char exp[16];
        std::snprintf(exp, sizeof(exp), "e%c%02d", n - 1 < 0 ? '-' : '+', std::abs(n - 1));
        out_ += exp;
    }
}

void JsonWriter::boolean(bool b) {
    before_value();
    out_ += b ? "true" : "false";
}

void JsonWriter::null() {
    before_value();
    out_ += "null";
}

} // namespace rdmastat
