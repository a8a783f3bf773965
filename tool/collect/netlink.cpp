// SPDX-License-Identifier: MIT
#include "collect/netlink.h"

#include "collect/attrs.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <libmnl/libmnl.h>
#include <limits>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <optional>
#include <sys/socket.h>

namespace rdmastat {
namespace {

// The kernel sizes dump messages by the reader's buffer, up to 32 KiB; a buffer
// that large means fewer, fuller messages and fewer system calls.
constexpr std::size_t recv_buffer_size = 64 * 1024;

std::string errno_text(int err) {
    return std::strerror(err);
}

Failure kernel_failure(int error, const nlattr* msg_attr) {
    // INT_MIN has no negation: a message claiming it reads as an unknown error.
    const int code =
        error == std::numeric_limits<int>::min() ? std::numeric_limits<int>::max() : -error;
    std::string text = errno_text(code);
    if (msg_attr) {
        auto msg = attr_string(msg_attr, "extack message");
        if (msg) text += ": " + msg.value();
    }
    return Failure{text, code};
}

// One extended-ack TLV of an NLMSG_ERROR or NLMSG_DONE whose TLVs start at offset.
const nlattr* extack_attr(const nlmsghdr* nlh, std::size_t offset, unsigned type) {
    if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS)) return nullptr;
    offset = MNL_ALIGN(offset); // the echoed request may have any length; TLVs start aligned
    std::size_t payload = nlh->nlmsg_len - NLMSG_HDRLEN;
    if (offset > payload) return nullptr;
    auto* base = static_cast<const std::uint8_t*>(mnl_nlmsg_get_payload(nlh)) + offset;
    auto table = parse_attrs(base, payload - offset, NLMSGERR_ATTR_MAX);
    return table ? table.value()[type] : nullptr;
}

const nlattr* extack_message(const nlmsghdr* nlh, std::size_t offset) {
    return extack_attr(nlh, offset, NLMSGERR_ATTR_MSG);
}

// Where an NLMSG_ERROR's TLVs start: after the error and, unless capped, the echoed request.
std::size_t error_tlv_offset(const nlmsghdr* nlh, const nlmsgerr& err) {
    std::size_t offset = sizeof(err);
    if (!(nlh->nlmsg_flags & NLM_F_CAPPED) && err.msg.nlmsg_len >= NLMSG_HDRLEN)
        offset += err.msg.nlmsg_len - NLMSG_HDRLEN;
    return offset;
}

// libmnl's length checks compare through int, so a declared length of 2 GiB or
// more passes them; these walkers check in size_t. Each calls f per whole item
// and fails on the first one that does not fit.
template <typename F> Status for_each_message(const std::uint8_t* data, std::size_t len, F f) {
    std::size_t off = 0;
    while (off < len) {
        std::size_t left = len - off;
        if (left < sizeof(nlmsghdr))
            return Failure{"malformed netlink message (" + std::to_string(left) +
                           " trailing bytes)"};
        auto* nlh = reinterpret_cast<const nlmsghdr*>(data + off);
        if (nlh->nlmsg_len < NLMSG_HDRLEN || nlh->nlmsg_len > left)
            return Failure{"malformed netlink message (length " + std::to_string(nlh->nlmsg_len) +
                           ", " + std::to_string(left) + " bytes left)"};
        if (auto st = f(nlh); !st) return st;
        off += std::min(left, (std::size_t{nlh->nlmsg_len} + 3) & ~std::size_t{3});
    }
    return Ok{};
}

template <typename F> Status for_each_attr(const void* data, std::size_t len, F f) {
    auto* bytes = static_cast<const std::uint8_t*>(data);
    std::size_t off = 0;
    while (len - off >= sizeof(nlattr)) {
        auto* attr = reinterpret_cast<const nlattr*>(bytes + off);
        std::size_t left = len - off;
        if (attr->nla_len < sizeof(nlattr) || attr->nla_len > left)
            return Failure{"truncated attribute (type " + std::to_string(mnl_attr_get_type(attr)) +
                           ", " + std::to_string(attr->nla_len) + " bytes declared, " +
                           std::to_string(left) + " left)"};
        f(attr);
        off += std::min(left, static_cast<std::size_t>(MNL_ALIGN(attr->nla_len)));
    }
    if (off < len)
        return Failure{"truncated attribute (" + std::to_string(len - off) + " stray bytes)"};
    return Ok{};
}

// The request offset an error's extended ack points at (NLMSGERR_ATTR_OFFS).
std::optional<std::uint32_t> error_offset(const Bytes& bytes) {
    std::optional<std::uint32_t> found;
    for_each_message(bytes.data(), bytes.size(), [&](const nlmsghdr* nlh) -> Status {
        if (nlh->nlmsg_type != NLMSG_ERROR || nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(nlmsgerr))
            return Ok{};
        nlmsgerr err;
        std::memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
        if (const nlattr* a = extack_attr(nlh, error_tlv_offset(nlh, err), NLMSGERR_ATTR_OFFS))
            if (auto v = attr_u32(a, "extack offset")) found = v.value();
        return Ok{};
    });
    return found;
}

} // namespace

Result<NetlinkSocket> NetlinkSocket::open(int protocol) {
    mnl_socket* nl = mnl_socket_open(protocol);
    if (!nl) return Failure{"socket: " + errno_text(errno), errno};
    int one = 1;
    // Extended acks carry the kernel's reason; capped acks keep error replies small.
    mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one));
    mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &one, sizeof(one));
    if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
        int err = errno;
        mnl_socket_close(nl);
        return Failure{"bind: " + errno_text(err), err};
    }
    return NetlinkSocket(nl, protocol);
}

NetlinkSocket::NetlinkSocket(mnl_socket* nl, int protocol)
    : nl_(nl), protocol_(protocol), portid_(mnl_socket_get_portid(nl)),
      seq_(static_cast<std::uint32_t>(time(nullptr))) {}

NetlinkSocket::NetlinkSocket(NetlinkSocket&& other) noexcept
    : nl_(other.nl_), protocol_(other.protocol_), last_request_(std::move(other.last_request_)),
      portid_(other.portid_), seq_(other.seq_) {
    other.nl_ = nullptr;
}

NetlinkSocket::~NetlinkSocket() {
    if (nl_) mnl_socket_close(nl_);
}

Result<Bytes> NetlinkSocket::exchange(const std::function<void(nlmsghdr*)>& fill) {
    alignas(nlmsghdr) std::uint8_t req[8192];
    nlmsghdr* nlh = mnl_nlmsg_put_header(req);
    nlh->nlmsg_flags = NLM_F_REQUEST;
    nlh->nlmsg_seq = ++seq_;
    fill(nlh);
    last_request_.assign(req, req + nlh->nlmsg_len);
    if (mnl_socket_sendto(nl_, nlh, nlh->nlmsg_len) < 0)
        return Failure{"send: " + errno_text(errno), errno};

    Bytes out;
    std::vector<std::uint8_t> buf(recv_buffer_size);
    const std::uint32_t seq = nlh->nlmsg_seq;
    for (;;) {
        ssize_t n = mnl_socket_recvfrom(nl_, buf.data(), buf.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            return Failure{"receive: " + errno_text(errno), errno};
        }
        bool last = false;
        auto scanned = for_each_message(
            buf.data(), static_cast<std::size_t>(n), [&](const nlmsghdr* m) -> Status {
                // A dedicated socket sees only our conversation.
                if (m->nlmsg_seq != seq || m->nlmsg_pid != portid_)
                    return Failure{"netlink reply out of sequence"};
                last |= m->nlmsg_type == NLMSG_DONE || m->nlmsg_type == NLMSG_ERROR;
                return Ok{};
            });
        if (!scanned) return scanned.failure();
        out.insert(out.end(), buf.begin(), buf.begin() + n);
        if (last) return out;
    }
}

Result<Bytes> NetlinkSocket::request(const std::function<void(nlmsghdr*)>& fill) {
    bool is_dump = false;
    auto filled = [&](nlmsghdr* nlh) {
        fill(nlh);
        is_dump = (nlh->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
    };
    for (int attempt = 1;; ++attempt) {
        auto bytes = exchange(filled);
        if (!bytes) return bytes;
        auto walked = walk_messages(bytes.value().data(), bytes.value().size(),
                                    [](const nlmsghdr*) -> Status { return Ok{}; });
        if (!walked) {
            auto offs = error_offset(bytes.value());
            std::string where =
                offs ? attribute_at(last_request_, protocol_ == NETLINK_GENERIC ? GENL_HDRLEN : 0,
                                    *offs)
                     : std::string();
            if (where.empty()) return walked.failure();
            return Failure{walked.error() + " (attribute " + where + ")", walked.error_code()};
        }
        interrupted_ = is_dump && dump_interrupted(bytes.value().data(), bytes.value().size());
        if (!interrupted_ || attempt == dump_attempts) return bytes;
    }
}

std::string attribute_at(const Bytes& request, std::size_t header_len, std::uint32_t offset) {
    std::string path;
    std::size_t start = NLMSG_HDRLEN + NLMSG_ALIGN(header_len);
    std::size_t end = request.size();
    // Descends into the attribute that contains offset until one starts there.
    while (start < end && offset >= start && offset < end) {
        const nlattr* found = nullptr;
        std::size_t at = 0;
        for_each_attr(request.data() + start, end - start, [&](const nlattr* a) {
            std::size_t pos =
                static_cast<std::size_t>(reinterpret_cast<const std::uint8_t*>(a) - request.data());
            if (offset >= pos && offset < pos + a->nla_len) {
                found = a;
                at = pos;
            }
        });
        if (!found) return {};
        if (!path.empty()) path += '.';
        path += std::to_string(mnl_attr_get_type(found));
        if (at == offset) return path;
        start = at + NLA_HDRLEN;
        end = at + found->nla_len;
    }
    return {};
}

bool dump_interrupted(const std::uint8_t* data, std::size_t len) {
    bool found = false;
    for_each_message(data, len, [&](const nlmsghdr* nlh) -> Status {
        found |= (nlh->nlmsg_flags & NLM_F_DUMP_INTR) != 0;
        return Ok{};
    });
    return found;
}

Result<StreamEnd> walk_messages(const std::uint8_t* data, std::size_t len,
                                const std::function<Status(const nlmsghdr*)>& on_data) {
    std::optional<Result<StreamEnd>> end;
    auto st = for_each_message(data, len, [&](const nlmsghdr* nlh) -> Status {
        if (end) return Ok{}; // nothing after the end of the stream counts
        switch (nlh->nlmsg_type) {
        case NLMSG_NOOP:
            return Ok{};
        case NLMSG_DONE: {
            int error = 0;
            if (nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(int))
                std::memcpy(&error, mnl_nlmsg_get_payload(nlh), sizeof(int));
            if (error < 0)
                end = Result<StreamEnd>(kernel_failure(error, extack_message(nlh, sizeof(int))));
            else
                end = Result<StreamEnd>(StreamEnd::done);
            return Ok{};
        }
        case NLMSG_ERROR: {
            if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(nlmsgerr))
                return Failure{"truncated netlink error message"};
            nlmsgerr err;
            std::memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
            if (err.error == 0) {
                end = Result<StreamEnd>(StreamEnd::done);
                return Ok{};
            }
            end = Result<StreamEnd>(
                kernel_failure(err.error, extack_message(nlh, error_tlv_offset(nlh, err))));
            return Ok{};
        }
        default:
            if (nlh->nlmsg_type < NLMSG_MIN_TYPE) return Ok{};
            return on_data(nlh);
        }
    });
    if (!st) return st.failure();
    if (end) return *end;
    return StreamEnd::more;
}

namespace {
Status fill_table(AttrTable& table, const void* data, std::size_t len, unsigned max) {
    table.assign(max + 1, nullptr);
    return for_each_attr(data, len, [&](const nlattr* attr) {
        unsigned type = mnl_attr_get_type(attr);
        if (type <= max) table[type] = attr;
    });
}
} // namespace

Result<AttrTable> parse_attrs(const void* data, std::size_t len, unsigned max) {
    AttrTable table;
    if (auto st = fill_table(table, data, len, max); !st) return st.failure();
    return table;
}

Result<AttrTable> parse_nested(const nlattr* nest, unsigned max) {
    return parse_attrs(mnl_attr_get_payload(nest), mnl_attr_get_payload_len(nest), max);
}

Status parse_nested_into(AttrTable& table, const nlattr* nest, unsigned max) {
    return fill_table(table, mnl_attr_get_payload(nest), mnl_attr_get_payload_len(nest), max);
}

Result<std::vector<const nlattr*>> nested_list(const nlattr* nest) {
    std::vector<const nlattr*> out;
    auto st = for_each_attr(mnl_attr_get_payload(nest), mnl_attr_get_payload_len(nest),
                            [&](const nlattr* attr) { out.push_back(attr); });
    if (!st) return Failure{"nested list: " + st.error()};
    return out;
}

namespace {
template <typename T> Result<T> attr_fixed(const nlattr* a, const char* name) {
    if (auto v = fixed_payload<T>(a)) return *v;
    return Failure{std::string(name) + ": " + std::to_string(mnl_attr_get_payload_len(a)) +
                   " bytes, expected " + std::to_string(sizeof(T))};
}
} // namespace

Result<std::uint8_t> attr_u8(const nlattr* a, const char* name) {
    return attr_fixed<std::uint8_t>(a, name);
}
Result<std::uint16_t> attr_u16(const nlattr* a, const char* name) {
    return attr_fixed<std::uint16_t>(a, name);
}
Result<std::uint32_t> attr_u32(const nlattr* a, const char* name) {
    return attr_fixed<std::uint32_t>(a, name);
}
Result<std::uint64_t> attr_u64(const nlattr* a, const char* name) {
    return attr_fixed<std::uint64_t>(a, name);
}

Result<std::string> attr_string(const nlattr* a, const char* name) {
    auto* p = static_cast<const char*>(mnl_attr_get_payload(a));
    std::size_t len = mnl_attr_get_payload_len(a);
    const void* nul = std::memchr(p, '\0', len);
    if (!nul) return Failure{std::string(name) + ": string without terminator"};
    return std::string(p, static_cast<const char*>(nul));
}

} // namespace rdmastat
