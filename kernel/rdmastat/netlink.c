// SPDX-License-Identifier: GPL-2.0
/*
 * The "rdmastat" generic netlink family: RDMASTAT_CMD_CONN_GET, a dump of
 * every cm_id the caller's network namespace can see.
 */
#include <linux/capability.h>
#include <linux/pid_namespace.h>
#include <net/genetlink.h>
#include <net/sock.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>
#include <uapi/linux/rdmastat.h>

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
 * cb->args[0] is the index of the device being dumped, cb->args[1] the cm id
 * number to resume from within it: devices in index order, ids in number order.
 */
static int rdmastat_conn_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
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
		ret = rdmastat_conn_dump_device(skb, cb, &caller, dev, &next_id);
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

/*
 * A dump of every id takes no attributes. Saying so in a policy lets the
 * core refuse any attribute with an extended ack that points at it, and
 * keeps the family introspectable.
 */
static const struct nla_policy rdmastat_conn_get_policy[RDMASTAT_A_MAX + 1] = {
	[0 ... RDMASTAT_A_MAX] = {
		.type = NLA_REJECT,
		.reject_message = "RDMASTAT_CMD_CONN_GET takes no attributes",
	},
};

static const struct genl_ops rdmastat_ops[] = {
	{
		.cmd = RDMASTAT_CMD_CONN_GET,
		.dumpit = rdmastat_conn_dumpit,
		.policy = rdmastat_conn_get_policy,
		.maxattr = RDMASTAT_A_MAX,
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
