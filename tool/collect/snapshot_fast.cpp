// SPDX-License-Identifier: MIT
#include "collect/snapshot_fast.h"

#include "model/schema.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rdmastat {
namespace {

using schema::Presence;

// The JSON the fast path reads: objects, plain strings (printable ASCII, no
// escape), unsigned integers and the three literals, with space between. Each
// call skips the space before its token; anything else is a "no", and the
// general parser reads the element instead (and judges it).
class Bytes {
  public:
    explicit Bytes(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

    const char* at() const { return p_; }
    bool take(char c) {
        space();
        if (p_ == end_ || *p_ != c) return false;
        ++p_;
        return true;
    }
    bool next_is(char c) {
        space();
        return p_ != end_ && *p_ == c;
    }
    bool string(std::string_view& out) {
        if (!take('"')) return false;
        const char* start = p_;
        for (; p_ != end_; ++p_) {
            const auto ch = static_cast<unsigned char>(*p_);
            if (ch == '"') {
                out = std::string_view(start, static_cast<std::size_t>(p_ - start));
                ++p_;
                return true;
            }
            if (ch < 0x20 || ch >= 0x7f || ch == '\\') return false;
        }
        return false;
    }
    bool number(std::uint64_t& out) {
        space();
        if (p_ == end_ || *p_ < '0' || *p_ > '9') return false;
        std::uint64_t v = 0;
        if (*p_ == '0') {
            ++p_; // JSON has no leading zero: "01" is not a number
            if (p_ != end_ && *p_ >= '0' && *p_ <= '9') return false;
        } else {
            for (; p_ != end_ && *p_ >= '0' && *p_ <= '9'; ++p_) {
                const auto d = static_cast<std::uint64_t>(*p_ - '0');
                if (v > (UINT64_MAX - d) / 10) return false;
                v = v * 10 + d;
            }
        }
        out = v;
        return true;
    }
    bool word(std::string_view w) {
        space();
        if (static_cast<std::size_t>(end_ - p_) < w.size() || std::string_view(p_, w.size()) != w)
            return false;
        p_ += w.size();
        return true;
    }

  private:
    void space() {
        while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t'))
            ++p_;
    }
    const char* p_;
    const char* end_;
};

// Short keys compare faster inline than through memcmp.
bool same(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i]) return false;
    return true;
}

// Reads a record straight from the text, driven by its description in
// model/schema.h. Anything unusual (an unknown or repeated key, a wrong type, a
// name this build does not know, an escape in a string) makes it give up: the
// general path then reads the element and names what is wrong.
class FastReader {
  public:
    explicit FastReader(Bytes& in) : in_(in) {}

    template <typename T> bool value(T& out) {
        if constexpr (schema::record<T>) {
            return record(out);
        } else if constexpr (schema::is_vector<T>) {
            return false; // no connection member is a list
        } else if constexpr (schema::shape_of<T> == schema::Shape::text) {
            std::string_view text;
            if (!in_.string(text)) return false;
            if constexpr (std::is_same_v<T, std::string>) {
                out.assign(text);
            } else {
                text_.assign(text);
                std::string why;
                auto v = schema::text_to<T>(text_, &why);
                if (!v) return false;
                out = std::move(*v);
            }
            return true;
        } else if constexpr (schema::shape_of<T> == schema::Shape::boolean) {
            if (in_.word("true")) return out = true, true;
            if (in_.word("false")) return out = false, true;
            return false;
        } else {
            std::uint64_t n = 0;
            if (!in_.number(n) || n > schema::max_of<T>()) return false;
            out = static_cast<T>(n);
            return true;
        }
    }

  private:
    template <typename M> bool member(M& m, Presence p) {
        if (in_.next_is('n')) {
            if (!in_.word("null")) return false;
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

    // The keys of T in schema order: the order writers use, so the next key
    // is nearly always the one after the last.
    template <typename T> static const std::vector<std::string_view>& keys() {
        static const std::vector<std::string_view> names = [] {
            std::vector<std::string_view> k;
            T t{};
            schema::describe(t, [&](std::string_view key, auto&, Presence) { k.push_back(key); });
            return k;
        }();
        return names;
    }

    template <typename T> bool record(T& out) {
        if (!in_.take('{')) return false;
        const std::vector<std::string_view>& names = keys<T>();
        std::uint64_t seen = 0;
        std::size_t expect = 0;
        if (!in_.take('}')) {
            do {
                std::string_view k;
                if (!in_.string(k) || !in_.take(':')) return false;
                // From the expected key on, then from the start: absent
                // optional members make the writer skip ahead.
                std::size_t index = expect;
                while (index < names.size() && !same(names[index], k))
                    ++index;
                if (index == names.size()) {
                    index = 0;
                    while (index < expect && !same(names[index], k))
                        ++index;
                    if (index == expect) return false;
                }
                if (seen >> index & 1) return false;
                seen |= std::uint64_t{1} << index;
                expect = index + 1;
                // The member at index, if it is still that key: a record whose
                // members depend on its values (an owner) may have changed.
                bool ok = false;
                std::size_t i = 0;
                schema::describe(out, [&](std::string_view key, auto& m, Presence p) {
                    if (i++ == index) ok = same(key, k) && member(m, p);
                });
                if (!ok) return false;
            } while (in_.take(','));
            if (!in_.take('}')) return false;
        }
        bool complete = true;
        std::size_t index = 0;
        schema::describe(out, [&](std::string_view, auto&, Presence p) {
            if (p == Presence::required && !(seen >> index & 1)) complete = false;
            ++index;
        });
        return complete;
    }

    Bytes& in_;
    std::string text_;
};

} // namespace

bool fast_connection(JsonPull& pull, Connection& out) {
    Bytes in(pull.text());
    Connection c;
    if (!FastReader(in).value(c)) return false;
    pull.consume(static_cast<std::size_t>(in.at() - pull.text().data()));
    out = std::move(c);
    return true;
}

} // namespace rdmastat
