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

/* Sorted by ibdev->index; a mutex, since ib_client callbacks may sleep. */
static LIST_HEAD(rdmastat_devices);
static DEFINE_MUTEX(rdmastat_devices_lock);

static int rdmastat_add_one(struct ib_device *ibdev)
{
	struct rdmastat_device *d, *pos;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->ibdev = ibdev;

	mutex_lock(&rdmastat_devices_lock);
	list_for_each_entry(pos, &rdmastat_devices, node)
		if (pos->ibdev->index > ibdev->index)
			break;
	list_add_tail(&d->node, &pos->node);
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
 * The registered device with the smallest index >= min_index, with a reference
 * the caller drops with ib_device_put(); NULL when there is none. A device
 * being unregistered refuses new references and is passed over.
 */
struct ib_device *rdmastat_device_next(u32 min_index)
{
	struct rdmastat_device *d;
	struct ib_device *found = NULL;

	mutex_lock(&rdmastat_devices_lock);
	list_for_each_entry(d, &rdmastat_devices, node) {
		if (d->ibdev->index >= min_index && ib_device_try_get(d->ibdev)) {
			found = d->ibdev;
			break;
		}
	}
	mutex_unlock(&rdmastat_devices_lock);
	return found;
}

/* The device with exactly this index, referenced as above, or NULL. */
struct ib_device *rdmastat_device_get(u32 index)
{
	struct ib_device *dev = rdmastat_device_next(index);

	if (dev && dev->index != index) {
		ib_device_put(dev);
		return NULL;
	}
	return dev;
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
