// SPDX-License-Identifier: MIT
#pragma once

/// A JSON parser (RFC 8259) that reads a stream in blocks, never holding the
/// whole text (a snapshot of a million connections is 300 MB), and reports each
/// value to a handler as it is read. Strings must be UTF-8 (RFC 3629: no
/// overlong form, no surrogate) with no raw control character, and a \u escape
/// must not be a lone surrogate. A handler may also take a value straight from
/// the text (JsonPull), for a reader that knows the shape it expects.

#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>
#include <string_view>

namespace rdmastat {

/// A value offered as text, for a reader that parses a strict subset of JSON
/// itself, straight from the block (collect/snapshot_fast.h): no event or
/// document is built. A reader that finds anything it does not know leaves it
/// unconsumed, and the value is read through the handler's callbacks instead.
class JsonPull {
  public:
    /// Values up to this long are offered whole.
    static constexpr std::size_t window = 64 * 1024;

    JsonPull(std::string_view text, std::size_t offset) : text_(text), offset_(offset) {}
    /// The text from the value's first byte on: the whole value when it is at
    /// most `window` bytes, or the rest of the text when that is shorter.
    std::string_view text() const { return text_; }
    /// Takes the value as the first n bytes of text().
    void consume(std::size_t n) { consumed_ = n; }
    std::size_t consumed() const { return consumed_; }
    /// How many bytes of the stream come before the value.
    std::size_t offset() const { return offset_; }

  private:
    std::string_view text_;
    std::size_t offset_;
    std::size_t consumed_ = 0;
};

/// What the parser reports, value by value, in document order. Strings and
/// keys view text that holds only for the call.
class JsonHandler {
  public:
    virtual ~JsonHandler() = default;
    virtual void null() = 0;
    virtual void boolean(bool v) = 0;
    virtual void signed_number(std::int64_t v) = 0; ///< a negative integer
    virtual void unsigned_number(std::uint64_t v) = 0;
    virtual void float_number(double v) = 0; ///< with a fraction or exponent, or past 64 bits
    virtual void string(std::string_view v) = 0;
    virtual void key(std::string_view k) = 0;
    virtual void start_object() = 0;
    virtual void end_object() = 0;
    virtual void start_array() = 0;
    virtual void end_array() = 0;
    /// Asked before each value: whether to offer it to pull() first.
    virtual bool pull_next() const { return false; }
    /// True when it read the whole value from the text, took it and consumed
    /// its bytes; false to have it read through the callbacks instead, having
    /// left no trace. The bytes it consumes must be valid JSON: they are not
    /// judged again.
    virtual bool pull(JsonPull&) { return false; }
};

/// Thrown by parse_json, with the message StreamedJson::error documents
/// (collect/json_stream.h).
struct JsonRefusal {
    std::string message;
};

/// Reads the one JSON value that makes up the whole text of in into handler.
/// Throws JsonRefusal when the text is not JSON, nests containers deeper than
/// max_depth or has an object with more than max_keys keys; the limits are
/// judged as each container opens and each key is read. A read error of the
/// stream is the stream's exception.
void parse_json(std::istream& in, JsonHandler& handler, std::size_t max_depth,
                std::size_t max_keys);

} // namespace rdmastat
