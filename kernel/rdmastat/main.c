// SPDX-License-Identifier: GPL-2.0
/*
 * rdmastat.ko: every rdma_cm id joined with its QP state and owner, over the
 * generic netlink family described in include/uapi/linux/rdmastat.h.
 */
#include <linux/module.h>

#include "rdmastat.h"

static int __init rdmastat_init(void)
{
	int ret;

	ret = rdmastat_devices_init();
	if (ret)
		return ret;
	ret = rdmastat_netlink_init();
	if (ret)
		goto err_devices;
	return 0;

err_devices:
	rdmastat_devices_exit();
	return ret;
}

static void __exit rdmastat_exit(void)
{
	/* No new requests first; dumps in flight hold a module reference. */
	rdmastat_netlink_exit();
	rdmastat_devices_exit();
}

module_init(rdmastat_init);
module_exit(rdmastat_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The rdmastat authors");
MODULE_DESCRIPTION("rdma_cm connections with QP state and owner over generic netlink");
