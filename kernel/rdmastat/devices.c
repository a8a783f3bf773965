// SPDX-License-Identifier: GPL-2.0
/*
 * The RDMA devices, tracked with an ib_client so that dumps can walk them in
 * index order and resume by index.
 */
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "rdmastat.h"

struct rdmastat_device {
	struct list_head node;
	struct ib_device *ibdev;
};

/*
 * Sorted by ibdev->index; a mutex, since ib_client callbacks may sleep. The
 * generation changes with every add and remove (a device registered,
 * unregistered or moved to another network namespace), for dumps to flag
 * themselves NLM_F_DUMP_INTR; it starts at 1, since 0 means "unset" to them.
 */
static LIST_HEAD(rdmastat_devices);
static DEFINE_MUTEX(rdmastat_devices_lock);
static unsigned int rdmastat_devices_gen = 1;

unsigned int rdmastat_devices_generation(void)
{
	unsigned int gen;

	mutex_lock(&rdmastat_devices_lock);
	gen = rdmastat_devices_gen;
	mutex_unlock(&rdmastat_devices_lock);
	return gen;
}

static void rdmastat_devices_changed(void)
{
	lockdep_assert_held(&rdmastat_devices_lock);
	if (!++rdmastat_devices_gen)
		rdmastat_devices_gen = 1;
}

static int rdmastat_add_one(struct ib_device *ibdev)
{
	struct rdmastat_device *d, *pos;

	d = kzalloc_obj(*d, GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->ibdev = ibdev;

	mutex_lock(&rdmastat_devices_lock);
	list_for_each_entry(pos, &rdmastat_devices, node)
		if (pos->ibdev->index > ibdev->index)
			break;
	list_add_tail(&d->node, &pos->node);
	rdmastat_devices_changed();
	mutex_unlock(&rdmastat_devices_lock);
	return 0;
}

static void rdmastat_remove_one(struct ib_device *ibdev, void *client_data)
{
	struct rdmastat_device *d;

	mutex_lock(&rdmastat_devices_lock);
	list_for_each_entry(d, &rdmastat_devices, node) {
		if (d->ibdev == ibdev) {
			list_del(&d->node);
			kfree(d);
			rdmastat_devices_changed();
			break;
		}
	}
	mutex_unlock(&rdmastat_devices_lock);
}

static struct ib_client rdmastat_client = {
	.name = "rdmastat",
	.add = rdmastat_add_one,
	.remove = rdmastat_remove_one,
};

/*
 * The registered device with the smallest index >= min_index that net may
 * use (all of them in shared mode; in exclusive mode, the devices of net, as
 * NLDEV decides), with a reference the caller drops with ib_device_put();
 * NULL when there is none. A device being unregistered refuses new
 * references and is passed over.
 */
struct ib_device *rdmastat_device_next(u32 min_index, const struct net *net)
{
	struct rdmastat_device *d;
	struct ib_device *found = NULL;

	mutex_lock(&rdmastat_devices_lock);
	list_for_each_entry(d, &rdmastat_devices, node) {
		if (d->ibdev->index >= min_index &&
		    rdma_dev_access_netns(d->ibdev, net) &&
		    ib_device_try_get(d->ibdev)) {
			found = d->ibdev;
			break;
		}
	}
	mutex_unlock(&rdmastat_devices_lock);
	return found;
}

int rdmastat_devices_init(void)
{
	return ib_register_client(&rdmastat_client);
}

void rdmastat_devices_exit(void)
{
	/* Calls rdmastat_remove_one() for every device still registered. */
	ib_unregister_client(&rdmastat_client);
	WARN_ON(!list_empty(&rdmastat_devices));
}
