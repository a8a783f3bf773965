// SPDX-License-Identifier: GPL-2.0
/*
 * One rdma_cm id as one generic netlink message: the id, its QP state, its
 * iWARP wire addresses and its owner.
 *
 * The id's private structure comes from the kernel source tree given as KSRC
 * (drivers/infiniband/core/cma_priv.h and restrack.h, which no header package
 * ships). The checks below make a KSRC of another kernel fail the build
 * rather than read another layout: its version, and where the target's BTF
 * is given (Kbuild's RDMASTAT_BTF_LAYOUT), every member's offset and size.
 */
#include <linux/build_bug.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sysfs.h>
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
static_assert(__same_type(((struct rdma_id_private *)0)->handler_mutex, struct mutex));
static_assert(__same_type(((struct rdma_id_private *)0)->cm_id.iw, struct iw_cm_id *));
static_assert(__same_type(((struct rdma_id_private *)0)->res, struct rdma_restrack_entry));
static_assert(__same_type(((struct rdma_restrack_root *)0)->xa, struct xarray));
/*
 * The layout guard: with RDMASTAT_BTF_LAYOUT_H, a header btf-layout.sh made
 * from the target rdma_cm's BTF, every member of the two private structures
 * must have the offset and size it has in the kernel that runs them.
 */
#define RDMASTAT_BTF_SIZE(s, size) \
	static_assert(sizeof(struct s) == (size), \
		      "struct " #s ": its size in KSRC differs from the target rdma_cm BTF (" #size ")")
#define RDMASTAT_BTF_FIELD(s, f, off, size) \
	static_assert(offsetof(struct s, f) == (off) && sizeof_field(struct s, f) == (size), \
		      #s "." #f ": offset or size in KSRC differs from the target rdma_cm BTF (offset " \
		      #off ", size " #size ")")
#ifdef RDMASTAT_BTF_LAYOUT_H
#include RDMASTAT_BTF_LAYOUT_H
#endif

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
 * Which QP an id names, and when the driver is asked for its state.
 *
 * An id holds only a QP number, and nothing about it proves the QP alive. A
 * user id's number is whatever the application passed to rdma_connect() or
 * rdma_accept(), and it is not cleared when that QP is destroyed. A kernel
 * id's id.qp is no better: the NFS/RDMA server (svc_rdma_free(), or
 * __svc_rdma_free() in 6.1) and 9p (rdma_destroy_trans()) free their QP with
 * a bare ib_destroy_qp() and only later call rdma_destroy_id(), so in 6.1,
 * 6.12 and 7.2 id.qp dangles while the id is still in restrack. We never
 * dereference id.qp.
 *
 * Every id's QP is found as NLDEV finds QPs: by number (restrack's id of a
 * QP is its qp_num), in the device's restrack, with a reference. In 6.1, 6.12
 * and 7.2 ib_destroy_qp_user() starts with rdma_restrack_begin_del(), which
 * takes the QP out of the xarray and waits for every reference before the
 * driver's destroy_qp and the kfree(). So while we hold one, struct ib_qp and
 * the driver's QP behind it are alive, and ib_query_qp() is safe, as it is for
 * NLDEV. We still ask the driver only for CAP_NET_ADMIN callers: an
 * unprivileged caller never makes us call into a driver (the tool takes
 * their states from NLDEV's QP dump).
 *
 * The number joins the id only when the QP is the id's: a user QP of the same
 * process (threads folded, by their shared signal_struct); for a kernel id,
 * the QP id.qp points to (compared as a pointer, never read: a number reused
 * after the id's QP was destroyed is another QP), or when the id has no
 * id.qp (the ULP made its QP itself), a QP of the same kernel owner.
 */
static atomic_long_t rdmastat_qp_queries = ATOMIC_LONG_INIT(0);

static int rdmastat_qp_queries_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&rdmastat_qp_queries));
}

static const struct kernel_param_ops rdmastat_qp_queries_ops = {
	.get = rdmastat_qp_queries_get,
};

module_param_cb(qp_queries, &rdmastat_qp_queries_ops, NULL, 0444);
MODULE_PARM_DESC(qp_queries, "driver QP queries made so far (read-only)");

void rdmastat_count_qp_query(void)
{
	atomic_long_inc(&rdmastat_qp_queries);
}

struct rdmastat_qp {
	u8 unjoined;	/* enum rdmastat_qp_unjoined */
	u8 type;
	bool has_state;
	u8 state;
};

static bool qp_of_id(struct rdma_id_private *id_priv, struct ib_qp *qp)
{
	const struct rdma_restrack_entry *id = &id_priv->res;
	struct ib_qp *own;

	if (id->user != qp->res.user)
		return false;
	if (id->user)
		return id->task && qp->res.task &&
		       same_thread_group(id->task, qp->res.task);
	own = READ_ONCE(id_priv->id.qp);
	if (own)
		return own == qp;
	return id->kern_name && qp->res.kern_name &&
	       !strcmp(id->kern_name, qp->res.kern_name);
}

/* The QP numbered qpn on dev, if it is the id's; its state for the privileged. */
static void lookup_qp(struct ib_device *dev, struct rdma_id_private *id_priv,
		      u32 qpn, const struct rdmastat_caller *caller,
		      struct rdmastat_qp *out)
{
	struct ib_qp_init_attr init_attr;
	struct rdma_restrack_entry *res;
	struct ib_qp_attr attr;
	struct ib_qp *qp;

	res = rdma_restrack_get_byid(dev, RDMA_RESTRACK_QP, qpn);
	if (IS_ERR(res)) {
		out->unjoined = RDMASTAT_QP_UNJOINED_GONE;
		return;
	}
	qp = container_of(res, struct ib_qp, res);
	if (!qp_of_id(id_priv, qp)) {
		out->unjoined = RDMASTAT_QP_UNJOINED_OTHER_OWNER;
		goto out;
	}
	out->type = qp->qp_type;
	if (caller->net_admin) {
		rdmastat_count_qp_query();
		if (!ib_query_qp(qp, &attr, IB_QP_STATE, &init_attr)) {
			out->has_state = true;
			out->state = attr.qp_state;
		}
	}
out:
	rdma_restrack_put(res);
}

static int put_qp(struct sk_buff *skb, struct ib_device *dev,
		  const struct rdmastat_caller *caller,
		  struct rdma_id_private *id_priv)
{
	u32 qpn = READ_ONCE(id_priv->qp_num);
	struct rdmastat_qp qp = {};
	struct nlattr *nest;

	if (!qpn)
		return 0;
	lookup_qp(dev, id_priv, qpn, caller, &qp);

	nest = nla_nest_start(skb, RDMASTAT_A_QP);
	if (!nest || nla_put_u32(skb, RDMASTAT_QP_A_NUM, qpn))
		return -EMSGSIZE;
	if (qp.unjoined) {
		if (nla_put_u8(skb, RDMASTAT_QP_A_UNJOINED, qp.unjoined))
			return -EMSGSIZE;
	} else if (nla_put_u8(skb, RDMASTAT_QP_A_TYPE, qp.type) ||
		   (qp.has_state &&
		    nla_put_u8(skb, RDMASTAT_QP_A_STATE, qp.state))) {
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * Whether the caller may see the owner fields of task's id: with
 * CAP_NET_ADMIN, or when the caller's effective uid is every uid of task's
 * (real, effective, saved), as ptrace's check compares like with like. A
 * set-uid process started by the caller is not the caller's.
 */
static bool owner_visible(const struct rdmastat_caller *caller,
			  struct task_struct *task)
{
	const struct cred *tcred;
	bool ok;

	if (caller->net_admin)
		return true;
	rcu_read_lock();
	tcred = __task_cred(task);
	ok = uid_eq(caller->uid, tcred->uid) && uid_eq(caller->uid, tcred->euid) &&
	     uid_eq(caller->uid, tcred->suid);
	rcu_read_unlock();
	return ok;
}

/* Owner fields of another user's id go only to CAP_NET_ADMIN callers. */
int rdmastat_put_owner(struct sk_buff *skb, const struct rdmastat_caller *caller,
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
	if (!task || !owner_visible(caller, task))
		goto out;
	kuid = task_uid(task);

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
 * The wire addresses of an iWARP id, from its iw_cm_id, read only while
 * cma.c guarantees that iw_cm_id is alive; otherwise the id is sent with
 * RDMASTAT_A_MAPPING_WITHHELD.
 *
 * In 6.1, 6.12 and the newest kernels cma.c frees an id's iw_cm_id
 * (iw_destroy_cm_id(), or the iWARP CM after a handler failed) in these
 * places, all but the last while the id is still in restrack:
 * - cma_connect_iw() on failure, with the id in RDMA_CM_CONNECT and its
 *   handler_mutex held (rdma_connect() takes it; rdma_connect_locked()'s
 *   callers hold it);
 * - cma_iw_handler() and iw_conn_req_handler() when the ULP's handler fails:
 *   they clear cm_id.iw under handler_mutex, and the iWARP CM frees it once
 *   they have returned;
 * - cma_iw_listen() on failure, under no lock, with the id in RDMA_CM_LISTEN
 *   (rdma_listen() moved it there from RDMA_CM_ADDR_BOUND);
 * - _destroy_id(), after rdma_restrack_del(), which waits for our reference.
 * cma_comp_exch() asserts handler_mutex for every move into or out of
 * RDMA_CM_CONNECT, and the stores that make an id RDMA_CM_CONNECT directly
 * (a new passive id) hold it too. So with handler_mutex held and the state
 * RDMA_CM_CONNECT, the id stays RDMA_CM_CONNECT, it is not in the listen
 * path, and the two other frees wait for the mutex: cm_id.iw is NULL or
 * alive. Any other id (a listener above all) is withheld.
 *
 * Only a trylock: handler_mutex is held across the ULP's event handlers,
 * which may block (the port mapper waits for its daemon), and a dump does
 * not wait for them. A busy id is withheld too.
 */
static int put_iwarp(struct sk_buff *skb, struct ib_device *dev, u32 port,
		     struct rdma_id_private *id_priv)
{
	struct iw_cm_id *iw;
	int ret = 0;

	if (!rdma_is_port_valid(dev, port) || !rdma_cap_iw_cm(dev, port))
		return 0;
	if (!mutex_trylock(&id_priv->handler_mutex))
		return nla_put_flag(skb, RDMASTAT_A_MAPPING_WITHHELD);
	if (id_priv->state != RDMA_CM_CONNECT) {
		ret = nla_put_flag(skb, RDMASTAT_A_MAPPING_WITHHELD);
		goto out;
	}
	iw = id_priv->cm_id.iw;
	if (iw && (put_sockaddr(skb, RDMASTAT_A_MAPPED_LOCAL, &iw->m_local_addr) ||
		   put_sockaddr(skb, RDMASTAT_A_MAPPED_PEER, &iw->m_remote_addr) ||
		   (iw->mapped && nla_put_flag(skb, RDMASTAT_A_MAPPED))))
		ret = -EMSGSIZE;
out:
	mutex_unlock(&id_priv->handler_mutex);
	return ret;
}

/*
 * Appends one message for the cm_id of res (referenced by the caller).
 * -ENOENT when the id belongs to another network namespace, -EMSGSIZE when
 * skb is full (nothing of the message is left in it).
 */
static int rdmastat_conn_fill(struct sk_buff *skb, struct netlink_callback *cb,
			      const struct rdmastat_caller *caller,
			      struct ib_device *dev,
			      struct rdma_restrack_entry *res)
{
	struct rdma_id_private *id_priv =
		container_of(res, struct rdma_id_private, res);
	struct rdma_cm_id *id = &id_priv->id;
	struct net *net = id->route.addr.dev_addr.net;
	u32 port = id->port_num;
	void *hdr;

	if (!net_eq(net, caller->net))
		return -ENOENT;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &rdmastat_family, NLM_F_MULTI, RDMASTAT_CMD_CONN_GET);
	if (!hdr)
		return -EMSGSIZE;
	genl_dump_check_consistent(cb, hdr);
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
	    put_qp(skb, dev, caller, id_priv) ||
	    rdmastat_put_owner(skb, caller, res) ||
	    nla_put_u32(skb, RDMASTAT_A_NETNS, net->ns.inum))
		goto cancel;
	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

int rdmastat_conn_dump_device(struct sk_buff *skb, struct netlink_callback *cb,
			      const struct rdmastat_caller *caller,
			      struct ib_device *dev, unsigned long *next_id)
{
	return rdmastat_restrack_dump(skb, cb, caller, dev, RDMA_RESTRACK_CM_ID,
				      rdmastat_conn_fill, next_id);
}
