// SPDX-License-Identifier: MIT
#pragma once

/// SIGINT and SIGTERM as something every wait can poll: an eventfd that turns
/// readable (and stays readable) once either signal arrives, so a blocked
/// poll() in any thread wakes up and the run tears its QPs and ids down.

#include <atomic>

namespace rdmastat::ping {

class Cancel {
  public:
    /// The process-wide instance; the first call installs the signal handlers.
    /// Throws Error when the eventfd cannot be created.
    static Cancel& process();

    int fd() const { return fd_; }
    bool requested() const { return flag_.load(std::memory_order_relaxed); }
    /// What the handler does: set the flag and make fd() readable.
    void request();

  private:
    Cancel();
    int fd_ = -1;
    std::atomic<bool> flag_{false};
};

} // namespace rdmastat::ping
