/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the modules use from newer kernels, for the older ones they also
 * build on (Debian 12's 6.1 onwards). Each fallback has the newer kernel's
 * meaning; on a kernel that has the real thing, the fallback is unused.
 */
#ifndef RDMASTAT_COMPAT_H
#define RDMASTAT_COMPAT_H

#include <linux/slab.h>

/* 7.0 added kzalloc_obj(), and its checkpatch asks for it. */
#ifndef kzalloc_obj
#define kzalloc_obj(P, GFP) kzalloc(sizeof(P), GFP)
#endif

#endif /* RDMASTAT_COMPAT_H */
