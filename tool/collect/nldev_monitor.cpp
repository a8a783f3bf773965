// SPDX-License-Identifier: MIT
#include "collect/nldev_monitor.h"

#include "collect/nldev_walk.h"

#include <cerrno>
#include <cstring>
#include <sys/socket.h>
#include <unistd.h>

namespace rdmastat {
namespace {

DeviceEvent parse_event(const Attrs& a) {
    DeviceEvent e;
    e.type = static_cast<DeviceEventType>(
        a.need(a.u8(nldev_monitor::attr_event_type, "event type"), "event type"));
    e.device_index = a.u32(RDMA_NLDEV_ATTR_DEV_INDEX, "device index");
    e.device = a.str(RDMA_NLDEV_ATTR_DEV_NAME, "device name");
    e.port = a.u32(RDMA_NLDEV_ATTR_PORT_INDEX, "port index");
    e.netdev_index = a.u32(RDMA_NLDEV_ATTR_NDEV_INDEX, "netdev index");
    e.netdev = a.str(RDMA_NLDEV_ATTR_NDEV_NAME, "netdev name");
    return e;
}

} // namespace

Result<bool> parse_monitor_mode(const Bytes& reply) {
    bool on = false;
    auto walked = nldev::walk_dump(
        reply, RDMA_NLDEV_CMD_SYS_GET, "sys get",
        [&](const Attrs& a) {
            on = on || a.u8(nldev_monitor::attr_monitor_mode, "monitor mode").value_or(0) != 0;
        },
        nldev_monitor::attr_max);
    if (!walked) return walked.failure();
    return on;
}

Status parse_monitor_messages(const std::uint8_t* data, std::size_t len,
                              const std::function<void(Result<DeviceEvent>)>& sink) {
    unsigned index = 0;
    auto walked = walk_messages(data, len, [&](const nlmsghdr* nlh) -> Status {
        ++index;
        if (RDMA_NL_GET_CLIENT(nlh->nlmsg_type) != RDMA_NL_NLDEV ||
            RDMA_NL_GET_OP(nlh->nlmsg_type) != nldev_monitor::command)
            return Ok{};
        try {
            sink(parse_event(nldev::message_attrs(nlh, nldev_monitor::attr_max)));
        } catch (const Error& e) {
            sink(Failure{"device event message " + std::to_string(index) + ": " + e.what()});
        }
        return Ok{};
    });
    if (!walked) return walked.failure();
    return Ok{};
}

Result<NldevMonitor> NldevMonitor::open() {
    const int fd = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_RDMA);
    if (fd < 0) return Failure{std::strerror(errno), errno};
    NldevMonitor m(fd);
    sockaddr_nl addr{};
    addr.nl_family = AF_NETLINK;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0)
        return Failure{std::string("bind: ") + std::strerror(errno), errno};
    // Room for a burst (a driver registering many devices at once): each
    // message takes a page of the receive buffer, whatever its size.
    const int rcvbuf = 1 << 20;
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
    const int group = nldev_monitor::group;
    if (::setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group, sizeof(group)) != 0)
        return Failure{std::string("joining the notify group: ") + std::strerror(errno), errno};
    return m;
}

NldevMonitor::NldevMonitor(NldevMonitor&& other) noexcept
    : fd_(other.fd_), overruns_(other.overruns_) {
    other.fd_ = -1;
}

NldevMonitor::~NldevMonitor() {
    if (fd_ >= 0) ::close(fd_);
}

Status NldevMonitor::read(const std::function<void(Result<DeviceEvent>)>& sink) {
    return read_datagrams([&](const std::uint8_t* data, std::size_t len) {
        if (auto st = parse_monitor_messages(data, len, sink); !st) sink(st.failure());
    });
}

Status
NldevMonitor::read_datagrams(const std::function<void(const std::uint8_t*, std::size_t)>& each) {
    // A message is one device's few attributes: a page holds any.
    std::uint8_t buf[8192];
    for (;;) {
        sockaddr_nl from{};
        socklen_t from_len = sizeof(from);
        // MSG_TRUNC: the datagram's whole length, to tell a cut one.
        const ssize_t n = ::recvfrom(fd_, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC,
                                     reinterpret_cast<sockaddr*>(&from), &from_len);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN) return Ok{};
            if (errno == ENOBUFS) {
                ++overruns_;
                continue;
            }
            return Failure{std::string("reading device events: ") + std::strerror(errno), errno};
        }
        // Only the kernel's word counts: a privileged process may send to the
        // group too.
        if (from.nl_pid != 0) continue;
        if (static_cast<std::size_t>(n) > sizeof(buf))
            return Failure{"a device event datagram of " + std::to_string(n) +
                           " bytes, more than " + std::to_string(sizeof(buf)) + " read"};
        each(buf, static_cast<std::size_t>(n));
    }
}

} // namespace rdmastat
