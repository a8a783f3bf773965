// SPDX-License-Identifier: MIT
#include "trace/preempt_probe.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverlength-strings"
#include "preempt.skel.h"
#pragma GCC diagnostic pop
#include "trace/bpf/preempt.h"

#include <bpf/libbpf.h>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <system_error>
#include <thread>

namespace rdmastat {
namespace {

struct Close {
    void operator()(preempt* s) const { preempt__destroy(s); }
};

Failure failed(const char* step, int err) {
    return Failure{std::string("preemption probe: ") + step + ": " + std::strerror(err), err};
}

} // namespace

Result<bool> tracepoints_preemptible() {
    std::unique_ptr<preempt, Close> skel(preempt__open());
    if (!skel) return failed("open", errno);
    if (int err = preempt__load(skel.get())) return failed("load", -err);
    if (int err = preempt__attach(skel.get())) return failed("attach to sched_process_fork", -err);
    // A thread's creation passes sched_process_fork (if no other task's did).
    try {
        std::thread([] {}).join();
    } catch (const std::system_error& e) {
        return failed("making a thread", e.code().value());
    }
    switch (skel->bss->seen) {
    case RDMASTAT_PREEMPT_DISABLED:
        return false;
    case RDMASTAT_PREEMPT_ENABLED:
        return true;
    case RDMASTAT_PREEMPT_UNREADABLE:
        return Failure{"preemption probe: no preemption counter the probe can read"};
    default:
        return Failure{"preemption probe: sched_process_fork did not run the probe"};
    }
}

} // namespace rdmastat
