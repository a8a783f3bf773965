// SPDX-License-Identifier: MIT
#pragma once

/// A JSON parser (RFC 8259) that reads a stream in blocks, never holding the
/// whole text (a snapshot of a million connections is 300 MB), and reports each
/// value to a handler as it is read. Strings must be UTF-8 (RFC 3629: no
/// overlong form, no surrogate) with no raw control character, and a \u escape
/// must not be a lone surrogate. A handler may also pull a value straight from
/// the text (JsonPull), for a reader that knows the shape it expects.

#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>
#include <string_view>

namespace rdmastat {

class JsonParser;

/// One value pulled straight from the text, token by token: no event or
/// document is built. Each call skips the space before its token. A call that
/// returns false, or meets text that is not JSON, may have read part of the
/// value: the parser then reads the whole value again from its start, through
/// the handler's callbacks.
class JsonPull {
  public:
    enum class Member { key, end, other };
    explicit JsonPull(JsonParser& parser) : p_(parser) {}

    bool begin_object();
    /// After an object's '{' (first) or after a member's value: the next key,
    /// read with its ':' (key views it until the next call), or the '}'.
    Member next_member(bool first, std::string_view& key);
    bool string(std::string& out);
    /// An unsigned integer that fits 64 bits.
    bool number(std::uint64_t& out);
    bool boolean(bool& out);
    /// True when the value is null (read); false, having read nothing, when not.
    bool null();

  private:
    JsonParser& p_;
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
    /// True when it read the whole value and took it; false to have it read
    /// again from its start through the callbacks. It must leave no trace when
    /// it returns false, or when a JsonPull call fails.
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
