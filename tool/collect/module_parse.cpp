// SPDX-License-Identifier: MIT
#include "collect/module_parse.h"

#include "collect/attrs.h"
#include "collect/genl.h"

#include <cstring>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <linux/rdmastat.h>
#include <optional>
#include <sys/socket.h>

namespace rdmastat {
namespace {

// A nest's attributes, or its parse error prefixed with the nest's name.
template <typename Fill>
auto in_nest(const Attrs& a, int type, unsigned max, const char* name, Fill fill) {
    try {
        return fill(Attrs(parse_nested(a.get(type), max).take()));
    } catch (const Error& e) {
        throw Error(name, e.what());
    }
}

ModuleRecord::QpPart qp_of(const Attrs& q) {
    ModuleRecord::QpPart qp;
    qp.number = q.need(q.u32(RDMASTAT_QP_A_NUM, "qp number"), "qp number");
    qp.type = q.u8(RDMASTAT_QP_A_TYPE, "qp type");
    qp.state = q.u8(RDMASTAT_QP_A_STATE, "qp state");
    qp.unjoined = q.u8(RDMASTAT_QP_A_UNJOINED, "qp unjoined");
    return qp;
}

std::optional<IpAddress> gid_of(const Attrs& a, int type, const char* name) {
    const nlattr* at = a.get(type);
    if (!at) return std::nullopt;
    if (mnl_attr_get_payload_len(at) != 16) throw Error(name, "not 16 bytes");
    IpAddress gid{AF_INET6, {}};
    std::memcpy(gid.bytes.data(), mnl_attr_get_payload(at), 16);
    return gid;
}

QpPath av_of(const Attrs& a) {
    QpPath p;
    p.port = a.u32(RDMASTAT_AV_A_PORT, "port");
    p.dgid = gid_of(a, RDMASTAT_AV_A_DGID, "dgid");
    p.sgid_index = a.u8(RDMASTAT_AV_A_SGID_INDEX, "sgid index");
    p.sgid = gid_of(a, RDMASTAT_AV_A_SGID, "sgid");
    p.flow_label = a.u32(RDMASTAT_AV_A_FLOW_LABEL, "flow label");
    p.traffic_class = a.u8(RDMASTAT_AV_A_TRAFFIC_CLASS, "traffic class");
    p.hop_limit = a.u8(RDMASTAT_AV_A_HOP_LIMIT, "hop limit");
    p.dlid = a.u32(RDMASTAT_AV_A_DLID, "dlid");
    p.sl = a.u8(RDMASTAT_AV_A_SL, "sl");
    return p;
}

// enum ib_mtu: 1 is 256 bytes, each next one twice the last, 5 is 4096.
std::uint32_t mtu_bytes(std::uint8_t mtu) {
    if (mtu < 1 || mtu > 5) throw Error("path mtu", std::to_string(mtu) + " is no enum ib_mtu");
    return 128u << mtu;
}

ModuleRecord::OwnerPart owner_of(const Attrs& o) {
    ModuleRecord::OwnerPart owner;
    owner.pid = o.u32(RDMASTAT_OWNER_A_PID, "owner pid");
    owner.tid = o.u32(RDMASTAT_OWNER_A_TID, "owner tid");
    owner.uid = o.u32(RDMASTAT_OWNER_A_UID, "owner uid");
    owner.comm = o.str(RDMASTAT_OWNER_A_COMM, "owner comm");
    owner.kernel = o.str(RDMASTAT_OWNER_A_KERN_NAME, "kernel owner name");
    return owner;
}

// The QP nest of a QP dump message fills r.
void qp_dump_part(const Attrs& q, ModuleQpRecord& r) {
    r.number = q.need(q.u32(RDMASTAT_QP_A_NUM, "qp number"), "qp number");
    r.type = q.u8(RDMASTAT_QP_A_TYPE, "qp type");
    r.state = q.u8(RDMASTAT_QP_A_STATE, "qp state");
    r.remote_number = q.u32(RDMASTAT_QP_A_DEST_NUM, "remote qp number");
    if (q.has(RDMASTAT_QP_A_AV))
        r.path = in_nest(q, RDMASTAT_QP_A_AV, RDMASTAT_AV_A_MAX, "address vector", av_of);
    if (auto mtu = q.u8(RDMASTAT_QP_A_PATH_MTU, "path mtu")) {
        if (!r.path) r.path.emplace();
        r.path->mtu = mtu_bytes(*mtu);
    }
}

ModuleQpRecord qp_record_of(const Attrs& a) {
    ModuleQpRecord r;
    r.device_index = a.need(a.u32(RDMASTAT_A_DEV_INDEX, "device index"), "device index");
    r.device_name = a.need(a.str(RDMASTAT_A_DEV_NAME, "device name"), "device name");
    r.port = a.u32(RDMASTAT_A_PORT, "port");
    if (!a.has(RDMASTAT_A_QP)) throw Error("qp", "missing");
    in_nest(a, RDMASTAT_A_QP, RDMASTAT_QP_A_MAX, "qp", [&](const Attrs& q) {
        qp_dump_part(q, r);
        return 0;
    });
    if (a.has(RDMASTAT_A_OWNER))
        r.owner = in_nest(a, RDMASTAT_A_OWNER, RDMASTAT_OWNER_A_MAX, "owner", owner_of);
    r.netns = a.u32(RDMASTAT_A_NETNS, "netns");
    return r;
}

ModuleRecord record_of(const Attrs& a) {
    ModuleRecord r;
    r.device_index = a.need(a.u32(RDMASTAT_A_DEV_INDEX, "device index"), "device index");
    r.device_name = a.need(a.str(RDMASTAT_A_DEV_NAME, "device name"), "device name");
    r.driver = a.str(RDMASTAT_A_DRIVER, "driver");
    r.transport = a.u8(RDMASTAT_A_TRANSPORT, "transport");
    r.port = a.u32(RDMASTAT_A_PORT, "port");
    r.cm_idn = a.need(a.u32(RDMASTAT_A_CM_IDN, "cm id number"), "cm id number");
    r.state = a.need(a.u8(RDMASTAT_A_CM_STATE, "cm state"), "cm state");
    r.port_space = a.u32(RDMASTAT_A_PORT_SPACE, "port space");
    r.internal = a.has(RDMASTAT_A_INTERNAL);
    r.local = a.sockaddr(RDMASTAT_A_LOCAL, "local address");
    r.peer = a.sockaddr(RDMASTAT_A_PEER, "peer address");
    r.mapped_local = a.sockaddr(RDMASTAT_A_MAPPED_LOCAL, "mapped local address");
    r.mapped_peer = a.sockaddr(RDMASTAT_A_MAPPED_PEER, "mapped peer address");
    r.mapped = a.has(RDMASTAT_A_MAPPED);
    r.mapping_withheld = a.has(RDMASTAT_A_MAPPING_WITHHELD);
    if (a.has(RDMASTAT_A_QP)) r.qp = in_nest(a, RDMASTAT_A_QP, RDMASTAT_QP_A_MAX, "qp", qp_of);
    if (a.has(RDMASTAT_A_OWNER))
        r.owner = in_nest(a, RDMASTAT_A_OWNER, RDMASTAT_OWNER_A_MAX, "owner", owner_of);
    r.netns = a.u32(RDMASTAT_A_NETNS, "netns");
    return r;
}

// Every message of a dump of command cmd, each made a record by record.
template <typename Record, typename Make>
Result<std::vector<Record>> parse_dump(const Bytes& bytes, std::uint8_t cmd, const char* what,
                                       Make record) {
    std::vector<Record> out;
    std::optional<std::uint16_t> family;
    unsigned index = 0;
    auto walked = walk_messages(bytes.data(), bytes.size(), [&](const nlmsghdr* nlh) -> Status {
        ++index;
        try {
            // The family id is the kernel's choice at registration: every message
            // of one dump carries the same one.
            if (family && nlh->nlmsg_type != *family)
                throw Error("unexpected message type " + std::to_string(nlh->nlmsg_type) +
                            " (the dump began with " + std::to_string(*family) + ")");
            family = nlh->nlmsg_type;
            GenlMessage m = parse_genl_message(nlh, RDMASTAT_A_MAX).take();
            if (m.cmd != cmd) throw Error("unexpected command " + std::to_string(m.cmd));
            out.push_back(record(Attrs(std::move(m.attrs))));
        } catch (const Error& e) {
            return Failure{std::string(what) + " dump message " + std::to_string(index) + ": " +
                           e.what()};
        }
        return Ok{};
    });
    if (!walked) return walked.failure();
    if (walked.value() != StreamEnd::done)
        return Failure{std::string(what) + " dump: dump ended without NLMSG_DONE"};
    return out;
}

} // namespace

Result<std::vector<ModuleRecord>> parse_module_dump(const Bytes& bytes) {
    auto out = parse_dump<ModuleRecord>(bytes, RDMASTAT_CMD_CONN_GET, "conn", record_of);
    if (!out) return out;
    return unique_by(std::move(out.value()),
                     [](const ModuleRecord& r) { return std::pair(r.device_index, r.cm_idn); });
}

Result<std::vector<ModuleQpRecord>> parse_module_qp_dump(const Bytes& bytes) {
    auto out = parse_dump<ModuleQpRecord>(bytes, RDMASTAT_CMD_QP_GET, "qp", qp_record_of);
    if (!out) return out;
    return unique_by(std::move(out.value()),
                     [](const ModuleQpRecord& r) { return std::pair(r.device_index, r.number); });
}

} // namespace rdmastat
