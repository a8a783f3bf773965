// SPDX-License-Identifier: GPL-2.0
/*
 * A throwaway module that proves the debug kernel's log check can fail
 * (tests/lab/debug/check.sh): on load it reads a kmalloc'ed buffer after
 * kfree(), which KASAN reports as a slab-use-after-free. Never shipped, never
 * loaded but by tests/kernel/fault/fault.sh in a debug boot.
 */
#include <linux/module.h>
#include <linux/slab.h>

static int __init rdmastat_fault_init(void)
{
	char *p = kmalloc(64, GFP_KERNEL);
	char c;

	if (!p)
		return -ENOMEM;
	p[0] = 'x';
	kfree(p);
	OPTIMIZER_HIDE_VAR(p);
	c = READ_ONCE(p[0]); /* the use after free */
	pr_info("rdmastat_fault: read %d from a freed buffer\n", c);
	return 0;
}

static void __exit rdmastat_fault_exit(void)
{
}

module_init(rdmastat_fault_init);
module_exit(rdmastat_fault_exit);
MODULE_DESCRIPTION("A deliberate use after free, for the lab's debug kernel check");
MODULE_LICENSE("GPL");
