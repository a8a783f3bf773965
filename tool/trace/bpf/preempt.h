/* SPDX-License-Identifier: (GPL-2.0-only OR MIT) */
/*
 * What preempt.bpf.c's program saw, in its `seen` variable, as the tool
 * (trace/preempt_probe.cpp) reads it: shared by both.
 */
#ifndef RDMASTAT_TRACE_PREEMPT_H
#define RDMASTAT_TRACE_PREEMPT_H

enum rdmastat_preempt_seen {
	RDMASTAT_PREEMPT_NOTHING = 0,	 /* no hit yet */
	RDMASTAT_PREEMPT_DISABLED = 1,	 /* depth of at least one */
	RDMASTAT_PREEMPT_ENABLED = 2,	 /* depth 0 */
	RDMASTAT_PREEMPT_UNREADABLE = 3, /* no counter the program can read */
};

#endif
