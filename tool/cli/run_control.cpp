// SPDX-License-Identifier: MIT
#include "cli/run_control.h"

#include "cli/say.h"

#include <algorithm>
#include <csignal>
#include <ctime>
#include <iomanip>
#include <limits>
#include <sstream>
#include <sys/resource.h>
#include <thread>

namespace rdmastat {
namespace {

volatile std::sig_atomic_t stop_flag = 0;

void request_stop(int) {
    stop_flag = 1;
}

double seconds(const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

} // namespace

void stop_on_signals() {
    struct sigaction sa {};
    sa.sa_handler = request_stop;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

bool stop_requested() {
    return stop_flag != 0;
}

void sleep_until_or_stop(std::chrono::steady_clock::time_point t) {
    using Clock = std::chrono::steady_clock;
    // A sleep resumes after a signal; slices let the flag end it.
    while (!stop_requested() && Clock::now() < t)
        std::this_thread::sleep_for(
            std::min<Clock::duration>(t - Clock::now(), std::chrono::milliseconds(100)));
}

RunStats::RunStats() : start_(std::chrono::steady_clock::now()) {}

void RunStats::written(std::uint64_t kernel_ns) {
    ++events_;
    // The kernel's bpf_ktime_get_ns() is CLOCK_MONOTONIC, as steady_clock is here.
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    auto now_ns = static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000u +
                  static_cast<std::uint64_t>(now.tv_nsec);
    std::uint64_t us = now_ns > kernel_ns ? (now_ns - kernel_ns) / 1000 : 0;
    delays_us_.push_back(static_cast<std::uint32_t>(
        std::min<std::uint64_t>(us, std::numeric_limits<std::uint32_t>::max())));
}

void RunStats::say(std::ostream& err, const char* context, const char* source,
                   std::optional<std::uint64_t> lost) const {
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    std::ostringstream line;
    line << "stats: " << events_ << " events in " << std::fixed << std::setprecision(1) << elapsed
         << " s (" << source << ")";
    if (lost) line << ", " << *lost << " lost";
    if (!delays_us_.empty()) {
        std::vector<std::uint32_t> d = delays_us_;
        auto at = [&](double q) {
            auto i = static_cast<std::size_t>(q * static_cast<double>(d.size() - 1));
            std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(i), d.end());
            return static_cast<double>(d[i]) / 1000.0;
        };
        double p50 = at(0.5), p99 = at(0.99), max = at(1.0);
        line << std::setprecision(3) << "; kernel to output p50 " << p50 << " ms, p99 " << p99
             << " ms, max " << max << " ms";
    }
    line << std::setprecision(2) << "; CPU " << seconds(ru.ru_utime) << " s user, "
         << seconds(ru.ru_stime) << " s system";
    say_line(err, context, line.str());
}

} // namespace rdmastat
