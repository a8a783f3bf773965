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

namespace {

// Pending text is written to the sink once it reaches this, as a container
// closes; the buffer starts small and doubles up to it (or past it, for a
// longer value).
constexpr std::size_t piece_size = 64 * 1024;
constexpr std::size_t first_size = 4096;

} // namespace

JsonWriter::JsonWriter(std::ostream& sink, bool pretty)
    : buf_(new char[first_size]), pos_(buf_.get()), end_(pos_ + first_size), sink_(sink),
      pretty_(pretty) {}

void JsonWriter::grow(std::size_t n) {
    const auto used = static_cast<std::size_t>(pos_ - buf_.get());
    const auto size = std::max(2 * static_cast<std::size_t>(end_ - buf_.get()), used + n);
    std::unique_ptr<char[]> bigger(new char[size]);
    if (used) std::memcpy(bigger.get(), buf_.get(), used);
    buf_ = std::move(bigger);
    pos_ = buf_.get() + used;
    end_ = buf_.get() + size;
}

void JsonWriter::put(std::string_view s) {
    char* p = room(s.size());
    if (!s.empty()) std::memcpy(p, s.data(), s.size()); // a null data() when empty
    pos_ = p + s.size();
}

void JsonWriter::flush() {
    sink_.write(buf_.get(), pos_ - buf_.get());
    pos_ = buf_.get();
}

void JsonWriter::newline_indent() {
    const std::size_t n = 2 * levels_.size();
    char* p = room(n + 1);
    *p++ = '\n';
    std::memset(p, ' ', n);
    pos_ = p + n;
}

void JsonWriter::before_value() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (levels_.empty()) return;
    const bool comma = !levels_.back().empty;
    levels_.back().empty = false;
    if (comma) put(',');
    if (pretty_) newline_indent();
}

void JsonWriter::before_key() {
    if (!levels_.back().empty) put(',');
    levels_.back().empty = false;
    if (pretty_) newline_indent();
}

void JsonWriter::key(std::string_view k) {
    before_key();
    quoted(k);
    put(pretty_ ? ": " : ":");
    after_key_ = true;
}

void JsonWriter::schema_key(std::string_view k) {
    // key() without the scan for bytes to escape. It runs for every member
    // written: compact output's comma, quoted key and colon are one room()
    // and one copy (through before_key() and put() they cost 30% more).
    if (pretty_) {
        before_key();
        plain_quoted(k);
        put(": ");
        after_key_ = true;
        return;
    }
    char* p = room(k.size() + 4);
    if (!levels_.back().empty) *p++ = ',';
    levels_.back().empty = false;
    *p++ = '"';
    std::memcpy(p, k.data(), k.size());
    p += k.size();
    *p++ = '"';
    *p++ = ':';
    pos_ = p;
    after_key_ = true;
}

void JsonWriter::open(char bracket) {
    before_value();
    put(bracket);
    levels_.push_back(Level{});
}

void JsonWriter::close(char bracket) {
    const bool empty = levels_.back().empty;
    levels_.pop_back();
    if (!empty && pretty_) newline_indent();
    put(bracket);
    if (static_cast<std::size_t>(pos_ - buf_.get()) >= piece_size) flush();
}

void JsonWriter::end() {
    put('\n');
    flush();
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
    if (plain(s)) return plain_quoted(s);
    std::string escaped;
    append_escaped(escaped, s);
    put(escaped);
}

void JsonWriter::plain_quoted(std::string_view s) {
    char* p = room(s.size() + 2);
    *p++ = '"';
    if (!s.empty()) std::memcpy(p, s.data(), s.size());
    p += s.size();
    *p++ = '"';
    pos_ = p;
}

void JsonWriter::string(std::string_view s) {
    before_value();
    quoted(s);
}

void JsonWriter::number(std::uint64_t n) {
    before_value();
    char* p = room(20);
    pos_ = std::to_chars(p, p + 20, n).ptr;
}

void JsonWriter::integer(std::int64_t n) {
    before_value();
    char* p = room(20);
    pos_ = std::to_chars(p, p + 20, n).ptr;
}

void JsonWriter::real(double d) {
    before_value();
    if (!std::isfinite(d)) return put("null");
    // The shortest digits that read back as d, laid out as JavaScript and
    // nlohmann do: 2.0, 0.000125, 1e+16, 1.5e-05.
    std::string out;
    char buf[32];
    const char* end = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific).ptr;
    const char* p = buf;
    if (*p == '-') out += *p++;
    const char* e = std::find(p, end, 'e');
    std::string digits(p, e);
    if (digits.size() > 1) digits.erase(1, 1); // the point after the first digit
    int exp10 = 0;
    std::from_chars(e + 1 + (e[1] == '+'), end, exp10);
    const int k = static_cast<int>(digits.size());
    const int n = exp10 + 1; // d is 0.DIGITS times 10 to the n
    if (k <= n && n <= 15) {
        out += digits;
        out.append(static_cast<std::size_t>(n - k), '0');
        out += ".0";
    } else if (0 < n && n <= 15) {
        out.append(digits, 0, static_cast<std::size_t>(n));
        out += '.';
        out.append(digits, static_cast<std::size_t>(n));
    } else if (-4 < n && n <= 0) {
        out += "0.";
        out.append(static_cast<std::size_t>(-n), '0');
        out += digits;
    } else {
        out += digits[0];
        if (k > 1) {
            out += '.';
            out.append(digits, 1);
        }
        char exp[16];
        std::snprintf(exp, sizeof(exp), "e%c%02d", n - 1 < 0 ? '-' : '+', std::abs(n - 1));
        out += exp;
    }
    put(out);
}

void JsonWriter::boolean(bool b) {
    before_value();
    put(b ? "true" : "false");
}

void JsonWriter::null() {
    before_value();
    put("null");
}

} // namespace rdmastat
