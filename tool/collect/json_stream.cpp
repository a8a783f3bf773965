// SPDX-License-Identifier: MIT
#include "collect/json_stream.h"

#include "collect/json_parser.h"

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

// The root's arrays are the bulk of a snapshot (a million connections, say):
// each element is recorded as events, handed over at once and dropped.
// Everything else is kept as parsed, for the checks at the end. The first error
// of the model is kept while the parser goes on, so that a text that is not
// JSON, or breaks the limits, is reported as such first.
class Builder : public JsonHandler {
  public:
    explicit Builder(const JsonStreamHandlers& on) : on_(on) {}

    // The elements of the root lists are offered to the fast handler.
    bool pull_next() const override { return in_element() && depth_ == 0; }
    bool pull(JsonPull& pull) override {
        if (!on_.fast || element) return false;
        if (!on_.fast(keys_[0], index_, pull)) return false;
        ++index_;
        return true;
    }

    void null() override { in_element() ? event(Kind::null) : value(nullptr); }
    void boolean(bool v) override { in_element() ? event(Kind::boolean, {}, v ? 1 : 0) : value(v); }
    void signed_number(std::int64_t v) override {
        in_element() ? event(Kind::signed_number, {}, static_cast<std::uint64_t>(v)) : value(v);
    }
    void unsigned_number(std::uint64_t v) override {
        in_element() ? event(Kind::unsigned_number, {}, v) : value(v);
    }
    void float_number(double v) override {
        in_element() ? event(Kind::float_number, {}, 0, v) : value(v);
    }
    void string(std::string_view v) override {
        in_element() ? event(Kind::string, v) : value(std::string(v));
    }
    void start_object() override {
        if (!in_element()) return open(json::object());
        ++depth_;
        event(Kind::begin_object);
    }
    void start_array() override {
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
            if (on_.list && !element) {
                try {
                    on_.list(keys_[0], root);
                } catch (const Error& e) {
                    fail(e);
                }
            }
            return;
        }
        open(json::array());
    }
    void key(std::string_view k) override {
        if (in_element() && depth_ > 0) return event(Kind::key, k);
        if (stack_.size() == 1 && root.contains(k)) fail(Error(std::string(k), "given twice"));
        keys_.back() = k;
    }
    void end_object() override {
        if (!in_element()) return close();
        --depth_;
        event(Kind::end_object);
    }
    void end_array() override {
        if (in_element() && depth_ > 0) {
            --depth_;
            return event(Kind::end_array);
        }
        if (streaming_ && stack_.size() == 2) {
            streaming_ = false;
            stack_.pop_back();
            keys_.pop_back();
            return;
        }
        close();
    }

    json root;                          ///< the document without the elements of its lists
    std::optional<std::string> element; ///< the first error of a handler

  private:
    using Kind = JsonEvent::Kind;

    // Inside a streamed list (at its level or deeper): events are recorded.
    bool in_element() const { return streaming_ && stack_.size() == 2; }
    void event(Kind kind, std::string_view text = {}, std::uint64_t number = 0, double real = 0) {
        auto& events = JsonElementAccess::events(element_);
        JsonEvent& e = events.emplace_back();
        e.kind = kind;
        e.text = text;
        e.number = number;
        e.real = real;
        if (depth_ == 0) element_done(); // a whole element: a scalar or a closed container
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
    void value(json v) { place(std::move(v)); }
    void open(json v) {
        stack_.push_back(place(std::move(v)));
        keys_.emplace_back();
    }
    void close() {
        stack_.pop_back();
        keys_.pop_back();
    }
    void element_done() {
        if (!element) {
            try {
                on_.element(keys_[0], index_, element_);
            } catch (const Error& e) {
                fail(e);
            }
        }
        ++index_;
        JsonElementAccess::clear(element_);
    }

    const JsonStreamHandlers& on_;
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

} // namespace

const nlohmann::ordered_json& JsonElement::document() const {
    if (!document_) {
        std::size_t i = 0;
        document_ = events_.empty() ? json() : build(events_, i);
    }
    return *document_;
}

StreamedJson parse_json_stream(std::istream& in, std::size_t max_depth, std::size_t max_keys,
                               const JsonStreamHandlers& handlers) {
    StreamedJson out;
    Builder b(handlers);
    try {
        parse_json(in, b, max_depth, max_keys);
    } catch (const JsonRefusal& r) {
        out.error = r.message;
        return out;
    } catch (const std::ios_base::failure& e) {
        // A read error of the stream (libstdc++ throws it from the file buffer).
        out.error = e.what();
        return out;
    }
    out.element_error = std::move(b.element);
    out.root = std::move(b.root);
    return out;
}

} // namespace rdmastat
