// SPDX-License-Identifier: MIT
// IpAddress reads IPv4 text itself (a snapshot file holds millions of addresses)
// and IPv6 through inet_pton: both must take exactly what inet_pton takes, and
// to_string must write what inet_ntop writes.
#include "catch_compat.hpp"
#include "model/address.h"

#include <algorithm>
#include <arpa/inet.h>
#include <random>
#include <string>

using namespace rdmastat;

namespace {

// inet_pton's answer for text, as an IpAddress (nullopt when it refuses both families).
std::optional<IpAddress> referee(const std::string& text) {
    IpAddress a;
    if (inet_pton(AF_INET, text.c_str(), a.bytes.data()) == 1) {
        a.family = AF_INET;
        return a;
    }
    if (inet_pton(AF_INET6, text.c_str(), a.bytes.data()) == 1) {
        a.family = AF_INET6;
        return a;
    }
    return std::nullopt;
}

void agrees(const std::string& text) {
    INFO("'" << text << "'");
    auto ours = IpAddress::parse(text);
    auto theirs = referee(text);
    REQUIRE(ours.has_value() == theirs.has_value());
    if (!ours) return;
    CHECK(ours->family == theirs->family);
    CHECK(ours->bytes == theirs->bytes);
    char buf[INET6_ADDRSTRLEN] = {};
    inet_ntop(ours->family, ours->bytes.data(), buf, sizeof(buf));
    CHECK(ours->to_string() == buf);
}

} // namespace

TEST_CASE("IPv4 text is read as inet_pton reads it", "[address]") {
    for (const char* text : {"0.0.0.0",
                             "10.9.0.1",
                             "255.255.255.255",
                             "256.0.0.1",
                             "1.2.3",
                             "1.2.3.4.5",
                             "1..2.3",
                             ".1.2.3",
                             "1.2.3.",
                             "01.2.3.4",
                             "1.2.3.04",
                             "00.0.0.0",
                             "1.2.3.0",
                             "10.0.0.100",
                             "999.1.1.1",
                             "1.2.3.4444",
                             "4294967297.0.0.1",
                             "...",
                             "1",
                             "12345",
                             ".",
                             "0"})
        agrees(text);
    // Random text of digits and dots, which the fast path decides alone.
    std::mt19937 rng(17);
    const std::string alphabet = "0123456789..";
    for (int i = 0; i < 100000; ++i) {
        std::string text(1 + rng() % 15, ' ');
        for (char& ch : text)
            ch = alphabet[rng() % alphabet.size()];
        agrees(text);
    }
    // Random well-formed addresses, most of which it takes.
    for (int i = 0; i < 20000; ++i)
        agrees(std::to_string(rng() % 300) + "." + std::to_string(rng() % 256) + "." +
               std::to_string(rng() % 256) + "." + std::to_string(rng() % 260));
}

TEST_CASE("IPv6 text is still inet_pton's, brackets aside", "[address]") {
    for (const char* text : {"::", "::1", "fd00::1", "fe80::1:2", "::ffff:10.0.0.1",
                             "1:2:3:4:5:6:7:8", "1::2::3", "::ffff:1.2.3", "fd00::g"})
        agrees(text);
    auto bracketed = IpAddress::parse("[fd00::1]");
    REQUIRE(bracketed);
    CHECK(bracketed->to_string() == "fd00::1");
    CHECK_FALSE(IpAddress::parse(""));
    CHECK_FALSE(IpAddress::parse("[]"));
    // A NUL inside (a \u0000 in a file) makes no address of either family.
    CHECK_FALSE(IpAddress::parse(std::string_view("10.0.0.1\0x", 10)));
    CHECK_FALSE(IpAddress::parse(std::string_view("::1\0x", 5)));
}

TEST_CASE("IPv6 text is written as inet_ntop writes it", "[address]") {
    // Words zero half the time, so that runs of every length and place occur,
    // and the prefixes inet_ntop writes the last 32 bits of as IPv4.
    std::mt19937 rng(5);
    for (int i = 0; i < 200000; ++i) {
        IpAddress a;
        a.family = AF_INET6;
        for (std::size_t w = 0; w < 8; ++w) {
            const unsigned v = rng() % 2 ? 0 : rng() % 4 ? rng() % 0x10000 : rng() % 16;
            a.bytes[2 * w] = static_cast<std::uint8_t>(v >> 8);
            a.bytes[2 * w + 1] = static_cast<std::uint8_t>(v);
        }
        if (i % 4 == 0) { // ::ffff:a.b.c.d, ::a.b.c.d, and near misses of both
            std::fill(a.bytes.begin(), a.bytes.begin() + 10, 0);
            a.bytes[10] = a.bytes[11] = rng() % 3 ? 0xff : static_cast<std::uint8_t>(rng());
            if (i % 8 == 0) a.bytes[10] = a.bytes[11] = 0;
        }
        char buf[INET6_ADDRSTRLEN] = {};
        inet_ntop(AF_INET6, a.bytes.data(), buf, sizeof(buf));
        INFO(buf);
        REQUIRE(a.to_string() == buf);
        std::string appended = "x";
        a.append_to(appended);
        REQUIRE(appended == std::string("x") + buf);
        Endpoint e{a, static_cast<std::uint16_t>(i % 3 ? i : 0)};
        REQUIRE(e.to_string() ==
                "[" + std::string(buf) + "]:" + (e.port ? std::to_string(e.port) : "*"));
    }
    CHECK(Endpoint{IpAddress{}, 7}.to_string() == "*:7");
    CHECK(Endpoint{IpAddress::parse("10.0.0.1").value(), 0}.to_string() == "10.0.0.1:*");
}
