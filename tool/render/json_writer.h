// SPDX-License-Identifier: MIT
#pragma once

/// A streaming JSON writer whose output is byte for byte what nlohmann's dump
/// writes for the same document (compact, or indented by 2 with ": " after keys),
/// strings not valid UTF-8 included (their bad bytes become U+FFFD). For lists
/// too long to build as one document first: a million connections.

#include "render/json_common.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rdmastat {

class JsonWriter {
  public:
    /// Appends to out; the caller may take out's text away between values.
    JsonWriter(std::string& out, bool pretty) : out_(out), pretty_(pretty) {}

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
    void boolean(bool b);
    void null();
    /// A whole document as the next value, indented to where it goes.
    void value(const json_common::json& j);

  private:
    struct Level {
        bool empty = true;
    };
    void before_value();
    void newline_indent();
    void open(char bracket);
    void close(char bracket);
    void quoted(std::string_view s);
    void before_key();

    std::string& out_;
    bool pretty_;
    bool after_key_ = false;
    std::vector<Level> levels_;
};

} // namespace rdmastat
