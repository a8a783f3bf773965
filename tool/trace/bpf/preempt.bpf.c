// SPDX-License-Identifier: (GPL-2.0-only OR MIT)
/*
 * Whether a BPF program on a tracepoint runs with preemption enabled: one
 * program on sched_process_fork, which the kernel calls from one place,
 * kernel_clone(), for every task made, with no lock held, as it calls
 * rdma_cma's tracepoints. The tool loads it, makes a thread (so there is at
 * least one hit), and reads what the program saw at the first hit, whoever
 * made it: every hit is in the same place. Kernels that run tracepoints under
 * preempt_disable (6.1, 6.12) show a preemption depth of at least one;
 * kernels that run them under SRCU-fast (7.x) only disable migration, and
 * show none (as does a kernel built without a preemption count, which then
 * costs only the second programs' load time).
 *
 * The depth is read from the kernel's per-CPU counter, which x86 keeps as
 * __preempt_count (6.1, 7.x) or inside pcpu_hot (6.2 to 6.14). Both are weak:
 * the one a kernel lacks resolves to NULL and its branch is never run. On
 * other architectures the program reports that it could not tell.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "preempt.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* The preemption depth's bits of the counter (PREEMPT_MASK). */
#define PREEMPT_DEPTH_MASK 0xff

/* What the program saw (enum rdmastat_preempt_seen). */
__u32 seen = RDMASTAT_PREEMPT_NOTHING;

#if defined(__TARGET_ARCH_x86)
struct pcpu_hot {
	int preempt_count;
} __attribute__((preserve_access_index));

extern const int __preempt_count __ksym __weak;
extern const struct pcpu_hot pcpu_hot __ksym __weak;

static __always_inline int preempt_depth(void)
{
	if (&__preempt_count)
		return *(const int *)bpf_this_cpu_ptr(&__preempt_count) & PREEMPT_DEPTH_MASK;
	/* The type check keeps the verifier off this read where the kernel
	 * has no pcpu_hot, whatever it makes of the branch above. */
	if (bpf_core_type_exists(struct pcpu_hot) && &pcpu_hot)
		return ((const struct pcpu_hot *)bpf_this_cpu_ptr(&pcpu_hot))->preempt_count &
		       PREEMPT_DEPTH_MASK;
	return -1;
}
#else
static __always_inline int preempt_depth(void)
{
	return -1;
}
#endif

SEC("raw_tp/sched_process_fork")
int BPF_PROG(fork_probe)
{
	int depth;

	if (seen)
		return 0;
	depth = preempt_depth();
	if (depth < 0)
		seen = RDMASTAT_PREEMPT_UNREADABLE;
	else
		seen = depth ? RDMASTAT_PREEMPT_DISABLED : RDMASTAT_PREEMPT_ENABLED;
	return 0;
}
