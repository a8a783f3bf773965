// SPDX-License-Identifier: MIT
#pragma once

/// The kernel's RDMA netlink (NLDEV): devices, ports, cm_ids, QPs and the other
/// resources (nldev_resource_kinds()).

#include "collect/netlink.h"
#include "collect/resources.h"
#include "model/records.h"

#include <cstdint>
#include <functional>
#include <optional>

namespace rdmastat {

/// One request an NldevSource makes: a command (RDMA_NLDEV_CMD_*) and the
/// device and port it names. STAT_GET with a port asks for that port's
/// statistics; without one it dumps the device's QP-bound counters.
struct NldevRequest {
    unsigned command = 0;
    std::optional<std::uint32_t> device_index;
    std::optional<std::uint32_t> port;
};

/// Fills a netlink message (its header put, flags NLM_F_REQUEST) with r as the
/// kernel expects it: type, dump or ack flag, and attributes.
void fill_nldev_request(nlmsghdr* nlh, const NldevRequest& r);

/// Answers requests in place of the kernel: the kernel's bytes, or a Failure
/// with the errno the kernel would give.
using NldevReplay = std::function<Result<Bytes>(const NldevRequest&)>;

class NldevSource {
  public:
    /// Opens NETLINK_RDMA. nullopt when the kernel has no RDMA netlink at all
    /// (ib_core not loaded): that means "no RDMA devices", not an error.
    static Result<std::optional<NldevSource>> open();
    /// A source whose every request replay answers: the unit tests' kernel,
    /// replaying captured dumps and failing as a vanished device does.
    static NldevSource replaying(NldevReplay replay);

    /// One raw dump of an NLDEV command (RDMA_NLDEV_CMD_*), for one device when
    /// device_index is given. These bytes are what the parsers and the capture tool take.
    Result<Bytes> dump(unsigned command, std::optional<std::uint32_t> device_index = {});
    /// The GET_CHARDEV request for a device's "uverbs" chardev, whose reply names the driver.
    Result<Bytes> chardev(std::uint32_t device_index);
    /// The STAT_GET reply for one device port: its NLDEV statistics.
    Result<Bytes> port_stat(std::uint32_t device_index, std::uint32_t port);
    /// The STAT_GET dump of one device's QP-bound counters.
    Result<Bytes> qp_counters(std::uint32_t device_index);
    /// The SYS_GET reply: the subsystem's settings (netns mode, and on newer
    /// kernels whether the monitor's events are sent).
    Result<Bytes> system();
    /// The socket of a source open() made, for requests beyond these (the
    /// capture tool's error probe).
    NetlinkSocket& socket() { return socket_.value(); }

    /// Devices with their ports, and every device's cm_ids (when with_cm_ids:
    /// another source may report the ids) and QPs (when with_qps). A device that
    /// disappears between the device dump and its other dumps is left out.
    Result<NldevData> collect(bool with_cm_ids = true, bool with_qps = true);

    /// The resources of each of devices, per device in ResourceKind order
    /// (nldev_resource_kinds()), QPs only when with_qps (collect() already has
    /// them otherwise), each kind in the kernel's order. A device that
    /// disappears meanwhile is left out. A kind newer than some kernels (its
    /// row's since) whose dump this kernel refuses with EINVAL, the answer to a
    /// command it does not know, while the device is listed, is left out for
    /// every device and named in unreported. Any other failure names the dump
    /// and the device.
    Result<ResourceDump> collect_resources(const std::vector<Device>& devices,
                                           bool with_qps = true);

  private:
    explicit NldevSource(NetlinkSocket socket) : socket_(std::move(socket)) {}
    explicit NldevSource(NldevReplay replay) : replay_(std::move(replay)) {}
    Result<Bytes> send(const NldevRequest& r);
    /// Whether the device dump lists device_index; nullopt when it cannot be read.
    std::optional<bool> listed(std::uint32_t device_index);
    /// listed(), where a device dump that cannot be read counts as "still there".
    bool still_exists(std::uint32_t device_index);

    std::optional<NetlinkSocket> socket_;
    NldevReplay replay_; ///< set instead of socket_ by replaying()
};

} // namespace rdmastat
