// SPDX-License-Identifier: GPL-2.0
/*
 * One connected QP as one generic netlink message: its number, state, peer
 * QP number, path MTU and address vector (the peer's GID or LID), for QPs
 * connected with raw verbs, whose peer NLDEV does not report.
 *
 * Only struct ib_qp and its restrack entry are read (public headers): no
 * private layout is involved.
 */
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>
#include <uapi/linux/rdmastat.h>

#include "rdmastat.h"

/* The UAPI documents the kernel's numbering of these. */
static_assert(IB_QPT_RC == 2 && IB_QPT_UC == 3 && IB_QPT_XRC_INI == 9 &&
	      IB_QPT_XRC_TGT == 10);
static_assert(IB_MTU_256 == 1 && IB_MTU_4096 == 5);

/* The types that have one peer, set by the move to RTR. */
static bool qp_connected_type(enum ib_qp_type type)
{
	return type == IB_QPT_RC || type == IB_QPT_UC ||
	       type == IB_QPT_XRC_INI || type == IB_QPT_XRC_TGT;
}

/*
 * The network namespace of t, read under task_lock(), which setns() and the
 * task's exit (exit_task_namespaces()) take to change t->nsproxy, as
 * get_net_ns_by_pid() reads it: 1 when it is net, 0 when another, -1 when t
 * has none (it is exiting).
 */
static int task_in_net(struct task_struct *t, const struct net *net)
{
	struct nsproxy *ns;
	int in;

	task_lock(t);
	ns = t->nsproxy;
	in = ns ? net_eq(ns->net_ns, net) : -1;
	task_unlock(t);
	return in;
}

/*
 * Whether the caller's namespace holds the QP's owner. For a user QP, its
 * process's namespace: that of the thread that made it (restrack holds a
 * reference on it), or, once that thread has exited, of another thread of
 * its process. The other threads are walked under RCU on the signal_struct's
 * list, which the reference on the task keeps alive (it is freed with the
 * last task reference). A kernel QP belongs to the initial namespace; so
 * does an XRC target QP, which ib_create_qp_user() creates in ib_uverbs's
 * name, without a task.
 */
static bool qp_in_net(struct rdma_restrack_entry *res, const struct net *net)
{
	struct task_struct *task = res->task, *t;
	int in;

	if (!res->user)
		return net_eq(net, &init_net);
	if (!task)
		return false;
	in = task_in_net(task, net);
	if (in >= 0)
		return in;
	rcu_read_lock();
	for_each_thread(task, t) {
		in = task_in_net(t, net);
		if (in >= 0)
			break;
	}
	rcu_read_unlock();
	return in > 0;
}

static int put_av(struct sk_buff *skb, struct ib_device *dev,
		  const struct rdma_ah_attr *ah)
{
	u32 port = rdma_ah_get_port_num(ah);
	const struct ib_global_route *grh;
	struct nlattr *nest;
	union ib_gid sgid;

	nest = nla_nest_start(skb, RDMASTAT_QP_A_AV);
	if (!nest)
		return -EMSGSIZE;
	if (port && nla_put_u32(skb, RDMASTAT_AV_A_PORT, port))
		return -EMSGSIZE;
	if (ah->type == RDMA_AH_ATTR_TYPE_IB &&
	    (nla_put_u32(skb, RDMASTAT_AV_A_DLID, rdma_ah_get_dlid(ah)) ||
	     nla_put_u8(skb, RDMASTAT_AV_A_SL, rdma_ah_get_sl(ah))))
		return -EMSGSIZE;
	if (rdma_ah_get_ah_flags(ah) & IB_AH_GRH) {
		grh = rdma_ah_read_grh(ah);
		if (nla_put(skb, RDMASTAT_AV_A_DGID, sizeof(grh->dgid), &grh->dgid) ||
		    nla_put_u8(skb, RDMASTAT_AV_A_SGID_INDEX, grh->sgid_index) ||
		    nla_put_u32(skb, RDMASTAT_AV_A_FLOW_LABEL, grh->flow_label) ||
		    nla_put_u8(skb, RDMASTAT_AV_A_TRAFFIC_CLASS, grh->traffic_class) ||
		    nla_put_u8(skb, RDMASTAT_AV_A_HOP_LIMIT, grh->hop_limit))
			return -EMSGSIZE;
		/* The GID cache, under its own rwlock: no driver call. */
		if (rdma_is_port_valid(dev, port) &&
		    !rdma_query_gid(dev, port, grh->sgid_index, &sgid) &&
		    nla_put(skb, RDMASTAT_AV_A_SGID, sizeof(sgid), &sgid))
			return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * The driver's view of the QP: its state, peer QP number, path MTU and
 * address vector, which the move to RTR sets (ibv_modify_qp() with IB_QP_AV).
 *
 * Why the driver may be asked: the caller holds a restrack reference on qp.
 * In 6.1, 6.12 and 7.2 ib_destroy_qp_user() (the only way a QP of restrack is
 * destroyed, for user and kernel QPs alike) starts with
 * rdma_restrack_begin_del(), which takes the QP out of the xarray and waits
 * for every reference before the driver's destroy_qp and the kfree(); and the
 * dump holds the device (ib_device_try_get()), whose unregistration waits for
 * it. So struct ib_qp and the driver's QP are alive, as for NLDEV, whose QP
 * dump makes the same ib_query_qp() call for every user under the same
 * reference. ib_query_qp() clears the sgid_attr pointers and the drivers
 * take no reference for them, so there is nothing to release. This runs
 * outside the xarray lock: drivers may sleep in query_qp.
 */
static int put_qp_query(struct sk_buff *skb, struct ib_qp *qp)
{
	struct ib_qp_init_attr init_attr;
	struct ib_qp_attr attr = {};
	struct nlattr *nest;

	nest = nla_nest_start(skb, RDMASTAT_A_QP);
	if (!nest ||
	    nla_put_u32(skb, RDMASTAT_QP_A_NUM, qp->qp_num) ||
	    nla_put_u8(skb, RDMASTAT_QP_A_TYPE, qp->qp_type))
		return -EMSGSIZE;
	rdmastat_count_qp_query();
	if (ib_query_qp(qp, &attr,
			IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN,
			&init_attr))
		goto out;
	if (nla_put_u8(skb, RDMASTAT_QP_A_STATE, attr.qp_state))
		return -EMSGSIZE;
	/*
	 * Before RTR the peer is not set: the values are the driver's zeros.
	 * So are they in ERR or SQE for a QP that never reached RTR (INIT to
	 * ERR): QP number 0 is the peer of no connected QP.
	 */
	if (attr.qp_state < IB_QPS_RTR || !attr.dest_qp_num)
		goto out;
	if (nla_put_u32(skb, RDMASTAT_QP_A_DEST_NUM, attr.dest_qp_num) ||
	    (attr.path_mtu &&
	     nla_put_u8(skb, RDMASTAT_QP_A_PATH_MTU, attr.path_mtu)))
		return -EMSGSIZE;
	if (attr.ah_attr.type != RDMA_AH_ATTR_TYPE_UNDEFINED &&
	    put_av(skb, qp->device, &attr.ah_attr))
		return -EMSGSIZE;
out:
	nla_nest_end(skb, nest);
	return 0;
}

/* Appends one message for qp; -ENOENT for a QP the caller does not see. */
static int rdmastat_qp_fill(struct sk_buff *skb, struct netlink_callback *cb,
			    const struct rdmastat_caller *caller,
			    struct ib_device *dev, struct rdma_restrack_entry *res)
{
	struct ib_qp *qp = container_of(res, struct ib_qp, res);
	void *hdr;

	if (!qp_connected_type(qp->qp_type) || !qp_in_net(res, caller->net))
		return -ENOENT;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &rdmastat_family, NLM_F_MULTI, RDMASTAT_CMD_QP_GET);
	if (!hdr)
		return -EMSGSIZE;
	genl_dump_check_consistent(cb, hdr);
	if (nla_put_u32(skb, RDMASTAT_A_DEV_INDEX, dev->index) ||
	    nla_put_string(skb, RDMASTAT_A_DEV_NAME, dev_name(&dev->dev)) ||
	    (qp->port && nla_put_u32(skb, RDMASTAT_A_PORT, qp->port)) ||
	    put_qp_query(skb, qp) ||
	    rdmastat_put_owner(skb, caller, res) ||
	    nla_put_u32(skb, RDMASTAT_A_NETNS, caller->net->ns.inum))
		goto cancel;
	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

int rdmastat_qp_dump_device(struct sk_buff *skb, struct netlink_callback *cb,
			    const struct rdmastat_caller *caller,
			    struct ib_device *dev, unsigned long *next_id)
{
	/*
	 * RDMASTAT_CMD_QP_GET is GENL_ADMIN_PERM, but a dump's later rounds run
	 * in whoever reads the socket: never a driver call for one without it.
	 */
	if (!caller->net_admin)
		return -EPERM;
	return rdmastat_restrack_dump(skb, cb, caller, dev, RDMA_RESTRACK_QP,
				      rdmastat_qp_fill, next_id);
}
