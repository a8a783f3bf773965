// SPDX-License-Identifier: MIT
#pragma once

/// RDMA netlink's monitor: the messages the kernel multicasts to the NOTIFY
/// group when a device registers, unregisters or is renamed, or a port's
/// netdev is attached, detached or renamed. Kernels that send them (6.12 on)
/// say so in the sys get reply (RDMA_NLDEV_SYS_ATTR_MONITOR_MODE) and let
/// anyone join the group; an older one (6.1) sends nothing, lets root join all
/// the same and refuses others (EPERM), which is why the caller asks first.
/// The kernel sends them into the device's RDMA network namespace: in the
/// shared mode, the initial one only.
///
/// The constants are the kernel's (include/uapi/rdma/rdma_netlink.h); they are
/// newer than Debian 12's headers, so they are spelled here.

#include "collect/netlink.h"
#include "model/cm_event.h"

#include <cstdint>
#include <functional>
#include <optional>

namespace rdmastat {

namespace nldev_monitor {
inline constexpr unsigned group = 4;               ///< RDMA_NL_GROUP_NOTIFY
inline constexpr unsigned command = 28;            ///< RDMA_NLDEV_CMD_MONITOR
inline constexpr unsigned attr_event_type = 102;   ///< RDMA_NLDEV_ATTR_EVENT_TYPE, u8
inline constexpr unsigned attr_monitor_mode = 103; ///< RDMA_NLDEV_SYS_ATTR_MONITOR_MODE, u8
inline constexpr unsigned attr_max = attr_monitor_mode;
} // namespace nldev_monitor

/// Whether the sys get reply (NldevSource::system()) advertises the monitor.
Result<bool> parse_monitor_mode(const Bytes& reply);

/// Each monitor message in [data, data+len) (one datagram may hold several),
/// parsed, to sink; a message that does not parse goes to sink as a Failure
/// naming it, and the walk goes on. Messages of other commands are skipped. A
/// malformed stream (a header that does not fit) is the returned Failure.
Status parse_monitor_messages(const std::uint8_t* data, std::size_t len,
                              const std::function<void(Result<DeviceEvent>)>& sink);

/// A socket joined to the NOTIFY group, read without blocking.
class NldevMonitor {
  public:
    /// Opens NETLINK_RDMA and joins the group (unprivileged where the kernel
    /// sends the events). Failure carries errno as its code.
    static Result<NldevMonitor> open();
    NldevMonitor(NldevMonitor&& other) noexcept;
    NldevMonitor& operator=(NldevMonitor&&) = delete;
    ~NldevMonitor();

    /// Every message queued now, parsed, to sink; returns at once when there
    /// is none. The socket's overruns (ENOBUFS: the kernel dropped messages
    /// because the socket's buffer was full) are counted, not failures; a
    /// datagram too long for the reader is a Failure.
    Status read(const std::function<void(Result<DeviceEvent>)>& sink);
    /// The same, each of the kernel's datagrams as it came (the capture tool's).
    Status read_datagrams(const std::function<void(const std::uint8_t*, std::size_t)>& each);
    /// How many times the kernel dropped messages (each time one or more).
    std::uint64_t overruns() const { return overruns_; }
    /// The socket, to wait on (readable: a message is queued).
    int fd() const { return fd_; }

  private:
    explicit NldevMonitor(int fd) : fd_(fd) {}
    int fd_ = -1;
    std::uint64_t overruns_ = 0;
};

} // namespace rdmastat
