// SPDX-License-Identifier: MIT
#include "pipeline/device_feed.h"

#include "collect/nldev.h"
#include "collect/nldev_monitor.h"

#include <atomic>

namespace rdmastat {
namespace {

class MonitorFeed final : public DeviceFeed {
  public:
    explicit MonitorFeed(NldevMonitor monitor) : monitor_(std::move(monitor)) {}
    Status poll(const Sink& sink) override {
        if (!up_) return Ok{};
        Status st = monitor_.read(sink);
        if (!st) up_ = false;
        return st;
    }
    bool up() const override { return up_; }
    std::uint64_t overruns() override { return monitor_.overruns(); }

  private:
    NldevMonitor monitor_;
    std::atomic<bool> up_{true};
};

} // namespace

std::unique_ptr<DeviceFeed> open_device_feed(std::string& why) {
    // The settings first: a kernel that sends nothing (6.1) also refuses an
    // unprivileged socket the group, and that is not the reason to give. A
    // device registered before the socket joins is before the ready line.
    const std::string no_rdma = "no RDMA netlink (ib_core is not loaded), so no device events";
    auto nldev = NldevSource::open();
    if (!nldev || !nldev.value()) {
        why = nldev ? no_rdma : nldev.error();
        return nullptr;
    }
    auto reply = nldev.value()->system();
    auto advertised = reply ? parse_monitor_mode(reply.value()) : Result<bool>(reply.failure());
    if (!advertised) {
        why = "RDMA netlink's settings: " + advertised.error();
        return nullptr;
    }
    if (!advertised.value()) {
        why = "this kernel sends no RDMA device events (its RDMA netlink has no monitor)";
        return nullptr;
    }
    auto monitor = NldevMonitor::open();
    if (!monitor) {
        why = "RDMA netlink monitor: " + monitor.error();
        return nullptr;
    }
    return std::make_unique<MonitorFeed>(std::move(monitor.value()));
}

std::vector<ConnectionEvent> take_device_events(DeviceFeed& feed, RunClock& clock,
                                                const std::function<void(const std::string&)>& note,
                                                bool note_overruns, std::uint64_t& overruns_noted) {
    std::vector<ConnectionEvent> out;
    const auto now = clock.wall();
    auto polled = feed.poll([&](Result<DeviceEvent> message) {
        if (!message) {
            if (note) note(message.error());
            return;
        }
        ConnectionEvent e;
        e.kind = EventKind::device;
        e.time = now;
        e.connection.device = message.value().device.value_or("");
        e.connection.port = message.value().port;
        e.device_event = std::move(message.value());
        out.push_back(std::move(e));
    });
    if (!polled && note) note("device events: " + polled.error() + "; no longer reported");
    if (const std::uint64_t n = feed.overruns(); note_overruns && n > overruns_noted) {
        if (note)
            note("device events lost: the kernel dropped RDMA netlink monitor messages " +
                 std::to_string(n - overruns_noted) + " times, the reader having fallen behind");
        overruns_noted = n;
    }
    return out;
}

} // namespace rdmastat
