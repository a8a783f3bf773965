// SPDX-License-Identifier: MIT
#include "collect/module_parse.h"

#include "collect/attrs.h"
#include "collect/genl.h"

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <linux/rdmastat.h>
#include <optional>

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

ModuleRecord::OwnerPart owner_of(const Attrs& o) {
    ModuleRecord::OwnerPart owner;
    owner.pid = o.u32(RDMASTAT_OWNER_A_PID, "owner pid");
    owner.tid = o.u32(RDMASTAT_OWNER_A_TID, "owner tid");
    owner.uid = o.u32(RDMASTAT_OWNER_A_UID, "owner uid");
    owner.comm = o.str(RDMASTAT_OWNER_A_COMM, "owner comm");
    owner.kernel = o.str(RDMASTAT_OWNER_A_KERN_NAME, "kernel owner name");
    return owner;
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

} // namespace

Result<std::vector<ModuleRecord>> parse_module_dump(const Bytes& bytes) {
    std::vector<ModuleRecord> out;
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
            if (m.cmd != RDMASTAT_CMD_CONN_GET)
                throw Error("unexpected command " + std::to_string(m.cmd));
            out.push_back(record_of(Attrs(std::move(m.attrs))));
        } catch (const Error& e) {
            return Failure{"conn dump message " + std::to_string(index) + ": " + e.what()};
        }
        return Ok{};
    });
    if (!walked) return walked.failure();
    if (walked.value() != StreamEnd::done)
        return Failure{"conn dump: dump ended without NLMSG_DONE"};
    return unique_by(std::move(out),
                     [](const ModuleRecord& r) { return std::pair(r.device_index, r.cm_idn); });
}

} // namespace rdmastat
