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
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace rdmastat {

class JsonWriter {
  public:
    /// Appends to out; the caller may take out's text away between values.
    JsonWriter(std::string& out, bool pretty) : out_(out), pretty_(pretty) {}
    /// Writes to sink, in pieces of about 64 KiB as objects and arrays close:
    /// a list of a million connections is never held whole. end() writes the
    /// rest.
    JsonWriter(std::ostream& sink, bool pretty) : out_(own_), sink_(&sink), pretty_(pretty) {}

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
    /// With a sink: ends the document with a newline and writes what is left.
    void end();

  private:
    struct Level {
        bool empty = true;
    };
    void before_value();
    /// What goes before a value written in one append: compact output's comma
    /// at piece (pretty output's comma and indent straight to out_); returns
    /// where the value goes.
    char* lead(char* piece);
    void newline_indent();
    void open(char bracket);
    void close(char bracket);
    void quoted(std::string_view s);
    void before_key();

    std::string own_;
    std::string& out_;
    std::ostream* sink_ = nullptr;
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
