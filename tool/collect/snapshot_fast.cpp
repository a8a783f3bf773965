// SPDX-License-Identifier: MIT
#include "collect/snapshot_fast.h"

#include "model/schema.h"

#include <cstdint>
#include <string_view>

namespace rdmastat {
namespace {

using schema::Presence;

// Reads a record straight from its parser events, driven by its description in
// model/schema.h. Anything unusual (an unknown or repeated key, a wrong type, a
// name this build does not know) makes it give up: the slow path then reads the
// document and names what is wrong.
class FastReader {
  public:
    explicit FastReader(const std::vector<JsonEvent>& events) : ev_(events) {}

    template <typename T> std::optional<T> read() {
        T t;
        if (!value(t) || i_ != ev_.size()) return std::nullopt;
        return t;
    }

  private:
    using Kind = JsonEvent::Kind;

    bool at(Kind k) const { return i_ < ev_.size() && ev_[i_].kind == k; }
    bool next_is(Kind k) { return at(k) ? (++i_, true) : false; }

    template <typename T> bool value(T& out) {
        if constexpr (schema::record<T>) {
            return record(out);
        } else if constexpr (schema::is_vector<T>) {
            return false; // no connection member is a list
        } else if constexpr (schema::shape_of<T> == schema::Shape::text) {
            if (!at(Kind::string)) return false;
            std::string why;
            auto v = schema::text_to<T>(ev_[i_].text, &why);
            if (!v) return false;
            out = std::move(*v);
        } else if constexpr (schema::shape_of<T> == schema::Shape::boolean) {
            if (!at(Kind::boolean)) return false;
            out = ev_[i_].number != 0;
        } else {
            if (!at(Kind::unsigned_number) || ev_[i_].number > schema::max_of<T>()) return false;
            out = static_cast<T>(ev_[i_].number);
        }
        ++i_;
        return true;
    }

    template <typename M> bool member(M& m, Presence p) {
        if (next_is(Kind::null)) {
            if constexpr (schema::is_optional<M>) m.reset();
            if constexpr (std::is_same_v<M, bool>)
                if (p == Presence::if_true) m = false;
            return p != Presence::required;
        }
        if constexpr (schema::is_optional<M>) {
            typename M::value_type v{};
            if (!value(v)) return false;
            m = std::move(v);
            return true;
        } else {
            return value(m);
        }
    }

    template <typename T> bool record(T& out) {
        if (!next_is(Kind::begin_object)) return false;
        std::uint64_t seen = 0;
        while (at(Kind::key)) {
            const std::string& k = ev_[i_++].text;
            unsigned index = 0;
            bool known = false, ok = false;
            schema::describe(out, [&](std::string_view key, auto& m, Presence p) {
                if (known) return;
                if (key != k) {
                    ++index;
                    return;
                }
                known = true;
                ok = member(m, p);
            });
            if (!known || !ok || (seen >> index & 1)) return false;
            seen |= std::uint64_t{1} << index;
        }
        if (!next_is(Kind::end_object)) return false;
        bool complete = true;
        unsigned index = 0;
        schema::describe(out, [&](std::string_view, auto&, Presence p) {
            if (p == Presence::required && !(seen >> index & 1)) complete = false;
            ++index;
        });
        return complete;
    }

    const std::vector<JsonEvent>& ev_;
    std::size_t i_ = 0;
};

} // namespace

std::optional<Connection> fast_connection(const std::vector<JsonEvent>& events) {
    return FastReader(events).read<Connection>();
}

} // namespace rdmastat
