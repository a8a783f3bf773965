// SPDX-License-Identifier: MIT
#include "collect/snapshot_fast.h"

#include "common/text.h"
#include "model/schema.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

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
        while (p_ != end_ && json_plain[static_cast<unsigned char>(*p_)])
            ++p_;
        if (p_ == end_ || *p_ != '"') return false;
        out = std::string_view(start, static_cast<std::size_t>(p_ - start));
        ++p_;
        return true;
    }
    // The key k, quoted, is next: taken without a scan, since k is plain.
    bool key(std::string_view k) {
        space();
        if (static_cast<std::size_t>(end_ - p_) < k.size() + 2 || *p_ != '"' ||
            p_[k.size() + 1] != '"' || std::memcmp(p_ + 1, k.data(), k.size()) != 0)
            return false;
        p_ += k.size() + 2;
        return true;
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
        if (p_ != end_ && static_cast<unsigned char>(*p_) > ' ') return; // the usual case
        while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t'))
            ++p_;
    }
    const char* p_;
    const char* end_;
};

// Reads a record straight from the text, driven by its description in
// model/schema.h. Anything unusual (an unknown or repeated key, keys out of
// schema order, a wrong type, a name this build does not know, an escape in a
// string) makes it give up: the general path then reads the element and names
// what is wrong.
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
                std::string why;
                auto v = schema::text_to<T>(text, &why);
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

    // One pass over T's description, in schema order: the order writers use.
    // Each member takes the next key if it is its own; an absent one is left
    // as it is. A key left over (out of order, unknown or repeated) is a "no".
    // out is fresh, so an owner is described with its process members, as the
    // general path reads it.
    template <typename T> bool record(T& out) {
        if (!in_.take('{')) return false;
        // A key is pending after '{' or ',': the next member's, if it is its own.
        bool pending = !in_.take('}');
        bool ok = true;
        schema::describe(out, [&](std::string_view key, auto& m, Presence p) {
            if (!ok) return;
            if (!pending || !in_.key(key)) {
                ok = p != Presence::required;
                return;
            }
            if (!in_.take(':') || !member(m, p)) {
                ok = false;
            } else if (!in_.take(',')) {
                ok = in_.take('}');
                pending = false;
            }
        });
        return ok && !pending;
    }

    Bytes& in_;
};

} // namespace

bool fast_connection(JsonPull& pull, Connection& out) {
    Bytes in(pull.text());
    Connection c;
    if (!FastReader(in).value(c) || schema::missing_for_kind(c)) return false;
    pull.consume(static_cast<std::size_t>(in.at() - pull.text().data()));
    out = std::move(c);
    return true;
}

} // namespace rdmastat
