// SPDX-License-Identifier: MIT
#pragma once

/// rping's wire protocol and rdmastat's small extension of it. Pure functions:
/// nothing here touches a device, so the parsing of what a peer sends is tested
/// (and fuzzed) on plain bytes.
///
/// rping (rdma-core's librdmacm/examples/rping.c) exchanges one message type, a
/// 16-byte buffer advertisement in network byte order: the buffer's address
/// (8 bytes), its rkey (4) and its length (4). Per ping the client advertises its
/// source buffer, the server RDMA READs it and SENDs a "go ahead" (16 bytes, content
/// ignored), the client advertises its sink buffer, the server RDMA WRITEs the
/// data back and SENDs another go-ahead.
///
/// rdmastat adds a hello carried in the rdma_cm private data (connect request and
/// accept reply): rping neither sends nor reads private data, so a hello-less peer
/// is rping and speaks only the plain mode.

#include "common/error.h"

#include <cstddef>
#include <cstdint>
#include <linux/rdmastat_kping.h>
#include <span>
#include <string>

namespace rdmastat::ping {

/// Traffic patterns: rping's read/write/go-ahead cycle, RDMA WRITE ping-pong
/// latency, RDMA WRITE streaming bandwidth.
enum class Mode : std::uint8_t { rping = 0, lat = 1, bw = 2 };

/// "rping", "lat" or "bw".
const char* mode_name(Mode m);

/// rping's size limits: room for "rdma-ping-<INT_MAX>: " and at most 64 KiB - 1.
inline constexpr std::uint32_t rping_min_size = RDMASTAT_KPING_PING_MIN_SIZE;
inline constexpr std::uint32_t rping_max_size = RDMASTAT_KPING_PING_MAX_SIZE;
/// The largest buffer rdmastat registers for one connection (any mode).
inline constexpr std::uint32_t max_buffer = 64u << 20;

struct Advertisement {
    std::uint64_t address = 0;
    std::uint32_t rkey = 0;
    std::uint32_t length = 0;
};

inline constexpr std::size_t advertisement_size = 16;

/// The 16 bytes of a, big-endian.
void encode_advertisement(const Advertisement& a, std::uint8_t out[advertisement_size]);

/// A peer's advertisement, checked: exactly 16 bytes, a non-zero rkey, and a
/// length from 1 to capacity (the local buffer it will be read into or the most
/// this side will accept). Failures say what was wrong, e.g.
/// "advertisement of 12 bytes, expected 16".
Result<Advertisement> parse_advertisement(std::span<const std::uint8_t> bytes,
                                          std::uint32_t capacity);

/// The hello in private data: "RDST", version 1, the mode, and the buffer size
/// the client asks for (the server sizes its buffer from it in lat and bw modes).
struct Hello {
    Mode mode = Mode::rping;
    std::uint32_t size = 0;
};

inline constexpr std::size_t hello_size = RDMASTAT_KPING_HELLO_LEN;

void encode_hello(const Hello& h, std::uint8_t out[hello_size]);

/// The hello in a peer's private data: nullopt-like Failure with code ENOENT when
/// there is none (rping, or an IB CM's zero padding); other Failures when it is
/// there but malformed (unknown version or mode).
Result<Hello> parse_hello(std::span<const std::uint8_t> private_data);

/// Fills buf as rping's client does for ping number seq: the text
/// "rdma-ping-<seq>: ", then letters cycling from 'A'+seq%58 through 'z' back to
/// 'A', and a NUL in the last byte. buf.size() >= 1.
void fill_rping_payload(std::span<std::uint8_t> buf, std::uint64_t seq);

/// The NUL-terminated text at the start of buf (at most buf.size() bytes), with
/// bytes outside printable ASCII shown as '?': what -v prints of a peer's data.
std::string printable_prefix(std::span<const std::uint8_t> buf);

} // namespace rdmastat::ping
