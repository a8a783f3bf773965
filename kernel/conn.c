// SPDX-License-Identifier: GPL-2.0
/*
 * One rdma_cm id as one generic netlink message: the id, its QP state, its
 * iWARP wire addresses and its owner.
 *
 * The id's private structure comes from the kernel source tree given as KSRC
 * (drivers/infiniband/core/cma_priv.h and restrack.h, which no header package
 * ships). The checks below make a KSRC of another kernel fail the build
 * rather than read another layout.
 */
#include <linux/build_bug.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/version.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_cm.h>
#include <rdma/restrack.h>
#include <uapi/linux/rdmastat.h>

#include "restrack.h"
#include "cma_priv.h"
#include "rdmastat.h"

#ifndef RDMASTAT_KSRC_VERSION_CODE
#error "build with KSRC=<source tree of the running kernel> (see Kbuild)"
#endif
#if RDMASTAT_KSRC_VERSION_CODE != LINUX_VERSION_CODE
#error "KSRC is the source of another kernel version: rdma_cm's private layout would not match"
#endif

/* The members read here, with the types this file assumes. */
static_assert(__same_type(((struct rdma_id_private *)0)->id, struct rdma_cm_id));
static_assert(__same_type(((struct rdma_id_private *)0)->state, enum rdma_cm_state));
static_assert(__same_type(((struct rdma_id_private *)0)->internal_id, int));
static_assert(__same_type(((struct rdma_id_private *)0)->qp_num, u32));
static_assert(__same_type(((struct rdma_id_private *)0)->cm_id.iw, struct iw_cm_id *));
static_assert(__same_type(((struct rdma_id_private *)0)->res, struct rdma_restrack_entry));
static_assert(__same_type(((struct rdma_restrack_root *)0)->xa, struct xarray));
/* The UAPI documents the kernel's numbering of these. */
static_assert(RDMA_CM_LISTEN == 8 && RDMA_CM_DESTROYING == 10);
static_assert(IB_QPS_RTS == 3 && IB_QPS_ERR == 6);

static u8 rdmastat_transport(struct ib_device *dev, u32 port)
{
	if (!rdma_is_port_valid(dev, port))
		return RDMASTAT_TRANSPORT_UNKNOWN;
	if (rdma_protocol_iwarp(dev, port))
		return RDMASTAT_TRANSPORT_IWARP;
	if (rdma_protocol_roce(dev, port))
		return RDMASTAT_TRANSPORT_ROCE;
	if (rdma_protocol_ib(dev, port))
		return RDMASTAT_TRANSPORT_INFINIBAND;
	if (rdma_protocol_usnic(dev, port))
		return RDMASTAT_TRANSPORT_USNIC;
	return RDMASTAT_TRANSPORT_UNKNOWN;
}

/* IPv4 and IPv6 addresses only; anything else (unset, AF_IB) stays absent. */
static int put_sockaddr(struct sk_buff *skb, int type,
			const struct sockaddr_storage *ss)
{
	switch (ss->ss_family) {
	case AF_INET:
		return nla_put(skb, type, sizeof(struct sockaddr_in), ss);
	case AF_INET6:
		return nla_put(skb, type, sizeof(struct sockaddr_in6), ss);
	default:
		return 0;
	}
}

/*
 * The id holds only the QP number (a user QP is not id->qp); the QP itself is
 * found, referenced and queried the way NLDEV does it. May sleep: never call
 * it under a spinlock.
 */
static int query_qp_state(struct ib_device *dev, u32 qpn, u8 *state)
{
	struct ib_qp_init_attr init_attr;
	struct rdma_restrack_entry *res;
	struct ib_qp_attr attr;
	int ret;

	res = rdma_restrack_get_byid(dev, RDMA_RESTRACK_QP, qpn);
	if (IS_ERR(res))
		return PTR_ERR(res);
	ret = ib_query_qp(container_of(res, struct ib_qp, res), &attr,
			  IB_QP_STATE, &init_attr);
	rdma_restrack_put(res);
	if (!ret)
		*state = attr.qp_state;
	return ret;
}

static int put_qp(struct sk_buff *skb, struct ib_device *dev,
		  struct rdma_id_private *id_priv)
{
	u32 qpn = READ_ONCE(id_priv->qp_num);
	struct nlattr *nest;
	u8 state;

	if (!qpn)
		return 0;
	nest = nla_nest_start(skb, RDMASTAT_A_QP);
	if (!nest ||
	    nla_put_u32(skb, RDMASTAT_QP_A_NUM, qpn) ||
	    nla_put_u8(skb, RDMASTAT_QP_A_TYPE, id_priv->id.qp_type))
		return -EMSGSIZE;
	if (!query_qp_state(dev, qpn, &state) &&
	    nla_put_u8(skb, RDMASTAT_QP_A_STATE, state))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* Owner fields of another user's id go only to CAP_NET_ADMIN callers. */
static int put_owner(struct sk_buff *skb, const struct rdmastat_caller *caller,
		     const struct rdma_restrack_entry *res)
{
	struct task_struct *task = res->task;
	char comm[TASK_COMM_LEN];
	struct nlattr *nest;
	pid_t pid, tid;
	kuid_t kuid;
	uid_t uid;

	nest = nla_nest_start(skb, RDMASTAT_A_OWNER);
	if (!nest)
		return -EMSGSIZE;
	if (!res->user) {
		if (res->kern_name &&
		    nla_put_string(skb, RDMASTAT_OWNER_A_KERN_NAME, res->kern_name))
			return -EMSGSIZE;
		goto out;
	}
	if (!task)
		goto out;
	kuid = task_uid(task);
	if (!caller->net_admin && !uid_eq(kuid, caller->uid))
		goto out;

	pid = task_tgid_nr_ns(task, caller->pid_ns);
	tid = task_pid_nr_ns(task, caller->pid_ns);
	uid = from_kuid(caller->user_ns, kuid);
	get_task_comm(comm, task);
	if ((pid && nla_put_u32(skb, RDMASTAT_OWNER_A_PID, pid)) ||
	    (tid && tid != pid && nla_put_u32(skb, RDMASTAT_OWNER_A_TID, tid)) ||
	    (uid != (uid_t)-1 && nla_put_u32(skb, RDMASTAT_OWNER_A_UID, uid)) ||
	    nla_put_string(skb, RDMASTAT_OWNER_A_COMM, comm))
		return -EMSGSIZE;
out:
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * The wire addresses of an iWARP id. The iw_cm_id lives until after the id
 * leaves restrack, which waits for the reference our caller holds.
 */
static int put_iwarp(struct sk_buff *skb, struct ib_device *dev, u32 port,
		     struct rdma_id_private *id_priv)
{
	struct iw_cm_id *iw;

	if (!rdma_is_port_valid(dev, port) || !rdma_cap_iw_cm(dev, port))
		return 0;
	iw = READ_ONCE(id_priv->cm_id.iw);
	if (!iw)
		return 0;
	if (put_sockaddr(skb, RDMASTAT_A_MAPPED_LOCAL, &iw->m_local_addr) ||
	    put_sockaddr(skb, RDMASTAT_A_MAPPED_PEER, &iw->m_remote_addr) ||
	    (iw->mapped && nla_put_flag(skb, RDMASTAT_A_MAPPED)))
		return -EMSGSIZE;
	return 0;
}

/*
 * Appends one message for the cm_id of res (referenced by the caller).
 * -ENOENT when the id belongs to another network namespace, -EMSGSIZE when
 * skb is full (nothing of the message is left in it).
 */
int rdmastat_conn_fill(struct sk_buff *skb, const struct rdmastat_caller *caller,
		       struct ib_device *dev, struct rdma_restrack_entry *res,
		       u32 portid, u32 seq, int flags)
{
	struct rdma_id_private *id_priv =
		container_of(res, struct rdma_id_private, res);
	struct rdma_cm_id *id = &id_priv->id;
	struct net *net = id->route.addr.dev_addr.net;
	u32 port = id->port_num;
	void *hdr;

	if (!net_eq(net, caller->net))
		return -ENOENT;

	hdr = genlmsg_put(skb, portid, seq, &rdmastat_family, flags,
			  RDMASTAT_CMD_CONN_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, RDMASTAT_A_DEV_INDEX, dev->index) ||
	    nla_put_string(skb, RDMASTAT_A_DEV_NAME, dev_name(&dev->dev)) ||
	    (dev->ops.owner &&
	     nla_put_string(skb, RDMASTAT_A_DRIVER, module_name(dev->ops.owner))) ||
	    nla_put_u8(skb, RDMASTAT_A_TRANSPORT,
		       rdmastat_transport(dev, port ? port : rdma_start_port(dev))) ||
	    (port && nla_put_u32(skb, RDMASTAT_A_PORT, port)) ||
	    nla_put_u32(skb, RDMASTAT_A_CM_IDN, res->id) ||
	    nla_put_u8(skb, RDMASTAT_A_CM_STATE, READ_ONCE(id_priv->state)) ||
	    nla_put_u32(skb, RDMASTAT_A_PORT_SPACE, id->ps) ||
	    (id_priv->internal_id && nla_put_flag(skb, RDMASTAT_A_INTERNAL)) ||
	    put_sockaddr(skb, RDMASTAT_A_LOCAL, &id->route.addr.src_addr) ||
	    put_sockaddr(skb, RDMASTAT_A_PEER, &id->route.addr.dst_addr) ||
	    put_iwarp(skb, dev, port ? port : rdma_start_port(dev), id_priv) ||
	    put_qp(skb, dev, id_priv) ||
	    put_owner(skb, caller, res) ||
	    nla_put_u32(skb, RDMASTAT_A_NETNS, net->ns.inum))
		goto cancel;
	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/*
 * Appends the ids of dev from *next_id on, as NLDEV walks restrack: each entry
 * is referenced under the xarray lock and filled outside it (filling sleeps).
 * On -EMSGSIZE *next_id is the id that did not fit, to resume with.
 */
int rdmastat_conn_dump_device(struct sk_buff *skb, struct netlink_callback *cb,
			      const struct rdmastat_caller *caller,
			      struct ib_device *dev, unsigned long *next_id)
{
	struct rdma_restrack_root *rt = &dev->res[RDMA_RESTRACK_CM_ID];
	struct rdma_restrack_entry *res;
	unsigned long id;
	int ret = 0;

	xa_lock(&rt->xa);
	xa_for_each_start(&rt->xa, id, res, *next_id) {
		/* An id on its way out refuses the reference: skip it. */
		if (!rdma_restrack_get(res))
			continue;
		xa_unlock(&rt->xa);
		ret = rdmastat_conn_fill(skb, caller, dev, res,
					 NETLINK_CB(cb->skb).portid,
					 cb->nlh->nlmsg_seq, NLM_F_MULTI);
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
