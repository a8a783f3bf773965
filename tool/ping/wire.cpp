// SPDX-License-Identifier: MIT
#include "ping/wire.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace rdmastat::ping {
namespace {

// The hello's constants are the kernel module's (include/uapi/linux/rdmastat_kping.h).
constexpr const char* hello_magic = RDMASTAT_KPING_HELLO_MAGIC;
constexpr std::size_t hello_magic_len = RDMASTAT_KPING_HELLO_MAGIC_LEN;
constexpr std::uint8_t hello_version = RDMASTAT_KPING_HELLO_VERSION;

void put_be(std::uint8_t* out, std::uint64_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; --i, v >>= 8)
        out[i] = static_cast<std::uint8_t>(v);
}

std::uint64_t get_be(const std::uint8_t* in, int bytes) {
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i)
        v = v << 8 | in[i];
    return v;
}

} // namespace

const char* mode_name(Mode m) {
    switch (m) {
    case Mode::rping:
        return "rping";
    case Mode::lat:
        return "lat";
    case Mode::bw:
        return "bw";
    }
    return "?";
}

void encode_advertisement(const Advertisement& a, std::uint8_t out[advertisement_size]) {
    put_be(out, a.address, 8);
    put_be(out + 8, a.rkey, 4);
    put_be(out + 12, a.length, 4);
}

Result<Advertisement> parse_advertisement(std::span<const std::uint8_t> bytes,
                                          std::uint32_t capacity) {
    if (bytes.size() != advertisement_size)
        return Failure{"advertisement of " + std::to_string(bytes.size()) + " bytes, expected " +
                       std::to_string(advertisement_size)};
    Advertisement a;
    a.address = get_be(bytes.data(), 8);
    a.rkey = static_cast<std::uint32_t>(get_be(bytes.data() + 8, 4));
    a.length = static_cast<std::uint32_t>(get_be(bytes.data() + 12, 4));
    if (a.rkey == 0) return Failure{"advertisement with a zero rkey"};
    if (a.length == 0) return Failure{"advertisement of an empty buffer"};
    if (a.length > capacity)
        return Failure{"advertised buffer of " + std::to_string(a.length) +
                       " bytes is larger than the " + std::to_string(capacity) +
                       " bytes this side allows"};
    return a;
}

void encode_hello(const Hello& h, std::uint8_t out[hello_size]) {
    std::memcpy(out, hello_magic, hello_magic_len);
    out[4] = hello_version;
    out[5] = static_cast<std::uint8_t>(h.mode);
    out[6] = out[7] = 0;
    put_be(out + 8, h.size, 4);
}

Result<Hello> parse_hello(std::span<const std::uint8_t> data) {
    if (data.size() < hello_size || std::memcmp(data.data(), hello_magic, hello_magic_len))
        return Failure{"no rdmastat hello (the peer is rping or another program)", ENOENT};
    if (data[4] != hello_version)
        return Failure{"rdmastat hello of version " + std::to_string(data[4]) + ", expected " +
                       std::to_string(hello_version)};
    if (data[5] > static_cast<std::uint8_t>(Mode::bw))
        return Failure{"rdmastat hello with unknown mode " + std::to_string(data[5])};
    Hello h;
    h.mode = static_cast<Mode>(data[5]);
    h.size = static_cast<std::uint32_t>(get_be(data.data() + 8, 4));
    return h;
}

void fill_rping_payload(std::span<std::uint8_t> buf, std::uint64_t seq) {
    if (buf.empty()) return;
    char text[32];
    int n =
        std::snprintf(text, sizeof text, "rdma-ping-%llu: ", static_cast<unsigned long long>(seq));
    std::size_t cc = std::min(static_cast<std::size_t>(n), buf.size());
    std::memcpy(buf.data(), text, cc);
    // rping's letters run 'A'..'z' (65..122) and start one later on each ping.
    std::uint8_t c = static_cast<std::uint8_t>('A' + seq % 58);
    for (std::size_t i = cc; i < buf.size(); ++i) {
        buf[i] = c;
        c = c == 'z' ? 'A' : static_cast<std::uint8_t>(c + 1);
    }
    buf[buf.size() - 1] = 0;
}

std::string printable_prefix(std::span<const std::uint8_t> buf) {
    std::string s;
    for (std::uint8_t b : buf) {
        if (b == 0) break;
        s += b >= 0x20 && b < 0x7f ? static_cast<char>(b) : '?';
    }
    return s;
}

} // namespace rdmastat::ping
