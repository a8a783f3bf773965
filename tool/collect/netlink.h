// SPDX-License-Identifier: MIT
#pragma once

/// A netlink socket over libmnl and the walker every parser uses, so that bytes
/// captured from the kernel replay through exactly the code that reads them live.

#include "common/error.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

struct mnl_socket;
struct nlmsghdr;
struct nlattr;

namespace rdmastat {

/// Raw bytes of a netlink conversation: every reply message, as received,
/// concatenated (each message is NLMSG_ALIGNed, so the result is a valid stream).
using Bytes = std::vector<std::uint8_t>;

class NetlinkSocket {
  public:
    /// Opens and binds a socket of the given NETLINK_* protocol with extended
    /// acks on. Failure carries errno as its code, for callers that treat
    /// EPROTONOSUPPORT ("no such subsystem") as an answer rather than an error.
    static Result<NetlinkSocket> open(int protocol);
    NetlinkSocket(NetlinkSocket&& other) noexcept;
    NetlinkSocket& operator=(NetlinkSocket&&) = delete;
    ~NetlinkSocket();

    /// Sends a request built by fill (which receives a header with seq and
    /// NLM_F_REQUEST set) and returns every reply up to NLMSG_DONE, or up to
    /// the ack for a non-dump request. A kernel error becomes a Failure whose
    /// message includes the extended-ack text when the kernel gave one.
    /// A dump whose replies carry NLM_F_DUMP_INTR (the kernel saw its objects
    /// change mid-dump) is asked again, up to dump_attempts times in all; when
    /// every attempt was interrupted the last one is returned and interrupted()
    /// says so.
    Result<Bytes> request(const std::function<void(nlmsghdr*)>& fill);
    /// When the kernel refused a request with an extended ack pointing at one
    /// of its attributes (NLMSGERR_ATTR_OFFS), the Failure ends with
    /// "(attribute T)", or "(attribute T.U)" for one nested in T: the types,
    /// for the caller to name.
    /// Whether the bytes of the last request() came from an interrupted dump.
    bool interrupted() const { return interrupted_; }
    static constexpr int dump_attempts = 3;
    /// The same exchange without judging the replies: kernel errors come back as
    /// bytes (for the capture tool); only socket failures are a Failure.
    Result<Bytes> exchange(const std::function<void(nlmsghdr*)>& fill);

  private:
    NetlinkSocket(mnl_socket* nl, int protocol);
    mnl_socket* nl_;
    int protocol_;
    Bytes last_request_;
    std::uint32_t portid_ = 0;
    std::uint32_t seq_ = 0;
    bool interrupted_ = false;
};

/// The attribute of request (a whole netlink message with a family header of
/// header_len bytes) that starts at byte offset, as its type path ("3", or
/// "3.1" for attribute 1 nested in 3); empty when no attribute starts there.
std::string attribute_at(const Bytes& request, std::size_t header_len, std::uint32_t offset);

/// Whether any message in [data, data+len) carries NLM_F_DUMP_INTR.
bool dump_interrupted(const std::uint8_t* data, std::size_t len);

enum class StreamEnd { more, done };

/// Walks the messages in [data, data+len): data messages go to on_data;
/// NLMSG_DONE ends the stream; NLMSG_ERROR with a non-zero code, a negative
/// code in NLMSG_DONE, or a malformed header is a Failure ("<strerror>: <extack>").
/// An ack (NLMSG_ERROR with code 0) also ends the stream.
Result<StreamEnd> walk_messages(const std::uint8_t* data, std::size_t len,
                                const std::function<Status(const nlmsghdr*)>& on_data);

/// Attributes of one level, indexed by type (NLA_F_NESTED and byte-order flags stripped).
/// Types above max are skipped: a newer kernel's attributes are not errors.
using AttrTable = std::vector<const nlattr*>;

/// Splits the attributes in [data, data+len) into a table of max+1 entries.
/// Trailing bytes that do not form a whole attribute are a Failure.
Result<AttrTable> parse_attrs(const void* data, std::size_t len, unsigned max);
/// The same for the payload of a nested attribute.
Result<AttrTable> parse_nested(const nlattr* nest, unsigned max);
/// parse_nested into table, whose storage is reused: one table serves every
/// entry of a long list. On a Failure, table holds what came before it.
Status parse_nested_into(AttrTable& table, const nlattr* nest, unsigned max);
/// Every attribute inside a nest, in order (for lists of entries).
Result<std::vector<const nlattr*>> nested_list(const nlattr* nest);

/// Typed getters that check the payload size; Failure names the attribute.
Result<std::uint8_t> attr_u8(const nlattr* a, const char* name);
Result<std::uint16_t> attr_u16(const nlattr* a, const char* name);
Result<std::uint32_t> attr_u32(const nlattr* a, const char* name);
Result<std::uint64_t> attr_u64(const nlattr* a, const char* name);
/// A NUL-terminated string attribute; a missing terminator is a Failure.
Result<std::string> attr_string(const nlattr* a, const char* name);

} // namespace rdmastat
