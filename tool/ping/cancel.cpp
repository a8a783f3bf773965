// SPDX-License-Identifier: MIT
#include "ping/cancel.h"

#include "common/error.h"

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <sys/eventfd.h>
#include <unistd.h>

namespace rdmastat::ping {
namespace {

Cancel* installed = nullptr;

extern "C" void on_signal(int) {
    // Async-signal-safe: an atomic store and write(2).
    if (installed) installed->request();
}

} // namespace

Cancel::Cancel() {
    fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (fd_ < 0) throw Error("eventfd", std::strerror(errno));
}

Cancel& Cancel::process() {
    static Cancel cancel;
    if (!installed) {
        installed = &cancel;
        struct sigaction sa {};
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, nullptr);
        sigaction(SIGTERM, &sa, nullptr);
    }
    return cancel;
}

void Cancel::request() {
    flag_.store(true, std::memory_order_relaxed);
    std::uint64_t one = 1;
    [[maybe_unused]] ssize_t n = write(fd_, &one, sizeof one);
}

} // namespace rdmastat::ping
