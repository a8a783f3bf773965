// SPDX-License-Identifier: MIT
// The helpers every layer shares (tool/common): one rule for numbers read from
// text, one format for fixed-point figures and kernel owners.
#include "catch_compat.hpp"
#include "common/format.h"
#include "common/numbers.h"

#include <cstdint>

using namespace rdmastat;

TEST_CASE("parse_number takes the whole text as an unsigned number, or nothing", "[common]") {
    CHECK(parse_number<std::uint32_t>("7174") == 7174u);
    CHECK(parse_number<std::uint32_t>("0") == 0u);
    CHECK(parse_number<std::uint32_t>("4294967295") == 4294967295u);
    CHECK_FALSE(parse_number<std::uint32_t>("4294967296")); // overflow
    CHECK(parse_number<std::uint8_t>("255") == 255);
    CHECK_FALSE(parse_number<std::uint8_t>("256"));
    for (const char* bad : {"", " 1", "1 ", "+1", "-1", "1a", "0x10", "1.5", ":1"}) {
        INFO("'" << bad << "'");
        CHECK_FALSE(parse_number<std::uint32_t>(bad));
    }
    // Hexadecimal, as /proc/net/tcp and GUIDs write it: no prefix.
    CHECK(parse_number<std::uint16_t>("1C06", 16) == 7174);
    CHECK(parse_number<std::uint64_t>("0002c90300a1b2c3", 16) == 0x0002c90300a1b2c3ull);
    CHECK_FALSE(parse_number<std::uint64_t>("0x1C06", 16));
    CHECK_FALSE(parse_number<std::uint64_t>("10000000000000000", 16)); // 65 bits
}

TEST_CASE("parse_port reads 0 to 65535, with or without its colon", "[common]") {
    CHECK(parse_port("7174") == 7174);
    CHECK(parse_port(":7174") == 7174);
    CHECK(parse_port("0") == 0);
    CHECK(parse_port("65535") == 65535);
    for (const char* bad : {"65536", "", ":", "::1", "-1", "7174 ", "http"}) {
        INFO("'" << bad << "'");
        CHECK_FALSE(parse_port(bad));
    }
}

TEST_CASE("parse_seconds reads non-negative decimal seconds", "[common]") {
    CHECK(parse_seconds("2") == 2.0);
    CHECK(parse_seconds("0.5") == 0.5);
    CHECK(parse_seconds("1e-2") == 0.01);
    for (const char* bad : {"", "-1", "1s", " 1", "one", "nan", "inf", "-0.5"}) {
        INFO("'" << bad << "'");
        CHECK_FALSE(parse_seconds(bad));
    }
}

TEST_CASE("fixed writes exactly the digits asked for; kernel owners in brackets", "[common]") {
    CHECK(fixed(2.5, 3) == "2.500");
    CHECK(fixed(27.26, 1) == "27.3");
    CHECK(fixed(4942.0, 0) == "4942");
    CHECK(fixed(0.0004, 3) == "0.000");
    CHECK(kernel_owner_text("nvme_rdma") == "[nvme_rdma]");
}
