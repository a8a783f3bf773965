// SPDX-License-Identifier: MIT
#pragma once

/// The one JSON writer: every document rdmastat writes goes through it, most of
/// them as schema::write() of a described record (model/schema.h,
/// render/views.h). Its output is compact, or indented by 2 with ": " after
/// keys; strings are written as they are but for '"', '\\' and control bytes,
/// which are escaped, and bytes that are not UTF-8, which become U+FFFD (a
/// comm cut at 15 bytes can split a character), one for each maximal
/// ill-formed subsequence, as nlohmann's dump(..., replace) writes them.

#include "model/schema.h"

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace rdmastat {

class JsonWriter {
  public:
    /// Writes to sink, in pieces of about 64 KiB as objects and arrays close:
    /// a list of a million connections is never held whole. end() writes the
    /// rest with a newline; flush() writes what is pending as it is.
    JsonWriter(std::ostream& sink, bool pretty);
    JsonWriter(const JsonWriter&) = delete;
    JsonWriter& operator=(const JsonWriter&) = delete;

    void begin_object() { open('{'); }
    void end_object() { close('}'); }
    void begin_array() { open('['); }
    void end_array() { close(']'); }
    /// The next member's key; its value follows.
    void key(std::string_view k);
    /// key() for a key with nothing to escape (model/schema.h's): not scanned.
    void schema_key(std::string_view k);
    void string(std::string_view s);
    void number(std::uint64_t n);
    void integer(std::int64_t n);
    /// A finite double (an infinite or NaN one is written as null).
    void real(double d);
    void boolean(bool b);
    void null();
    /// Ends the document with a newline and writes what is left.
    void end();
    /// Writes what is pending to the sink, even mid-document, without
    /// flushing the sink itself.
    void flush();

  private:
    struct Level {
        bool empty = true;
    };
    /// Room for n more bytes at pos_: every write goes through it, so that a
    /// member is a few stores and one copy, not a string append per piece.
    char* room(std::size_t n) {
        if (static_cast<std::size_t>(end_ - pos_) < n) grow(n);
        return pos_;
    }
    void grow(std::size_t n);
    void put(std::string_view s);
    void put(char c) {
        *room(1) = c;
        ++pos_;
    }
    /// What goes before a value: its comma, and pretty output's indent.
    void before_value();
    void newline_indent();
    void open(char bracket);
    void close(char bracket);
    void quoted(std::string_view s);
    /// quoted() for s with nothing to escape.
    void plain_quoted(std::string_view s);
    void before_key();

    /// Uninitialised storage (an event line's writer must not zero a
    /// listing's room): [buf_, pos_) is pending, [pos_, end_) is room.
    std::unique_ptr<char[]> buf_;
    char* pos_ = nullptr;
    char* end_ = nullptr;
    std::ostream& sink_;
    bool pretty_;
    bool after_key_ = false;
    std::vector<Level> levels_;
};

/// doc written as one document and a newline: a described record, or any
/// value model/schema.h's write() takes.
template <typename T> void write_json(std::ostream& out, const T& doc, bool pretty) {
    JsonWriter w(out, pretty);
    schema::write(doc, w);
    w.end();
}

} // namespace rdmastat
