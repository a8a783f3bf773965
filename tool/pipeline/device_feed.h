// SPDX-License-Identifier: MIT
#pragma once

/// The device events -E and serve --events follow beside the tracepoints:
/// RDMA netlink's monitor (collect/nldev_monitor.h) as a DeviceFeed.

#include "pipeline/follow.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace rdmastat {

/// The monitor's feed, joined now; nullptr with why set when this kernel
/// sends no device events (its sys settings do not advertise the monitor, or
/// it has no RDMA netlink at all) or the socket cannot be opened.
std::unique_ptr<DeviceFeed> open_device_feed(std::string& why);

/// The messages queued in feed now, as events (kind device, timed by clock's
/// wall time: the kernel's messages carry none). A message that did not
/// parse goes to note, and with note_overruns so do the kernel's drops since
/// overruns_noted (then updated). A failure of the feed goes to note too: the
/// feed is down, and the command goes on without device events.
std::vector<ConnectionEvent> take_device_events(DeviceFeed& feed, RunClock& clock,
                                                const std::function<void(const std::string&)>& note,
                                                bool note_overruns, std::uint64_t& overruns_noted);

} // namespace rdmastat
