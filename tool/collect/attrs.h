// SPDX-License-Identifier: MIT
#pragma once

/// Reading helpers shared by the netlink parsers (NLDEV, the rdmastat genl family).
/// Inside a parser a malformed attribute throws Error; each public parse entry point
/// turns that into a Failure, so the walking code reads straight through.

#include "collect/netlink.h"
#include "model/address.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <libmnl/libmnl.h>
#include <netinet/in.h>
#include <optional>
#include <string>
#include <sys/socket.h>
#include <type_traits>
#include <utility>
#include <vector>

namespace rdmastat {

/// a's payload as a T when it holds one (it may hold more); nullopt when it
/// is too short. The one size rule of attr_u8 ... attr_u64 and Attrs.
template <typename T> std::optional<T> fixed_payload(const nlattr* a) {
    if (mnl_attr_get_payload_len(a) < sizeof(T)) return std::nullopt;
    T v;
    std::memcpy(&v, mnl_attr_get_payload(a), sizeof(T));
    return v;
}

/// One level of attributes with typed, size-checked, optional getters.
class Attrs {
  public:
    Attrs(AttrTable table) : t_(std::move(table)) {}
    /// Refilled from nest's payload, reusing the table (parse_nested_into);
    /// throws Error on malformed attributes.
    void refill(const nlattr* nest, unsigned max) { parse_nested_into(t_, nest, max).take(); }

    const nlattr* get(int type) const { return t_[static_cast<std::size_t>(type)]; }
    bool has(int type) const { return get(type) != nullptr; }

    template <typename T, typename Getter>
    std::optional<T> opt(int type, const char* name, Getter getter) const {
        const nlattr* a = get(type);
        if (!a) return std::nullopt;
        return getter(a, name).take();
    }
    std::optional<std::uint8_t> u8(int type, const char* name) const {
        return fixed<std::uint8_t>(type, name, attr_u8);
    }
    std::optional<std::uint16_t> u16(int type, const char* name) const {
        return fixed<std::uint16_t>(type, name, attr_u16);
    }
    std::optional<std::uint32_t> u32(int type, const char* name) const {
        return fixed<std::uint32_t>(type, name, attr_u32);
    }
    std::optional<std::uint64_t> u64(int type, const char* name) const {
        return fixed<std::uint64_t>(type, name, attr_u64);
    }
    std::optional<std::string> str(int type, const char* name) const {
        return opt<std::string>(type, name, attr_string);
    }
    /// The value of a required attribute; throws Error("<name>: missing") without it.
    template <typename T> T need(std::optional<T> v, const char* name) const {
        if (!v) throw Error(name, "missing");
        return *v;
    }
    /// A sockaddr_storage-style attribute (NLDEV): families other than IPv4/IPv6
    /// (AF_IB) and short data have no address we can show, which is not an error.
    std::optional<Endpoint> endpoint(int type) const {
        const nlattr* a = get(type);
        if (!a) return std::nullopt;
        return endpoint_from_sockaddr(mnl_attr_get_payload(a), mnl_attr_get_payload_len(a));
    }
    /// A struct sockaddr_in or sockaddr_in6 sized to its family: a payload too short
    /// for the family it names throws; other families are skipped (nullopt).
    std::optional<Endpoint> sockaddr(int type, const char* name) const {
        const nlattr* a = get(type);
        if (!a) return std::nullopt;
        std::size_t len = mnl_attr_get_payload_len(a);
        sa_family_t family = AF_UNSPEC;
        if (len >= sizeof(family)) std::memcpy(&family, mnl_attr_get_payload(a), sizeof(family));
        std::size_t need = family == AF_INET    ? sizeof(sockaddr_in)
                           : family == AF_INET6 ? sizeof(sockaddr_in6)
                                                : sizeof(family);
        if (len < need)
            throw Error(name, std::to_string(len) + " bytes, expected " + std::to_string(need) +
                                  " for address family " + std::to_string(family));
        return endpoint_from_sockaddr(mnl_attr_get_payload(a), len);
    }

  private:
    /// opt() for an integer, read here when the payload holds one: a dump's
    /// every entry has several, and only a short one needs getter's failure.
    template <typename T>
    std::optional<T> fixed(int type, const char* name,
                           Result<T> (*getter)(const nlattr*, const char*)) const {
        const nlattr* a = get(type);
        if (!a) return std::nullopt;
        if (auto v = fixed_payload<T>(a)) return v;
        return getter(a, name).take();
    }

    AttrTable t_;
};

/// records without duplicates by key: the first position of each key is kept,
/// holding the record as last reported (a dump resumed after a concurrent change).
template <typename Record, typename Key>
std::vector<Record> unique_by(std::vector<Record> records, Key key) {
    // The kernel dumps by rising id, nearly: rxe's GSI QP (number 1) comes
    // last. Keys that rise but for a few stragglers, none of them equal to
    // another key, have no repeat, and need no sort (10k QPs: a tenth of a
    // listing's work).
    using K = std::remove_cvref_t<decltype(key(records.front()))>;
    constexpr std::size_t max_stragglers = 16;
    std::vector<K> rising, stragglers;
    rising.reserve(records.size());
    bool few = true;
    for (std::size_t i = 0; i < records.size() && few; ++i) {
        K k = key(records[i]);
        if (rising.empty() || rising.back() < k)
            rising.push_back(std::move(k));
        else if (stragglers.size() < max_stragglers)
            stragglers.push_back(std::move(k));
        else
            few = false;
    }
    if (few) {
        bool repeat = false;
        for (auto s = stragglers.begin(); s != stragglers.end() && !repeat; ++s)
            repeat = std::binary_search(rising.begin(), rising.end(), *s) ||
                     std::find(stragglers.begin(), s, *s) != s;
        if (!repeat) return records;
    }
    // By key, then position: a run of one key is one record reported again.
    std::vector<std::pair<K, std::size_t>> order;
    order.reserve(records.size());
    for (std::size_t i = 0; i < records.size(); ++i)
        order.emplace_back(key(records[i]), i);
    std::sort(order.begin(), order.end());
    std::vector<bool> repeat(records.size(), false);
    for (std::size_t j = 0; j < order.size();) {
        std::size_t end = j + 1;
        while (end < order.size() && order[end].first == order[j].first)
            repeat[order[end++].second] = true;
        if (end - j > 1) records[order[j].second] = std::move(records[order[end - 1].second]);
        j = end;
    }
    std::vector<Record> out;
    out.reserve(records.size());
    for (std::size_t i = 0; i < records.size(); ++i)
        if (!repeat[i]) out.push_back(std::move(records[i]));
    return out;
}

} // namespace rdmastat
