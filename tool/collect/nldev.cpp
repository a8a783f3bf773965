// SPDX-License-Identifier: MIT
#include "collect/nldev.h"

#include "collect/nldev_parse.h"
#include "model/names.h"

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <optional>
#include <rdma/rdma_netlink.h>

namespace rdmastat {

Result<std::optional<NldevSource>> NldevSource::open() {
    auto sock = NetlinkSocket::open(NETLINK_RDMA);
    if (!sock) {
        // The RDMA netlink protocol is registered by ib_core; without it the
        // kernel has no RDMA devices to show.
        if (sock.error_code() == EPROTONOSUPPORT) return std::optional<NldevSource>();
        return Failure{"RDMA netlink: " + sock.error(), sock.error_code()};
    }
    return std::optional<NldevSource>(NldevSource(std::move(sock.value())));
}

NldevSource NldevSource::replaying(NldevReplay replay) {
    return NldevSource(std::move(replay));
}

void fill_nldev_request(nlmsghdr* nlh, const NldevRequest& r) {
    nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, r.command);
    // A chardev lookup, the sys settings and one port's statistics are single
    // requests; the rest are dumps (STAT_GET without a port: the QP-bound
    // counters).
    const bool single = r.command == RDMA_NLDEV_CMD_GET_CHARDEV ||
                        r.command == RDMA_NLDEV_CMD_SYS_GET ||
                        (r.command == RDMA_NLDEV_CMD_STAT_GET && r.port);
    nlh->nlmsg_flags |= single ? NLM_F_ACK : NLM_F_DUMP;
    if (r.device_index) mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, *r.device_index);
    if (r.port) mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, *r.port);
    if (r.command == RDMA_NLDEV_CMD_GET_CHARDEV)
        mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_CHARDEV_TYPE, "uverbs");
    if (r.command == RDMA_NLDEV_CMD_STAT_GET && !r.port)
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_RES, RDMA_NLDEV_ATTR_RES_QP);
}

Result<Bytes> NldevSource::send(const NldevRequest& r) {
    if (replay_) return replay_(r);
    return socket_->request([&](nlmsghdr* nlh) { fill_nldev_request(nlh, r); });
}

Result<Bytes> NldevSource::dump(unsigned command, std::optional<std::uint32_t> device_index) {
    return send({command, device_index, std::nullopt});
}

Result<Bytes> NldevSource::chardev(std::uint32_t device_index) {
    return send({RDMA_NLDEV_CMD_GET_CHARDEV, device_index, std::nullopt});
}

Result<Bytes> NldevSource::port_stat(std::uint32_t device_index, std::uint32_t port) {
    return send({RDMA_NLDEV_CMD_STAT_GET, device_index, port});
}

Result<Bytes> NldevSource::qp_counters(std::uint32_t device_index) {
    return send({RDMA_NLDEV_CMD_STAT_GET, device_index, std::nullopt});
}

Result<Bytes> NldevSource::system() {
    return send({RDMA_NLDEV_CMD_SYS_GET, std::nullopt, std::nullopt});
}

std::optional<bool> NldevSource::listed(std::uint32_t device_index) {
    auto bytes = dump(RDMA_NLDEV_CMD_GET);
    if (!bytes) return std::nullopt;
    auto devices = parse_device_dump(bytes.value());
    if (!devices) return std::nullopt;
    for (const Device& d : devices.value())
        if (d.index == device_index) return true;
    return false;
}

bool NldevSource::still_exists(std::uint32_t device_index) {
    return listed(device_index).value_or(true);
}

namespace {

// Appends from's elements to to, taking from whole when to is empty.
template <typename T> void append(std::vector<T>& to, std::vector<T>&& from) {
    if (to.empty())
        to = std::move(from);
    else
        to.insert(to.end(), std::make_move_iterator(from.begin()),
                  std::make_move_iterator(from.end()));
}

} // namespace

Result<NldevData> NldevSource::collect(bool with_cm_ids, bool with_qps) {
    NldevData data;
    auto devices = dump(RDMA_NLDEV_CMD_GET);
    if (!devices) return Failure{"NLDEV device dump: " + devices.error(), devices.error_code()};
    auto parsed = parse_device_dump(devices.value());
    if (!parsed) return Failure{"NLDEV: " + parsed.error()};

    for (Device& dev : parsed.value()) {
        // Each resource dump is one request per device, as the kernel requires.
        auto step = [&](unsigned cmd, const char* what, auto parse, auto& sink) -> Status {
            auto bytes = dump(cmd, dev.index);
            if (!bytes)
                return Failure{"NLDEV " + std::string(what) + " dump of " + dev.name + ": " +
                                   bytes.error(),
                               bytes.error_code()};
            auto records = parse(bytes.value());
            if (!records) return Failure{"NLDEV " + dev.name + ": " + records.error()};
            append(sink, std::move(records.value()));
            return Ok{};
        };
        std::vector<CmIdRecord> cm_ids;
        std::vector<QpRecord> qps;
        Status st = step(RDMA_NLDEV_CMD_PORT_GET, "port", parse_port_dump, dev.ports);
        if (st && with_cm_ids)
            st = step(RDMA_NLDEV_CMD_RES_CM_ID_GET, "cm_id", parse_cm_id_dump, cm_ids);
        if (st && with_qps) st = step(RDMA_NLDEV_CMD_RES_QP_GET, "qp", parse_qp_dump, qps);
        if (!st) {
            // A device unregistered while we looked is gone, not broken; the kernel
            // says EINVAL or ENODEV for it, so ask again whether it still exists.
            if (!still_exists(dev.index)) continue;
            return st.failure();
        }
        // The driver is a nicety: without ib_uverbs the kernel cannot name it.
        if (auto reply = chardev(dev.index))
            if (auto driver = parse_chardev_driver(reply.value())) dev.driver = driver.value();
        data.devices.push_back(std::move(dev));
        // Whole vectors where they can be: 10k records moved one by one into
        // a growing vector cost more than parsing them.
        append(data.cm_ids, std::move(cm_ids));
        append(data.qps, std::move(qps));
    }
    return data;
}

Result<ResourceDump> NldevSource::collect_resources(const std::vector<Device>& devices,
                                                    bool with_qps) {
    ResourceDump out;
    auto skipped = [&](ResourceKind kind) {
        return std::find(out.unreported.begin(), out.unreported.end(), kind) !=
               out.unreported.end();
    };
    for (const Device& dev : devices) {
        std::vector<ResourceRecord> mine;
        std::optional<Failure> failure;
        bool gone = false;
        for (const NldevResourceKind& k : nldev_resource_kinds()) {
            if ((k.kind == ResourceKind::qp && !with_qps) || skipped(k.kind)) continue;
            auto bytes = dump(k.command, dev.index);
            // A kernel older than a kind answers its dump as any unknown command,
            // EINVAL, which is also what a vanished device gets: ask which, and
            // count it as unreported only on a clear answer.
            if (!bytes && k.since && bytes.error_code() == EINVAL) {
                std::optional<bool> there = listed(dev.index);
                if (there == false) {
                    gone = true;
                    break;
                }
                if (there == true) {
                    out.unreported.push_back(k.kind);
                    continue;
                }
            }
            auto records = bytes ? parse_resource_dump(k.kind, bytes.value()) : bytes.failure();
            if (!records) {
                failure = Failure{"NLDEV " + name_of(k.kind) + " dump of " + dev.name + ": " +
                                      records.error(),
                                  records.error_code()};
                break;
            }
            for (auto& r : records.value())
                mine.push_back(std::move(r));
        }
        // As in collect(): a device unregistered meanwhile is gone, not broken.
        if (gone || (failure && !still_exists(dev.index))) continue;
        if (failure) return *failure;
        for (auto& r : mine)
            out.records.push_back(std::move(r));
    }
    return out;
}

} // namespace rdmastat
