// SPDX-License-Identifier: MIT
#include "collect/snapshot_fast.h"

#include "model/schema.h"

#include <cstdint>
#include <string_view>

namespace rdmastat {
namespace {

using schema::Presence;

// Reads a record straight from the text, driven by its description in
// model/schema.h. Anything unusual (an unknown or repeated key, a wrong type, a
// name this build does not know) makes it give up: the general path then reads
// the document and names what is wrong.
class FastReader {
  public:
    explicit FastReader(JsonPull& pull) : p_(pull) {}

    template <typename T> bool value(T& out) {
        if constexpr (schema::record<T>) {
            return record(out);
        } else if constexpr (schema::is_vector<T>) {
            return false; // no connection member is a list
        } else if constexpr (std::is_same_v<T, std::string>) {
            return p_.string(out);
        } else if constexpr (schema::shape_of<T> == schema::Shape::text) {
            if (!p_.string(text_)) return false;
            std::string why;
            auto v = schema::text_to<T>(text_, &why);
            if (!v) return false;
            out = std::move(*v);
            return true;
        } else if constexpr (schema::shape_of<T> == schema::Shape::boolean) {
            return p_.boolean(out);
        } else {
            std::uint64_t n = 0;
            if (!p_.number(n) || n > schema::max_of<T>()) return false;
            out = static_cast<T>(n);
            return true;
        }
    }

  private:
    using Member = JsonPull::Member;

    template <typename M> bool member(M& m, Presence p) {
        if (p_.null()) {
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
        if (!p_.begin_object()) return false;
        std::uint64_t seen = 0;
        std::string_view k;
        for (bool first = true;; first = false) {
            const Member next = p_.next_member(first, k);
            if (next == Member::end) break;
            if (next != Member::key) return false;
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
        bool complete = true;
        unsigned index = 0;
        schema::describe(out, [&](std::string_view, auto&, Presence p) {
            if (p == Presence::required && !(seen >> index & 1)) complete = false;
            ++index;
        });
        return complete;
    }

    JsonPull& p_;
    std::string text_;
};

} // namespace

bool fast_connection(JsonPull& pull, Connection& out) {
    Connection c;
    if (!FastReader(pull).value(c)) return false;
    out = std::move(c);
    return true;
}

} // namespace rdmastat
