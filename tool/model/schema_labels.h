// SPDX-License-Identifier: MIT
#pragma once

/// A record of model/schema.h as flat text labels: the Prometheus form of a
/// connection (rdmastat_connection_info, read back by the fabric view).
///
/// Nested keys are joined with '_' ("local_address", "owner_container_id");
/// scalars are written as schema::write writes them, numbers in decimal and
/// booleans as "true"/"false"; unknown (empty optional) members and lists are
/// left out. to_labels and from_labels are visitors of the same descriptions,
/// so a label cannot be written under one name and read under another.

#include "model/schema.h"

#include <charconv>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rdmastat::schema {

using LabelMap = std::map<std::string, std::string>;

namespace labels_detail {

inline std::string joined(const std::string& prefix, std::string_view key) {
    return prefix.empty() ? std::string(key) : prefix + "_" + std::string(key);
}

template <typename M> void put(const M& m, const std::string& name, LabelMap& out);

template <typename M> struct optional_value { using type = M; };
template <typename M> struct optional_value<std::optional<M>> { using type = M; };

template <typename T> void put_members(const T& v, const std::string& prefix, LabelMap& out) {
    describe(v, [&](std::string_view key, const auto& m, Presence p) {
        using M = std::remove_cvref_t<decltype(m)>;
        if constexpr (is_optional<M>) {
            if (m) put(*m, joined(prefix, key), out);
        } else {
            if constexpr (std::is_same_v<M, bool>)
                if (p == Presence::if_true && !m) return;
            put(m, joined(prefix, key), out);
        }
    });
}

template <typename M> void put(const M& m, const std::string& name, LabelMap& out) {
    if constexpr (record<M>)
        put_members(m, name, out);
    else if constexpr (is_vector<M>)
        return;
    else if constexpr (shape_of<M> == Shape::text)
        out[name] = to_text(m);
    else if constexpr (shape_of<M> == Shape::boolean)
        out[name] = m ? "true" : "false";
    else
        out[name] = std::to_string(m);
}

// Whether a record of type V was written under name: one of its own members'
// labels is there ("qp_unjoined_number" is not a label of "qp").
template <typename V> bool present(const LabelMap& in, const std::string& name) {
    V probe{};
    bool found = false;
    describe(probe, [&](std::string_view key, auto& m, Presence) {
        using M = std::remove_cvref_t<decltype(m)>;
        using Inner = std::conditional_t<is_optional<M>, typename optional_value<M>::type, M>;
        const std::string n = joined(name, key);
        if constexpr (is_vector<Inner>)
            return;
        else if constexpr (record<Inner>)
            found = found || present<Inner>(in, n);
        else
            found = found || in.count(n) > 0;
    });
    return found;
}

template <typename T>
bool get_members(T& v, const std::string& prefix, const LabelMap& in, std::string* why);

// Reads the member called name into m; false with *why when it is malformed.
template <typename M>
bool get(M& m, const std::string& name, const LabelMap& in, std::string* why) {
    if constexpr (record<M>) {
        return get_members(m, name, in, why);
    } else {
        const std::string& text = in.at(name);
        if constexpr (shape_of<M> == Shape::text) {
            auto v = text_to<M>(text, why);
            if (!v) return *why = name + ": " + *why, false;
            m = std::move(*v);
        } else if constexpr (shape_of<M> == Shape::boolean) {
            if (text != "true" && text != "false")
                return *why = name + ": '" + text + "' is not true or false", false;
            m = text == "true";
        } else {
            std::uint64_t n = 0;
            auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
            if (ec != std::errc() || end != text.data() + text.size() || text.empty() ||
                n > max_of<M>())
                return *why = name + ": '" + text + "' is not a number in range", false;
            m = static_cast<M>(n);
        }
        return true;
    }
}

// Whether the member called name, of type M, was written.
template <typename M> bool written(const LabelMap& in, const std::string& name) {
    if constexpr (record<M>)
        return present<M>(in, name);
    else
        return in.count(name) > 0;
}

template <typename T>
bool get_members(T& v, const std::string& prefix, const LabelMap& in, std::string* why) {
    bool ok = true;
    describe(v, [&](std::string_view key, auto& m, Presence p) {
        using M = std::remove_cvref_t<decltype(m)>;
        if (!ok) return;
        const std::string name = joined(prefix, key);
        if constexpr (is_vector<M>) {
            return;
        } else if constexpr (is_optional<M>) {
            using V = typename M::value_type;
            if (!written<V>(in, name)) return m.reset();
            V value{};
            if (!(ok = get(value, name, in, why))) return;
            m = std::move(value);
        } else if (written<M>(in, name)) {
            ok = get(m, name, in, why);
        } else if (p == Presence::required) {
            *why = "no label " + name;
            ok = false;
        } else if constexpr (std::is_same_v<M, bool>) {
            m = false;
        }
    });
    return ok;
}

} // namespace labels_detail

/// v's members as labels, nested keys joined with '_'.
template <typename T> LabelMap to_labels(const T& v) {
    LabelMap out;
    labels_detail::put_members(v, "", out);
    return out;
}

/// The members of v that keys name, in that order, as (name, value) label
/// pairs: the value as to_labels writes it, "" when unknown (Prometheus's
/// absent label). How a metric labels its series with a record's own names.
template <typename T>
std::vector<std::pair<std::string, std::string>>
label_pairs(const T& v, std::initializer_list<std::string_view> keys) {
    std::vector<std::pair<std::string, std::string>> out;
    pick(v, keys, [&](std::string_view key, const auto& m, Presence) {
        LabelMap one;
        const std::string name(key);
        if constexpr (is_optional<std::remove_cvref_t<decltype(m)>>) {
            if (m) labels_detail::put(*m, name, one);
        } else {
            labels_detail::put(m, name, one);
        }
        out.emplace_back(name, one[name]);
    });
    return out;
}

/// The record to_labels wrote; labels it does not name are ignored. nullopt,
/// with *why saying which label is missing or malformed, otherwise.
template <typename T> std::optional<T> from_labels(const LabelMap& in, std::string* why) {
    T v{};
    if (!labels_detail::get_members(v, "", in, why)) return std::nullopt;
    return v;
}

} // namespace rdmastat::schema
