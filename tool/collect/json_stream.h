// SPDX-License-Identifier: MIT
#pragma once

/// One JSON document read from a stream in blocks (the text is never held whole:
/// a snapshot of a million connections is 300 MB) and built as a document except
/// the elements of the root object's arrays, each handed over as soon as it is
/// complete, then dropped.

#include "collect/json_parser.h"
#include "common/error.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <istream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace rdmastat {

/// One parser event inside an element, in document order.
struct JsonEvent {
    enum class Kind : std::uint8_t {
        null,
        boolean, ///< value in number (0 or 1)
        unsigned_number,
        signed_number, ///< a negative integer, in number as two's complement
        float_number,  ///< value in real
        string,        ///< text
        key,           ///< text
        begin_object,
        end_object,
        begin_array,
        end_array,
    };
    Kind kind = Kind::null;
    std::string text;
    std::uint64_t number = 0;
    double real = 0;
};

/// An element of a root list as its events; the document they make is built
/// only when asked for (a fast reader may need none).
class JsonElement {
  public:
    const std::vector<JsonEvent>& events() const { return events_; }
    const nlohmann::ordered_json& document() const;

  private:
    friend struct JsonElementAccess; // json_stream.cpp fills it
    std::vector<JsonEvent> events_;
    mutable std::optional<nlohmann::ordered_json> document_;
};

/// Called per element of an array that is a value of the root object: the
/// array's key, the element's index, the element. It may throw Error: the
/// first such error is kept, and no element is handed over after it.
using ElementHandler =
    std::function<void(const std::string& list, std::size_t index, const JsonElement&)>;

/// Tried first on each element: true when it read the whole element and took
/// it, false to have it handed to the ElementHandler instead (see JsonPull).
/// The bytes it takes are not judged against max_depth and max_keys: it must
/// decline an element that nests or has more keys than they allow.
using FastElementHandler =
    std::function<bool(const std::string& list, std::size_t index, JsonPull&)>;

/// Called as a root list opens, with the document read so far (the root's
/// members before the list, and the earlier lists, present but empty).
using ListHandler =
    std::function<void(const std::string& list, const nlohmann::ordered_json& root)>;

struct JsonStreamHandlers {
    ElementHandler element;
    FastElementHandler fast; ///< optional
    ListHandler list;        ///< optional
};

struct StreamedJson {
    /// The document with the root's arrays present but empty.
    nlohmann::ordered_json root;
    /// Why the text is not read: "not valid JSON at byte N: REASON" (RFC 8259,
    /// with strings in UTF-8), nesting deeper than max_depth ("JSON nested
    /// deeper than D levels at byte N"), an object with more than max_keys keys
    /// ("JSON object with more than K keys at byte N"), or a read error. N is
    /// the 1-based position of the byte at fault, one past the end for a text
    /// cut short. The text is read in blocks and each limit judged as it is
    /// reached: a file of '[' stops at the first one too deep.
    std::optional<std::string> error;
    /// The first Error of the handler, or "KEY: given twice" for a root key
    /// given twice.
    std::optional<std::string> element_error;
};

StreamedJson parse_json_stream(std::istream& in, std::size_t max_depth, std::size_t max_keys,
                               const JsonStreamHandlers& handlers);

} // namespace rdmastat
