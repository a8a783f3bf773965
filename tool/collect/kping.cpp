// SPDX-License-Identifier: MIT
#include "collect/kping.h"

#include "collect/attrs.h"
#include "common/numbers.h"

#include <cerrno>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <linux/rdmastat_kping.h>

namespace rdmastat {
namespace {

IpAddress address_of(const Attrs& a) {
    const nlattr* attr = a.get(RDMASTAT_KPING_A_ADDR);
    if (!attr) throw Error("address", "missing");
    std::size_t len = mnl_attr_get_payload_len(attr);
    if (len != 4 && len != 16)
        throw Error("address", std::to_string(len) + " bytes, expected 4 or 16");
    IpAddress ip;
    ip.family = len == 4 ? AF_INET : AF_INET6;
    std::memcpy(ip.bytes.data(), mnl_attr_get_payload(attr), len);
    return ip;
}

KpingRun run_of(const Attrs& a) {
    KpingRun r;
    r.id = a.need(a.u32(RDMASTAT_KPING_A_ID, "id"), "id");
    r.server = a.need(a.u8(RDMASTAT_KPING_A_ROLE, "role"), "role") == RDMASTAT_KPING_ROLE_SERVER;
    r.address = address_of(a);
    r.port = a.need(a.u16(RDMASTAT_KPING_A_PORT, "port"), "port");
    r.count = a.u32(RDMASTAT_KPING_A_COUNT, "count").value_or(0);
    r.size = a.u32(RDMASTAT_KPING_A_SIZE, "size").value_or(0);
    r.depth = a.u32(RDMASTAT_KPING_A_DEPTH, "depth").value_or(0);
    r.timeout_ms = a.u32(RDMASTAT_KPING_A_TIMEOUT_MS, "timeout");
    r.validate = a.has(RDMASTAT_KPING_A_VALIDATE);
    r.mode = KpingMode{a.u8(RDMASTAT_KPING_A_MODE, "mode").value_or(0)};
    r.mem = KpingMem{a.u8(RDMASTAT_KPING_A_MEM, "memory mode").value_or(0)};
    r.state = KpingState{a.need(a.u8(RDMASTAT_KPING_A_STATE, "state"), "state")};
    r.error = a.u32(RDMASTAT_KPING_A_ERROR, "error");
    r.error_msg = a.str(RDMASTAT_KPING_A_ERROR_MSG, "error message").value_or("");
    r.peer = a.sockaddr(RDMASTAT_KPING_A_PEER, "peer");
    r.device = a.str(RDMASTAT_KPING_A_DEV_NAME, "device").value_or("");
    const std::pair<int, std::uint64_t KpingRun::*> counters[] = {
        {RDMASTAT_KPING_A_ITERS, &KpingRun::iters},
        {RDMASTAT_KPING_A_SEND_OPS, &KpingRun::send_ops},
        {RDMASTAT_KPING_A_SEND_BYTES, &KpingRun::send_bytes},
        {RDMASTAT_KPING_A_RECV_OPS, &KpingRun::recv_ops},
        {RDMASTAT_KPING_A_RECV_BYTES, &KpingRun::recv_bytes},
        {RDMASTAT_KPING_A_WRITE_OPS, &KpingRun::write_ops},
        {RDMASTAT_KPING_A_WRITE_BYTES, &KpingRun::write_bytes},
        {RDMASTAT_KPING_A_READ_OPS, &KpingRun::read_ops},
        {RDMASTAT_KPING_A_READ_BYTES, &KpingRun::read_bytes},
        {RDMASTAT_KPING_A_REG_OPS, &KpingRun::reg_ops},
        {RDMASTAT_KPING_A_INV_OPS, &KpingRun::inv_ops},
        {RDMASTAT_KPING_A_REMOTE_INV_OPS, &KpingRun::remote_inv_ops},
    };
    for (const auto& [type, field] : counters)
        r.*field = a.u64(type, "counter").value_or(0);
    r.lat_min_ns = a.u64(RDMASTAT_KPING_A_LAT_MIN_NS, "latency min");
    r.lat_max_ns = a.u64(RDMASTAT_KPING_A_LAT_MAX_NS, "latency max");
    r.lat_sum_ns = a.u64(RDMASTAT_KPING_A_LAT_SUM_NS, "latency sum");
    r.elapsed_ns = a.u64(RDMASTAT_KPING_A_ELAPSED_NS, "elapsed");
    return r;
}

// The request attributes by number, as the UAPI names them.
const char* request_attr_name(unsigned type) {
    switch (type) {
    case RDMASTAT_KPING_A_ID:
        return "RDMASTAT_KPING_A_ID";
    case RDMASTAT_KPING_A_ROLE:
        return "RDMASTAT_KPING_A_ROLE";
    case RDMASTAT_KPING_A_ADDR:
        return "RDMASTAT_KPING_A_ADDR";
    case RDMASTAT_KPING_A_PORT:
        return "RDMASTAT_KPING_A_PORT";
    case RDMASTAT_KPING_A_COUNT:
        return "RDMASTAT_KPING_A_COUNT";
    case RDMASTAT_KPING_A_SIZE:
        return "RDMASTAT_KPING_A_SIZE";
    case RDMASTAT_KPING_A_VALIDATE:
        return "RDMASTAT_KPING_A_VALIDATE";
    case RDMASTAT_KPING_A_MODE:
        return "RDMASTAT_KPING_A_MODE";
    case RDMASTAT_KPING_A_DEPTH:
        return "RDMASTAT_KPING_A_DEPTH";
    case RDMASTAT_KPING_A_MEM:
        return "RDMASTAT_KPING_A_MEM";
    case RDMASTAT_KPING_A_TIMEOUT_MS:
        return "RDMASTAT_KPING_A_TIMEOUT_MS";
    default:
        return nullptr;
    }
}

// The kernel's refusal, said for a person: a bare EPERM is the capability
// check; one with an extended ack (the dma mode's parameter) says why itself.
// "(attribute N)", where the ack pointed, becomes the attribute's name.
Failure refused(const std::string& what, const Failure& f) {
    if (f.code == EPERM && f.message.find(':') == std::string::npos)
        return Failure{what + ": permission denied: starting and stopping kping runs needs "
                              "CAP_NET_ADMIN (run as root)",
                       EPERM};
    std::string message = f.message;
    const std::string tag = "(attribute ";
    if (auto at = message.rfind(tag); at != std::string::npos && message.back() == ')') {
        const std::string number =
            message.substr(at + tag.size(), message.size() - at - tag.size() - 1);
        if (auto n = parse_number<unsigned>(number))
            if (const char* name = request_attr_name(*n))
                message = message.substr(0, at) + "(" + name + ")";
    }
    return Failure{what + ": " + message, f.code};
}

} // namespace

Result<std::vector<KpingRun>> parse_kping_reply(const Bytes& bytes) {
    std::vector<KpingRun> out;
    unsigned index = 0;
    auto walked = walk_messages(bytes.data(), bytes.size(), [&](const nlmsghdr* nlh) -> Status {
        ++index;
        try {
            GenlMessage m = parse_genl_message(nlh, RDMASTAT_KPING_A_MAX).take();
            if (m.cmd < RDMASTAT_KPING_CMD_START || m.cmd > RDMASTAT_KPING_CMD_GET)
                throw Error("unexpected command " + std::to_string(m.cmd));
            out.push_back(run_of(Attrs(std::move(m.attrs))));
        } catch (const Error& e) {
            return Failure{"kping message " + std::to_string(index) + ": " + e.what()};
        }
        return Ok{};
    });
    if (!walked) return walked.failure();
    if (walked.value() != StreamEnd::done)
        return Failure{"kping reply ended without NLMSG_DONE or an ack"};
    return out;
}

Result<std::optional<KpingSource>> KpingSource::open() {
    auto sock = NetlinkSocket::open(NETLINK_GENERIC);
    if (!sock) {
        if (sock.error_code() == EPROTONOSUPPORT) return std::optional<KpingSource>();
        return Failure{"generic netlink: " + sock.error(), sock.error_code()};
    }
    auto family = resolve_genl_family(sock.value(), RDMASTAT_KPING_GENL_NAME);
    if (!family) return family.failure();
    if (!family.value()) return std::optional<KpingSource>();
    return std::optional<KpingSource>(KpingSource(std::move(sock.value()), *family.value()));
}

Result<KpingRun> KpingSource::one(Result<Bytes> reply) {
    if (!reply) return reply.failure();
    auto runs = parse_kping_reply(reply.value());
    if (!runs) return runs.failure();
    if (runs.value().size() != 1)
        return Failure{"kping: " + std::to_string(runs.value().size()) +
                       " runs in a reply about one"};
    return runs.value().front();
}

Result<KpingRun> KpingSource::start(const KpingStart& s) {
    auto reply = socket_.request([&](nlmsghdr* nlh) {
        nlh->nlmsg_type = family_.id;
        nlh->nlmsg_flags |= NLM_F_ACK;
        put_genl_header(nlh, RDMASTAT_KPING_CMD_START, RDMASTAT_KPING_GENL_VERSION);
        mnl_attr_put_u8(nlh, RDMASTAT_KPING_A_ROLE,
                        s.server ? RDMASTAT_KPING_ROLE_SERVER : RDMASTAT_KPING_ROLE_CLIENT);
        mnl_attr_put(nlh, RDMASTAT_KPING_A_ADDR, s.address.family == AF_INET ? 4 : 16,
                     s.address.bytes.data());
        mnl_attr_put_u16(nlh, RDMASTAT_KPING_A_PORT, s.port);
        if (s.count) mnl_attr_put_u32(nlh, RDMASTAT_KPING_A_COUNT, *s.count);
        if (s.size) mnl_attr_put_u32(nlh, RDMASTAT_KPING_A_SIZE, *s.size);
        if (s.depth) mnl_attr_put_u32(nlh, RDMASTAT_KPING_A_DEPTH, *s.depth);
        if (s.timeout_ms) mnl_attr_put_u32(nlh, RDMASTAT_KPING_A_TIMEOUT_MS, *s.timeout_ms);
        if (s.validate) mnl_attr_put(nlh, RDMASTAT_KPING_A_VALIDATE, 0, nullptr);
        mnl_attr_put_u8(nlh, RDMASTAT_KPING_A_MODE, static_cast<std::uint8_t>(s.mode));
        mnl_attr_put_u8(nlh, RDMASTAT_KPING_A_MEM, static_cast<std::uint8_t>(s.mem));
    });
    if (!reply) return refused("kping start", reply.failure());
    return one(std::move(reply));
}

Result<KpingRun> KpingSource::by_id(std::uint8_t cmd, std::uint32_t id, const std::string& what) {
    auto reply = socket_.request([&](nlmsghdr* nlh) {
        nlh->nlmsg_type = family_.id;
        nlh->nlmsg_flags |= NLM_F_ACK;
        put_genl_header(nlh, cmd, RDMASTAT_KPING_GENL_VERSION);
        mnl_attr_put_u32(nlh, RDMASTAT_KPING_A_ID, id);
    });
    if (!reply) return refused(what, reply.failure());
    return one(std::move(reply));
}

Result<KpingRun> KpingSource::stop(std::uint32_t id) {
    return by_id(RDMASTAT_KPING_CMD_STOP, id, "kping stop");
}

Result<KpingRun> KpingSource::get(std::uint32_t id) {
    return by_id(RDMASTAT_KPING_CMD_GET, id, "kping show");
}

Result<Bytes> KpingSource::dump() {
    return socket_.request([&](nlmsghdr* nlh) {
        nlh->nlmsg_type = family_.id;
        nlh->nlmsg_flags |= NLM_F_DUMP;
        put_genl_header(nlh, RDMASTAT_KPING_CMD_GET, RDMASTAT_KPING_GENL_VERSION);
    });
}

Result<std::vector<KpingRun>> KpingSource::collect() {
    auto bytes = dump();
    if (!bytes) return Failure{"kping dump: " + bytes.error(), bytes.error_code()};
    return parse_kping_reply(bytes.value());
}

} // namespace rdmastat
