// SPDX-License-Identifier: MIT
#include "ping/stats.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace rdmastat::ping {

// Values below 2^sub_bits get a bucket each; above, a value's top sub_bits+1
// significant bits pick the bucket within its power of two.
int Histogram::index(std::uint64_t v) {
    if (v < (1u << sub_bits)) return static_cast<int>(v);
    int msb = 63 - std::countl_zero(v);
    int shift = msb - sub_bits;
    return ((shift + 1) << sub_bits) + static_cast<int>((v >> shift) & ((1u << sub_bits) - 1));
}

std::uint64_t Histogram::upper(int i) {
    if (i < (1 << sub_bits)) return static_cast<std::uint64_t>(i);
    int shift = (i >> sub_bits) - 1;
    std::uint64_t mantissa = (std::uint64_t{1} << sub_bits) | (i & ((1 << sub_bits) - 1));
    return ((mantissa + 1) << shift) - 1;
}

void Histogram::add(std::uint64_t ns) {
    ++counts_[static_cast<std::size_t>(index(ns))];
    ++count_;
    sum_ += ns;
    min_ = std::min(min_, ns);
    max_ = std::max(max_, ns);
}

std::uint64_t Histogram::quantile(double q) const {
    if (!count_) return 0;
    auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_)));
    rank = std::clamp<std::uint64_t>(rank, 1, count_);
    std::uint64_t seen = 0;
    for (int i = 0; i < buckets; ++i) {
        seen += counts_[static_cast<std::size_t>(i)];
        if (seen >= rank) return std::clamp(upper(i), min_, max_);
    }
    return max_;
}

LatencySummary summarize(const Histogram& h) {
    auto us = [](double ns) { return ns / 1000.0; };
    return LatencySummary{
        us(static_cast<double>(h.min())), us(static_cast<double>(h.quantile(0.50))),
        us(static_cast<double>(h.quantile(0.99))), us(static_cast<double>(h.max())), us(h.mean())};
}

} // namespace rdmastat::ping
