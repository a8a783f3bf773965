// SPDX-License-Identifier: MIT
#pragma once

/// Whether this kernel runs BPF programs on tracepoints preemptibly, asked of
/// the kernel itself (trace/bpf/preempt.bpf.c): a program on
/// sched_process_fork reads the CPU's preemption depth when a task is made
/// (this process makes a thread to be sure one is). Since Linux 7.0, tracepoints hold SRCU-fast
/// instead of disabling preemption, and a program preempted mid-run makes the kernel skip it for
/// every other hit on that CPU until it resumes: the tracer then needs its
/// second programs (trace/bpf/rdma_cm.bpf.c), which cost load time elsewhere.

#include "common/error.h"

namespace rdmastat {

/// true where a program on a tracepoint runs with preemption enabled, false
/// where the kernel disables it around every tracepoint; a Failure (and
/// nothing left loaded) when the probe cannot load, attach or read the
/// preemption counter (an architecture other than x86), naming why.
Result<bool> tracepoints_preemptible();

} // namespace rdmastat
