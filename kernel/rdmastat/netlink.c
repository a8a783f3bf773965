// SPDX-License-Identifier: GPL-2.0
/*
 * The "rdmastat" generic netlink family: RDMASTAT_CMD_CONN_GET, a dump of
 * every cm_id the caller's network namespace can see, and RDMASTAT_CMD_QP_GET,
 * a dump of its connected QPs with their address vectors.
 */
#include <linux/capability.h>
#include <linux/pid_namespace.h>
#include <net/genetlink.h>
#include <net/sock.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>
#include <uapi/linux/rdmastat.h>

#include "restrack.h"
#include "rdmastat.h"

/*
 * The caller is the process reading the socket (dumps run in its recvmsg()),
 * with the credentials the socket was opened with, as netlink_capable() checks.
 */
static void rdmastat_caller_init(struct rdmastat_caller *caller,
				 struct sk_buff *request, struct net *net)
{
	const struct cred *cred = NETLINK_CB(request).sk->sk_socket->file->f_cred;

	caller->net = net;
	caller->net_admin = netlink_capable(request, CAP_NET_ADMIN);
	caller->uid = cred->euid;
	caller->user_ns = cred->user_ns;
	caller->pid_ns = task_active_pid_ns(current);
}

/*
 * Appends the entries of type on dev from *next_id on, as NLDEV walks
 * restrack: each entry is referenced under the xarray lock and filled outside
 * it (filling sleeps). fill returns -ENOENT for an entry the caller does not
 * see. On -EMSGSIZE *next_id is the entry that did not fit, to resume with.
 */
int rdmastat_restrack_dump(struct sk_buff *skb, struct netlink_callback *cb,
			   const struct rdmastat_caller *caller,
			   struct ib_device *dev, enum rdma_restrack_type type,
			   rdmastat_fill_fn fill, unsigned long *next_id)
{
	struct rdma_restrack_root *rt = &dev->res[type];
	struct rdma_restrack_entry *res;
	unsigned long id;
	int ret = 0;

	xa_lock(&rt->xa);
	xa_for_each_start(&rt->xa, id, res, *next_id) {
		/* An entry on its way out refuses the reference: skip it. */
		if (!rdma_restrack_get(res))
			continue;
		xa_unlock(&rt->xa);
		ret = fill(skb, cb, caller, dev, res);
		rdma_restrack_put(res);
		xa_lock(&rt->xa);
		if (ret == -ENOENT)
			ret = 0;
		if (ret) {
			*next_id = id;
			break;
		}
	}
	xa_unlock(&rt->xa);
	return ret;
}

typedef int (*rdmastat_dump_device_fn)(struct sk_buff *skb,
				       struct netlink_callback *cb,
				       const struct rdmastat_caller *caller,
				       struct ib_device *dev,
				       unsigned long *next_id);

/*
 * cb->args[0] is the index of the device being dumped, cb->args[1] the
 * restrack id (cm id or QP number) to resume from within it: devices in index
 * order, entries in number order.
 */
static int rdmastat_dump(struct sk_buff *skb, struct netlink_callback *cb,
			 rdmastat_dump_device_fn dump_device)
{
	u32 index = cb->args[0];
	unsigned long next_id = cb->args[1];
	struct rdmastat_caller caller;
	struct ib_device *dev;
	int ret = 0;

	rdmastat_caller_init(&caller, cb->skb, sock_net(skb->sk));
	/* Messages filled after the device set changed carry NLM_F_DUMP_INTR. */
	cb->seq = rdmastat_devices_generation();
	while ((dev = rdmastat_device_next(index, caller.net))) {
		if (dev->index != index) {
			/* The device we were in went away: start the next one. */
			index = dev->index;
			next_id = 0;
		}
		ret = dump_device(skb, cb, &caller, dev, &next_id);
		ib_device_put(dev);
		if (ret || index == U32_MAX)
			break;
		index++;
		next_id = 0;
	}
	cb->args[0] = index;
	cb->args[1] = next_id;
	/* A full skb ends this round; the rest comes with the next recvmsg(). */
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret ? ret : skb->len;
}

static int rdmastat_conn_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return rdmastat_dump(skb, cb, rdmastat_conn_dump_device);
}

static int rdmastat_qp_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return rdmastat_dump(skb, cb, rdmastat_qp_dump_device);
}

/*
 * Neither dump takes attributes. Saying so in a policy lets the core refuse
 * any attribute with an extended ack that points at it, and keeps the family
 * introspectable.
 */
static const struct nla_policy rdmastat_conn_get_policy[RDMASTAT_A_MAX + 1] = {
	[0 ... RDMASTAT_A_MAX] = {
		.type = NLA_REJECT,
		.reject_message = "RDMASTAT_CMD_CONN_GET takes no attributes",
	},
};

static const struct nla_policy rdmastat_qp_get_policy[RDMASTAT_A_MAX + 1] = {
	[0 ... RDMASTAT_A_MAX] = {
		.type = NLA_REJECT,
		.reject_message = "RDMASTAT_CMD_QP_GET takes no attributes",
	},
};

static const struct genl_ops rdmastat_ops[] = {
	{
		.cmd = RDMASTAT_CMD_CONN_GET,
		.dumpit = rdmastat_conn_dumpit,
		.policy = rdmastat_conn_get_policy,
		.maxattr = RDMASTAT_A_MAX,
	},
	{
		/* Every message asks a driver: only for CAP_NET_ADMIN. */
		.cmd = RDMASTAT_CMD_QP_GET,
		.dumpit = rdmastat_qp_dumpit,
		.policy = rdmastat_qp_get_policy,
		.maxattr = RDMASTAT_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
};

/*
 * parallel_ops: dumps keep their state in the netlink callback and the device
 * list has its own mutex, so nothing needs the global genl mutex.
 * resv_start_op is 0: every request is strictly validated.
 */
struct genl_family rdmastat_family __ro_after_init = {
	.name = RDMASTAT_GENL_NAME,
	.version = RDMASTAT_GENL_VERSION,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = rdmastat_ops,
	.n_ops = ARRAY_SIZE(rdmastat_ops),
};

int rdmastat_netlink_init(void)
{
	return genl_register_family(&rdmastat_family);
}

void rdmastat_netlink_exit(void)
{
	genl_unregister_family(&rdmastat_family);
}
