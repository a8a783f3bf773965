// SPDX-License-Identifier: MIT
#include "collect/nldev_parse.h"

#include "collect/attrs.h"
#include "collect/nldev_walk.h"
#include "model/names.h"

#include <cinttypes>
#include <cstdio>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

namespace rdmastat {
namespace {

using nldev::message_attrs;
using nldev::nested_attrs;
using nldev::walk_dump;

RawOwner owner_of(const Attrs& a) {
    return RawOwner{a.u32(RDMA_NLDEV_ATTR_RES_PID, "pid"),
                    a.str(RDMA_NLDEV_ATTR_RES_KERN_NAME, "kernel owner name")};
}

// Entries of a resource list (RES_CM_ID → RES_CM_ID_ENTRY...), each parsed by fill.
template <typename F> void for_each_entry(const Attrs& msg, int list_type, int entry_type, F fill) {
    const nlattr* list = msg.get(list_type);
    if (!list) return; // a device with no such resources sends no list
    unsigned n = 0;
    Attrs attrs{AttrTable{}}; // one table for every entry: a dump has thousands
    for (const nlattr* entry : nested_list(list).take()) {
        ++n;
        if (mnl_attr_get_type(entry) != entry_type) continue;
        // nldev.c opens an entry for a kernel-owned context and puts nothing in
        // it: there is nothing to report about such an entry.
        if (mnl_attr_get_payload_len(entry) == 0) continue;
        try {
            attrs.refill(entry, RDMA_NLDEV_ATTR_MAX);
            fill(static_cast<const Attrs&>(attrs));
        } catch (const Error& e) {
            throw Error("entry " + std::to_string(n), e.what());
        }
    }
}

// How many items the lists of list_type hold in a dump's messages; what
// cannot be read counts nothing here (the parse that follows says why).
std::size_t count_entries(const Bytes& bytes, int list_type) {
    std::size_t n = 0;
    (void)walk_messages(bytes.data(), bytes.size(), [&](const nlmsghdr* nlh) -> Status {
        auto attrs = parse_attrs(mnl_nlmsg_get_payload(nlh), mnl_nlmsg_get_payload_len(nlh),
                                 RDMA_NLDEV_ATTR_MAX);
        if (attrs && attrs.value()[static_cast<std::size_t>(list_type)])
            if (auto items = nested_list(attrs.value()[static_cast<std::size_t>(list_type)]))
                n += items.value().size();
        return Ok{};
    });
    return n;
}

// A per-device resource dump: every message names the device, then carries a
// list of entries (split over messages when long); fill parses one entry.
template <typename Record, typename Fill>
Result<std::vector<Record>> parse_entries(const Bytes& bytes, unsigned cmd, int list_type,
                                          int entry_type, const char* what, Fill fill) {
    std::vector<Record> out;
    // Counted first: 10k records moved as their vector grows cost more than
    // the count.
    out.reserve(count_entries(bytes, list_type));
    auto st = walk_dump(bytes, cmd, what, [&](const Attrs& m) {
        auto index = m.need(m.u32(RDMA_NLDEV_ATTR_DEV_INDEX, "device index"), "device index");
        auto name = m.need(m.str(RDMA_NLDEV_ATTR_DEV_NAME, "device name"), "device name");
        for_each_entry(m, list_type, entry_type, [&](const Attrs& a) {
            // Filled where it is kept; a failed fill fails the whole dump.
            Record& r = out.emplace_back();
            r.device_index = index;
            r.device_name = name;
            fill(a, r);
        });
    });
    if (!st) return st.failure();
    return out;
}

std::string hex_text(std::uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof(buf), "0x%" PRIx32, v);
    return buf;
}

// Details of each kind but qp (resource_from_qp names a QP's type and state).
void cq_details(const Attrs& a, ResourceDetails& d) {
    if (auto cqe = a.u32(RDMA_NLDEV_ATTR_RES_CQE, "cqe"))
        d.emplace_back("cqe", std::to_string(*cqe));
}

void mr_details(const Attrs& a, ResourceDetails& d) {
    if (auto len = a.u64(RDMA_NLDEV_ATTR_RES_MRLEN, "mr length"))
        d.emplace_back("length", std::to_string(*len));
    // Keys are sent only to readers with CAP_NET_ADMIN.
    if (auto lkey = a.u32(RDMA_NLDEV_ATTR_RES_LKEY, "lkey"))
        d.emplace_back("lkey", hex_text(*lkey));
    if (auto rkey = a.u32(RDMA_NLDEV_ATTR_RES_RKEY, "rkey"))
        d.emplace_back("rkey", hex_text(*rkey));
}

void pd_details(const Attrs& a, ResourceDetails& d) {
    if (auto users = a.u64(RDMA_NLDEV_ATTR_RES_USECNT, "pd users"))
        d.emplace_back("users", std::to_string(*users));
}

void no_details(const Attrs&, ResourceDetails&) {}

// enum ib_srq_type, as rdma names it.
std::string srq_type_name(std::uint8_t type) {
    constexpr const char* names[] = {"BASIC", "XRC", "TM"};
    return type < std::size(names) ? names[type] : std::to_string(type);
}

// The QPs on an SRQ as the kernel sends them (ascending, a run of numbers as
// one range entry) and as rdma prints them: "6-8,11".
std::string srq_qp_text(const nlattr* list) {
    std::string text;
    for (const nlattr* entry : nested_list(list).take()) {
        if (mnl_attr_get_type(entry) != RDMA_NLDEV_ATTR_RES_QP_ENTRY) continue;
        Attrs q = nested_attrs(entry);
        if (!text.empty()) text += ',';
        if (auto n = q.u32(RDMA_NLDEV_ATTR_RES_LQPN, "srq qp number")) {
            text += std::to_string(*n);
            continue;
        }
        auto min = q.need(q.u32(RDMA_NLDEV_ATTR_MIN_RANGE, "srq qp range start"),
                          "srq qp number or range");
        auto max = q.need(q.u32(RDMA_NLDEV_ATTR_MAX_RANGE, "srq qp range end"), "srq qp range end");
        text += std::to_string(min) + '-' + std::to_string(max);
    }
    return text;
}

void srq_details(const Attrs& a, ResourceDetails& d) {
    if (auto type = a.u8(RDMA_NLDEV_ATTR_RES_TYPE, "srq type"))
        d.emplace_back("type", srq_type_name(*type));
    if (const nlattr* qps = a.get(RDMA_NLDEV_ATTR_RES_QP))
        if (std::string text = srq_qp_text(qps); !text.empty()) d.emplace_back("lqpn", text);
    if (auto pdn = a.u32(RDMA_NLDEV_ATTR_RES_PDN, "pd number"))
        d.emplace_back("pdn", std::to_string(*pdn));
    // Only an SRQ with its own completion queue (XRC, tag matching) names one.
    if (auto cqn = a.u32(RDMA_NLDEV_ATTR_RES_CQN, "cq number"))
        d.emplace_back("cqn", std::to_string(*cqn));
}

using K = ResourceKind;
constexpr NldevResourceKind kinds[] = {
    {K::qp, RDMA_NLDEV_CMD_RES_QP_GET, RDMA_NLDEV_ATTR_RES_QP, RDMA_NLDEV_ATTR_RES_QP_ENTRY,
     RDMA_NLDEV_ATTR_RES_LQPN, "qp number", nullptr},
    {K::cq, RDMA_NLDEV_CMD_RES_CQ_GET, RDMA_NLDEV_ATTR_RES_CQ, RDMA_NLDEV_ATTR_RES_CQ_ENTRY,
     RDMA_NLDEV_ATTR_RES_CQN, "cq number", cq_details},
    {K::mr, RDMA_NLDEV_CMD_RES_MR_GET, RDMA_NLDEV_ATTR_RES_MR, RDMA_NLDEV_ATTR_RES_MR_ENTRY,
     RDMA_NLDEV_ATTR_RES_MRN, "mr number", mr_details},
    {K::pd, RDMA_NLDEV_CMD_RES_PD_GET, RDMA_NLDEV_ATTR_RES_PD, RDMA_NLDEV_ATTR_RES_PD_ENTRY,
     RDMA_NLDEV_ATTR_RES_PDN, "pd number", pd_details},
    {K::ctx, RDMA_NLDEV_CMD_RES_CTX_GET, RDMA_NLDEV_ATTR_RES_CTX, RDMA_NLDEV_ATTR_RES_CTX_ENTRY,
     RDMA_NLDEV_ATTR_RES_CTXN, "context number", no_details},
    {K::srq, RDMA_NLDEV_CMD_RES_SRQ_GET, RDMA_NLDEV_ATTR_RES_SRQ, RDMA_NLDEV_ATTR_RES_SRQ_ENTRY,
     RDMA_NLDEV_ATTR_RES_SRQN, "srq number", srq_details, "5.19"},
};
static_assert(std::size(kinds) == resource_kind_count, "one row per ResourceKind");

constexpr bool in_enum_order() {
    for (std::size_t i = 0; i < std::size(kinds); ++i)
        if (kinds[i].kind != static_cast<ResourceKind>(i)) return false;
    return true;
}
static_assert(in_enum_order(), "row i is ResourceKind i");

} // namespace

Result<std::vector<Device>> parse_device_dump(const Bytes& bytes) {
    std::vector<Device> out;
    auto st = walk_dump(bytes, RDMA_NLDEV_CMD_GET, "device dump", [&](const Attrs& a) {
        Device d;
        d.index = a.need(a.u32(RDMA_NLDEV_ATTR_DEV_INDEX, "device index"), "device index");
        d.name = a.need(a.str(RDMA_NLDEV_ATTR_DEV_NAME, "device name"), "device name");
        if (auto t = a.u8(RDMA_NLDEV_ATTR_DEV_NODE_TYPE, "node type"))
            d.node_type = static_cast<NodeType>(*t);
        d.protocol = a.str(RDMA_NLDEV_ATTR_DEV_PROTOCOL, "protocol");
        if (d.protocol) d.transport = transport_from_protocol(*d.protocol);
        d.firmware = a.str(RDMA_NLDEV_ATTR_FW_VERSION, "firmware version");
        if (auto guid = a.u64(RDMA_NLDEV_ATTR_NODE_GUID, "node guid")) d.node_guid = Guid{*guid};
        out.push_back(std::move(d));
    });
    if (!st) return st.failure();
    return out;
}

Result<std::vector<Port>> parse_port_dump(const Bytes& bytes) {
    std::vector<Port> out;
    auto st = walk_dump(bytes, RDMA_NLDEV_CMD_PORT_GET, "port dump", [&](const Attrs& a) {
        Port p;
        p.index = a.need(a.u32(RDMA_NLDEV_ATTR_PORT_INDEX, "port index"), "port index");
        if (auto s = a.u8(RDMA_NLDEV_ATTR_PORT_STATE, "port state"))
            p.state = static_cast<PortState>(*s);
        if (auto s = a.u8(RDMA_NLDEV_ATTR_PORT_PHYS_STATE, "port physical state"))
            p.phys_state = static_cast<PortPhysState>(*s);
        p.netdev = a.str(RDMA_NLDEV_ATTR_NDEV_NAME, "netdev name");
        p.netdev_index = a.u32(RDMA_NLDEV_ATTR_NDEV_INDEX, "netdev index");
        out.push_back(std::move(p));
    });
    if (!st) return st.failure();
    return out;
}

Result<std::vector<CmIdRecord>> parse_cm_id_dump(const Bytes& bytes) {
    auto records = parse_entries<CmIdRecord>(
        bytes, RDMA_NLDEV_CMD_RES_CM_ID_GET, RDMA_NLDEV_ATTR_RES_CM_ID,
        RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY, "cm_id dump", [](const Attrs& a, CmIdRecord& r) {
            r.port = a.u32(RDMA_NLDEV_ATTR_PORT_INDEX, "port index");
            r.cm_idn = a.need(a.u32(RDMA_NLDEV_ATTR_RES_CM_IDN, "cm id number"), "cm id number");
            r.state = a.need(a.u8(RDMA_NLDEV_ATTR_RES_STATE, "cm state"), "cm state");
            r.port_space = a.u32(RDMA_NLDEV_ATTR_RES_PS, "port space");
            r.qp_number = a.u32(RDMA_NLDEV_ATTR_RES_LQPN, "qp number");
            r.qp_type = a.u8(RDMA_NLDEV_ATTR_RES_TYPE, "qp type");
            r.src = a.endpoint(RDMA_NLDEV_ATTR_RES_SRC_ADDR);
            r.dst = a.endpoint(RDMA_NLDEV_ATTR_RES_DST_ADDR);
            r.owner = owner_of(a);
        });
    if (!records) return records;
    return unique_by(std::move(records.value()),
                     [](const CmIdRecord& r) { return std::pair(r.device_index, r.cm_idn); });
}

Result<std::optional<std::string>> parse_chardev_driver(const Bytes& bytes) {
    // enum rdma_driver_id, named as rdma-core names its providers.
    static constexpr const char* names[] = {nullptr,      "mlx5",    "mlx4",   "cxgb3", "cxgb4",
                                            "mthca",      "bnxt_re", "ocrdma", "nes",   "irdma",
                                            "vmw_pvrdma", "qedr",    "hns",    "usnic", "rxe",
                                            "hfi1",       "qib",     "efa",    "siw",   "erdma"};
    std::optional<std::string> driver;
    auto walked = walk_messages(bytes.data(), bytes.size(), [&](const nlmsghdr* nlh) -> Status {
        try {
            Attrs a = message_attrs(nlh);
            const nlattr* id = a.get(RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID);
            if (!id) return Ok{};
            // The header calls it u64; kernels send a u32. Take either.
            std::uint64_t v = mnl_attr_get_payload_len(id) >= 8 ? attr_u64(id, "driver id").take()
                                                                : attr_u32(id, "driver id").take();
            if (v < std::size(names) && names[v])
                driver = names[v];
            else if (v)
                driver = "driver " + std::to_string(v);
        } catch (const Error& e) {
            return Failure{std::string("chardev reply: ") + e.what()};
        }
        return Ok{};
    });
    if (!walked) return walked.failure();
    return driver;
}

Result<std::vector<QpRecord>> parse_qp_dump(const Bytes& bytes) {
    const NldevResourceKind& k = nldev_resource_kind(ResourceKind::qp);
    auto records = parse_entries<QpRecord>(
        bytes, k.command, k.list_attr, k.entry_attr, "qp dump", [&](const Attrs& a, QpRecord& r) {
            r.port = a.u32(RDMA_NLDEV_ATTR_PORT_INDEX, "port index");
            r.number = a.need(a.u32(k.number_attr, k.number_name), k.number_name);
            r.remote_number = a.u32(RDMA_NLDEV_ATTR_RES_RQPN, "remote qp number");
            r.type = a.u8(RDMA_NLDEV_ATTR_RES_TYPE, "qp type");
            r.state = a.u8(RDMA_NLDEV_ATTR_RES_STATE, "qp state");
            r.pd = a.u32(RDMA_NLDEV_ATTR_RES_PDN, "pd number");
            r.owner = owner_of(a);
        });
    if (!records) return records;
    return unique_by(std::move(records.value()),
                     [](const QpRecord& r) { return std::pair(r.device_index, r.number); });
}

std::span<const NldevResourceKind> nldev_resource_kinds() {
    return kinds;
}

const NldevResourceKind& nldev_resource_kind(ResourceKind kind) {
    return kinds[static_cast<std::size_t>(kind)];
}

Result<std::vector<ResourceRecord>> parse_resource_dump(ResourceKind kind, const Bytes& bytes) {
    const NldevResourceKind& k = nldev_resource_kind(kind);
    // QPs carry more than a resource shows (remote number, PD) for the join
    // with cm_ids; one parser and one conversion serve both uses.
    if (!k.details) {
        auto qps = parse_qp_dump(bytes);
        if (!qps) return qps.failure();
        std::vector<ResourceRecord> out;
        for (const QpRecord& q : qps.value())
            out.push_back(resource_from_qp(q));
        return out;
    }
    std::string what = name_of(kind) + " dump";
    auto records = parse_entries<ResourceRecord>(
        bytes, k.command, k.list_attr, k.entry_attr, what.c_str(),
        [&](const Attrs& a, ResourceRecord& r) {
            r.kind = kind;
            r.number = a.need(a.u32(k.number_attr, k.number_name), k.number_name);
            k.details(a, r.details);
            r.owner = owner_of(a);
        });
    if (!records) return records;
    return unique_by(std::move(records.value()),
                     [](const ResourceRecord& r) { return std::pair(r.device_index, r.number); });
}

} // namespace rdmastat
