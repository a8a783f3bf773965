// SPDX-License-Identifier: MIT
#include "collect/json_stream.h"

#include <iterator>
#include <string_view>
#include <vector>

namespace rdmastat {

struct JsonElementAccess {
    static std::vector<JsonEvent>& events(JsonElement& e) { return e.events_; }
    static void clear(JsonElement& e) {
        e.events_.clear();
        e.document_.reset();
    }
};

namespace {

using json = nlohmann::ordered_json;

// Thrown by Shape when the text breaks the snapshot limits.
struct ShapeViolation {
    std::string message;
};

// Judges the limits on each block of text before the parser reads it.
// Positions count bytes read, as the parser's do; the JSON itself is judged by
// the parser.
class Shape {
  public:
    Shape(std::size_t max_depth, std::size_t max_keys)
        : max_depth_(max_depth), max_keys_(max_keys) {}

    void scan(const char* text, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) {
            const char ch = text[i];
            if (in_string_) {
                if (escaped_)
                    escaped_ = false;
                else if (ch == '\\')
                    escaped_ = true;
                else if (ch == '"')
                    in_string_ = false;
                continue;
            }
            switch (ch) {
            case '"':
                in_string_ = true;
                break;
            case '{':
            case '[':
                if (keys_.size() >= max_depth_)
                    throw ShapeViolation{"JSON nested deeper than " + std::to_string(max_depth_) +
                                         " levels at byte " + std::to_string(at_ + i + 1)};
                keys_.push_back(ch == '{' ? 0 : array);
                break;
            case '}':
            case ']':
                if (!keys_.empty()) keys_.pop_back();
                break;
            case ':':
                if (!keys_.empty() && keys_.back() != array && ++keys_.back() > max_keys_)
                    throw ShapeViolation{"JSON object with more than " + std::to_string(max_keys_) +
                                         " keys at byte " + std::to_string(at_ + i + 1)};
                break;
            default:
                break;
            }
        }
        at_ += n;
    }

  private:
    static constexpr std::size_t array = std::string_view::npos;
    std::vector<std::size_t> keys_; // per open container; array marks an array
    std::size_t max_depth_, max_keys_;
    std::size_t at_ = 0;
    bool in_string_ = false, escaped_ = false;
};

// The text as the parser's input: read in blocks, each judged by Shape as it
// comes, so the whole file is never held in memory.
class Input {
  public:
    Input(std::istream& in, Shape shape) : in_(in), buf_(1 << 16), shape_(std::move(shape)) {}

    class Iterator {
      public:
        using iterator_category = std::input_iterator_tag;
        using value_type = char;
        using difference_type = std::ptrdiff_t;
        using pointer = const char*;
        using reference = const char&;

        explicit Iterator(Input* in = nullptr) : in_(in) {}
        const char& operator*() const { return in_->buf_[in_->pos_]; }
        Iterator& operator++() {
            ++in_->pos_;
            return *this;
        }
        bool operator==(const Iterator& o) const { return at_end() == o.at_end(); }

      private:
        bool at_end() const { return !in_ || (in_->pos_ == in_->len_ && !in_->refill()); }
        Input* in_;
    };
    Iterator begin() { return Iterator(this); }
    Iterator end() { return Iterator(); }

  private:
    bool refill() {
        in_.read(buf_.data(), static_cast<std::streamsize>(buf_.size()));
        len_ = static_cast<std::size_t>(in_.gcount());
        pos_ = 0;
        shape_.scan(buf_.data(), len_);
        return len_ > 0;
    }
    std::istream& in_;
    std::vector<char> buf_;
    std::size_t pos_ = 0, len_ = 0;
    Shape shape_;
};

// The root's arrays are the bulk of a snapshot (a million connections, say):
// each element is recorded as events, handed over at once and dropped.
// Everything else is kept as parsed, for the checks at the end. The first error of the model is
// kept while the parser goes on, so that a text that is not JSON, or breaks the limits, is reported
// as such first.
class Builder : public nlohmann::json_sax<json> {
  public:
    explicit Builder(const ElementHandler& on_element) : on_element_(on_element) {}

    bool null() override { return in_element() ? event(Kind::null) : value(nullptr); }
    bool boolean(bool v) override {
        return in_element() ? event(Kind::boolean, {}, v ? 1 : 0) : value(v);
    }
    bool number_integer(number_integer_t v) override {
        return in_element() ? event(Kind::signed_number, {}, static_cast<std::uint64_t>(v))
                            : value(v);
    }
    bool number_unsigned(number_unsigned_t v) override {
        return in_element() ? event(Kind::unsigned_number, {}, v) : value(v);
    }
    bool number_float(number_float_t v, const string_t&) override {
        return in_element() ? event(Kind::float_number, {}, 0, v) : value(v);
    }
    bool string(string_t& v) override {
        return in_element() ? event(Kind::string, std::move(v)) : value(std::move(v));
    }
    bool binary(binary_t&) override { return null(); } // JSON text has none
    bool start_object(std::size_t) override {
        if (!in_element()) return open(json::object());
        ++depth_;
        return event(Kind::begin_object);
    }
    bool start_array(std::size_t) override {
        if (in_element()) {
            ++depth_;
            return event(Kind::begin_array);
        }
        if (stack_.size() == 1 && stack_[0]->is_object()) { // a list of the root: streamed
            streaming_ = true;
            index_ = 0;
            json& list = (root[keys_[0]] = json::array());
            stack_.push_back(&list);
            keys_.emplace_back();
            return true;
        }
        return open(json::array());
    }
    bool key(string_t& k) override {
        if (in_element() && depth_ > 0) return event(Kind::key, std::move(k));
        if (stack_.size() == 1 && root.contains(k)) fail(Error(k, "given twice"));
        keys_.back() = std::move(k);
        return true;
    }
    bool end_object() override {
        if (!in_element()) return close();
        --depth_;
        return event(Kind::end_object);
    }
    bool end_array() override {
        if (in_element() && depth_ > 0) {
            --depth_;
            return event(Kind::end_array);
        }
        if (streaming_ && stack_.size() == 2) {
            streaming_ = false;
            stack_.pop_back();
            keys_.pop_back();
            return true;
        }
        return close();
    }
    bool parse_error(std::size_t position, const std::string&,
                     const nlohmann::detail::exception& e) override {
        syntax = "not valid JSON at byte " + std::to_string(position) + ": " + reason(e.what());
        return false;
    }

    json root;                          ///< the document without the elements of its lists
    std::optional<std::string> syntax;  ///< the text is not JSON
    std::optional<std::string> element; ///< the first element on_element refused

  private:
    using Kind = JsonEvent::Kind;

    // Inside a streamed list (at its level or deeper): events are recorded.
    bool in_element() const { return streaming_ && stack_.size() == 2; }
    bool event(Kind kind, std::string text = {}, std::uint64_t number = 0, double real = 0) {
        JsonElementAccess::events(element_).push_back(
            JsonEvent{kind, std::move(text), number, real});
        if (depth_ == 0) element_done(); // a whole element: a scalar or a closed container
        return true;
    }
    void fail(const Error& e) {
        if (!element) element = e.what();
    }
    // Where a new value goes outside the lists: its parent, or the root.
    json* place(json v) {
        if (stack_.empty()) {
            root = std::move(v);
            return &root;
        }
        json& parent = *stack_.back();
        if (parent.is_object()) return &(parent[keys_.back()] = std::move(v));
        parent.push_back(std::move(v));
        return &parent.back();
    }
    bool value(json v) {
        place(std::move(v));
        return true;
    }
    bool open(json v) {
        stack_.push_back(place(std::move(v)));
        keys_.emplace_back();
        return true;
    }
    bool close() {
        stack_.pop_back();
        keys_.pop_back();
        return true;
    }
    void element_done() {
        if (!element) {
            try {
                on_element_(keys_[0], index_, element_);
            } catch (const Error& e) {
                fail(e);
            }
        }
        ++index_;
        JsonElementAccess::clear(element_);
    }
    static std::string reason(std::string_view what);

    const ElementHandler& on_element_;
    std::vector<json*> stack_;      // open containers outside the lists, root first
    std::vector<std::string> keys_; // per open container: an object's current key
    bool streaming_ = false;
    std::size_t index_ = 0;
    std::size_t depth_ = 0; // open containers inside the current element
    JsonElement element_;
};

// The document of events[i...], advancing i past it.
json build(const std::vector<JsonEvent>& events, std::size_t& i) {
    const JsonEvent& e = events[i++];
    switch (e.kind) {
    case JsonEvent::Kind::boolean:
        return e.number != 0;
    case JsonEvent::Kind::unsigned_number:
        return e.number;
    case JsonEvent::Kind::signed_number:
        return static_cast<std::int64_t>(e.number);
    case JsonEvent::Kind::float_number:
        return e.real;
    case JsonEvent::Kind::string:
        return e.text;
    case JsonEvent::Kind::begin_object: {
        json o = json::object();
        while (events[i].kind == JsonEvent::Kind::key) {
            const std::string& k = events[i++].text;
            o[k] = build(events, i);
        }
        ++i; // end_object
        return o;
    }
    case JsonEvent::Kind::begin_array: {
        json a = json::array();
        while (events[i].kind != JsonEvent::Kind::end_array)
            a.push_back(build(events, i));
        ++i;
        return a;
    }
    default:
        return nullptr;
    }
}

// "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error ..."
// → "syntax error ...": the position is reported as a byte offset instead.
std::string Builder::reason(std::string_view what) {
    if (auto p = what.find("] "); what.starts_with("[json.exception.") && p != what.npos)
        what.remove_prefix(p + 2);
    if (auto p = what.find(": "); what.starts_with("parse error") && p != what.npos)
        what.remove_prefix(p + 2);
    return std::string(what);
}

} // namespace

const nlohmann::ordered_json& JsonElement::document() const {
    if (!document_) {
        std::size_t i = 0;
        document_ = events_.empty() ? json() : build(events_, i);
    }
    return *document_;
}

StreamedJson parse_json_stream(std::istream& in, std::size_t max_depth, std::size_t max_keys,
                               const ElementHandler& on_element) {
    StreamedJson out;
    Builder b(on_element);
    try {
        Input input(in, Shape(max_depth, max_keys));
        json::sax_parse(input.begin(), input.end(), &b);
    } catch (const ShapeViolation& v) {
        out.error = v.message;
        return out;
    } catch (const std::ios_base::failure& e) {
        // A read error of the stream (libstdc++ throws it from the file buffer).
        out.error = e.what();
        return out;
    }
    out.error = std::move(b.syntax);
    out.element_error = std::move(b.element);
    out.root = std::move(b.root);
    return out;
}

} // namespace rdmastat
