// SPDX-License-Identifier: GPL-2.0
/*
 * The "rdmastat" generic netlink family: RDMASTAT_CMD_CONN_GET as a dump of
 * every cm_id, or for one id by device index and cm id number.
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
	while ((dev = rdmastat_device_next(index))) {
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

static int rdmastat_conn_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rdmastat_caller caller;
	struct rdma_restrack_entry *res;
	struct ib_device *dev;
	struct sk_buff *msg;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, RDMASTAT_A_DEV_INDEX)) {
		NL_SET_ERR_MSG(info->extack, "device index (RDMASTAT_A_DEV_INDEX) missing");
		return -EINVAL;
	}
	if (GENL_REQ_ATTR_CHECK(info, RDMASTAT_A_CM_IDN)) {
		NL_SET_ERR_MSG(info->extack, "cm id number (RDMASTAT_A_CM_IDN) missing");
		return -EINVAL;
	}

	dev = rdmastat_device_get(nla_get_u32(info->attrs[RDMASTAT_A_DEV_INDEX]));
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[RDMASTAT_A_DEV_INDEX],
				    "no RDMA device with this index");
		return -ENODEV;
	}
	res = rdma_restrack_get_byid(dev, RDMA_RESTRACK_CM_ID,
				     nla_get_u32(info->attrs[RDMASTAT_A_CM_IDN]));
	if (IS_ERR(res)) {
		ret = -ENOENT;
		goto err_dev;
	}
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		ret = -ENOMEM;
		goto err_res;
	}
	rdmastat_caller_init(&caller, skb, genl_info_net(info));
	ret = rdmastat_conn_fill(msg, &caller, dev, res, info->snd_portid,
				 info->snd_seq, 0);
	if (ret) {
		nlmsg_free(msg);
		goto err_res;
	}
	rdma_restrack_put(res);
	ib_device_put(dev);
	return genlmsg_reply(msg, info);

err_res:
	rdma_restrack_put(res);
err_dev:
	if (ret == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[RDMASTAT_A_CM_IDN],
				    "no cm_id with this number on the device");
	ib_device_put(dev);
	return ret;
}

static const struct nla_policy rdmastat_policy[RDMASTAT_A_MAX + 1] = {
	[RDMASTAT_A_DEV_INDEX] = { .type = NLA_U32 },
	[RDMASTAT_A_CM_IDN] = { .type = NLA_U32 },
};

static const struct genl_small_ops rdmastat_ops[] = {
	{
		.cmd = RDMASTAT_CMD_CONN_GET,
		/* A dump takes no attributes; ignore any rather than refuse. */
		.validate = GENL_DONT_VALIDATE_DUMP,
		.doit = rdmastat_conn_doit,
		.dumpit = rdmastat_conn_dumpit,
	},
};

struct genl_family rdmastat_family __ro_after_init = {
	.name = RDMASTAT_GENL_NAME,
	.version = RDMASTAT_GENL_VERSION,
	.maxattr = RDMASTAT_A_MAX,
	.policy = rdmastat_policy,
	.netnsok = true,
	.module = THIS_MODULE,
	.small_ops = rdmastat_ops,
	.n_small_ops = ARRAY_SIZE(rdmastat_ops),
	.resv_start_op = RDMASTAT_CMD_CONN_GET + 1,
};

int rdmastat_netlink_init(void)
{
	return genl_register_family(&rdmastat_family);
}

void rdmastat_netlink_exit(void)
{
	genl_unregister_family(&rdmastat_family);
}
