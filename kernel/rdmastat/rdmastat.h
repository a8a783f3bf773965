/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmastat.ko internals shared between its files.
 */
#ifndef _RDMASTAT_INTERNAL_H
#define _RDMASTAT_INTERNAL_H

#include "compat.h"
#include <linux/cred.h>
#include <linux/types.h>
#include <net/genetlink.h>

#include <rdma/restrack.h>

struct ib_device;

/* Who asked: decides which ids are visible and which owner fields are sent. */
struct rdmastat_caller {
	struct net *net;		/* only ids of this network namespace */
	bool net_admin;			/* CAP_NET_ADMIN: every owner's fields */
	kuid_t uid;			/* else only the owner fields of this uid */
	struct user_namespace *user_ns;	/* uids are translated into this */
	struct pid_namespace *pid_ns;	/* pids are translated into this */
};

extern struct genl_family rdmastat_family;

/* devices.c: the RDMA devices, tracked with an ib_client. */
int rdmastat_devices_init(void);
void rdmastat_devices_exit(void);
struct ib_device *rdmastat_device_next(u32 min_index, const struct net *net);
unsigned int rdmastat_devices_generation(void);

/* conn.c: cm_id records, and what QP records share with them. */
int rdmastat_conn_dump_device(struct sk_buff *skb, struct netlink_callback *cb,
			      const struct rdmastat_caller *caller,
			      struct ib_device *dev, unsigned long *next_id);
int rdmastat_put_owner(struct sk_buff *skb, const struct rdmastat_caller *caller,
		       const struct rdma_restrack_entry *res);
void rdmastat_count_qp_query(void);

/* qp.c: connected QP records with their address vectors. */
int rdmastat_qp_dump_device(struct sk_buff *skb, struct netlink_callback *cb,
			    const struct rdmastat_caller *caller,
			    struct ib_device *dev, unsigned long *next_id);

/* netlink.c: the generic netlink family, and its walk of restrack. */
typedef int (*rdmastat_fill_fn)(struct sk_buff *skb, struct netlink_callback *cb,
				const struct rdmastat_caller *caller,
				struct ib_device *dev,
				struct rdma_restrack_entry *res);
int rdmastat_restrack_dump(struct sk_buff *skb, struct netlink_callback *cb,
			   const struct rdmastat_caller *caller,
			   struct ib_device *dev, enum rdma_restrack_type type,
			   rdmastat_fill_fn fill, unsigned long *next_id);
int rdmastat_netlink_init(void);
void rdmastat_netlink_exit(void);

#endif /* _RDMASTAT_INTERNAL_H */
