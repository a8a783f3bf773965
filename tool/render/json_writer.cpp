// SPDX-License-Identifier: MIT
#include "render/json_writer.h"

#include "common/text.h"

#include <charconv>
#include <cstring>

namespace rdmastat {

void JsonWriter::newline_indent() {
    out_ += '\n';
    out_.append(2 * levels_.size(), ' ');
}

void JsonWriter::before_value() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (levels_.empty()) return;
    if (!levels_.back().empty) out_ += ',';
    levels_.back().empty = false;
    if (pretty_) newline_indent();
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
    before_value();
    out_ += bracket;
    levels_.push_back(Level{});
}

void JsonWriter::close(char bracket) {
    const bool empty = levels_.back().empty;
    levels_.pop_back();
    if (!empty && pretty_) newline_indent();
    out_ += bracket;
}

namespace {

// Anything but plain printable ASCII is left to nlohmann, whose escapes and
// U+FFFD replacement the rest of the output uses. Out of line: quoted() runs
// for every key and string, and this almost never.
[[gnu::noinline]] void append_escaped(std::string& out, std::string_view s) {
    out += json_common::json(std::string(s))
               .dump(-1, ' ', false, json_common::json::error_handler_t::replace);
}

} // namespace

void JsonWriter::quoted(std::string_view s) {
    for (char ch : s)
        if (!json_plain[static_cast<unsigned char>(ch)]) return append_escaped(out_, s);
    out_ += '"';
    out_ += s;
    out_ += '"';
}

void JsonWriter::string(std::string_view s) {
    before_value();
    quoted(s);
}

void JsonWriter::number(std::uint64_t n) {
    before_value();
    char buf[24];
    auto end = std::to_chars(buf, buf + sizeof(buf), n).ptr;
    out_.append(buf, end);
}

void JsonWriter::boolean(bool b) {
    before_value();
    out_ += b ? "true" : "false";
}

void JsonWriter::null() {
    before_value();
    out_ += "null";
}

void JsonWriter::value(const json_common::json& j) {
    before_value();
    std::string text =
        j.dump(pretty_ ? 2 : -1, ' ', false, json_common::json::error_handler_t::replace);
    if (!pretty_) {
        out_ += text;
        return;
    }
    // Strings hold no raw newline (dump escapes it): every one starts a line to indent.
    for (char ch : text) {
        out_ += ch;
        if (ch == '\n') out_.append(2 * levels_.size(), ' ');
    }
}

} // namespace rdmastat
