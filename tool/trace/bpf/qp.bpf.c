// SPDX-License-Identifier: (GPL-2.0-only OR MIT)
/*
 * The life of every QP, not only an rdma_cm id's: NCCL, UCX, MPI and
 * perftest connect theirs with raw verbs, which no tracepoint reports. Every
 * QP ib_core knows of (a process's through uverbs, the kernel's) passes
 * through the functions below on 6.1, 6.12 and 7.2, so fentry and fexit
 * programs on them see each creation, each state change asked of ib_core
 * (with the peer it is given at RTR), destruction and, for a process's QP,
 * the asynchronous events its driver raises. Not seen: a state a driver
 * enters by itself, and QPs made behind ib_core's back (mlx5's DEVX objects,
 * which UCX's rc_mlx5 and dc_mlx5 use). None calls into a driver; each reads
 * what the call it traces holds alive (argued beside each read).
 *
 * Included at the end of rdma_cm.bpf.c: one object, one ring buffer.
 */

/* enum ib_qp_attr_mask, enum ib_ah_flags (include/rdma/ib_verbs.h). */
#define IB_QP_STATE 0x1
#define IB_QP_AV 0x80
#define IB_QP_DEST_QPN 0x100000
#define IB_AH_GRH 0x1

typedef struct {
	int counter;
} atomic_t;

/* CO-RE matches an enum field only with an enum of the same name. */
enum ib_qp_type { IB_QPT_SMI };
enum ib_qp_state { IB_QPS_RESET };
enum ib_event_type { IB_EVENT_CQ_ERR };

struct ib_gid_attr {
	union ib_gid gid;
} __attribute__((preserve_access_index));

struct ib_qp {
	struct ib_device *device;
	struct ib_qp *real_qp;
	atomic_t usecnt;
	void *uobject;
	const struct ib_gid_attr *av_sgid_attr;
	__u32 qp_num;
	enum ib_qp_type qp_type;
	__u32 port;
	struct rdma_restrack_entry res;
} __attribute__((preserve_access_index));

struct ib_qp_attr {
	enum ib_qp_state qp_state;
	struct rdma_ah_attr ah_attr;
	__u32 dest_qp_num;
} __attribute__((preserve_access_index));

struct ib_event {
	union {
		struct ib_qp *qp;
	} element;
	enum ib_event_type event;
} __attribute__((preserve_access_index));

struct ib_udata;
struct ib_uqp_object;

/* What rdma_init_qp_attr() last gave a thread: the next modify of that thread
 * to the same state, within a second, is a cm_id's QP being moved with them
 * (librdmacm's rdma_create_qp(), rdma_connect() and rdma_accept() do so, and
 * rdma_cm itself for a kernel id's QP). Kept in the thread's own storage,
 * which goes with it: no global lock, nothing left behind. */
struct cm_attrs {
	__u64 time_ns; /* 0: none pending */
	__u32 qp_state;
	__u32 cm_id;
	__u32 tracked;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct cm_attrs);
} cm_attrs SEC(".maps");

#define CM_ATTRS_NS 1000000000ULL

/*
 * A QP record of kind: the QP's number, type and port, as the caller read
 * them, and the QP's device and owner. Where qp is the kernel's typed pointer
 * (an argument, or a field read through one), its own fields are read
 * directly (QP_FIELDS); the device's and the owner's through helpers, as
 * rdma_cm.bpf.c reads them (direct loads of those cost more under the lab's
 * emulation: make bench-events). The device outlives its QPs, and restrack
 * holds a reference on the owning task for as long as the QP is tracked.
 */
static __always_inline struct rdmastat_trace_record *
qp_record(const struct ib_qp *qp, __u16 kind, __u32 num, __u32 type, __u32 port)
{
	struct rdmastat_trace_record *r = reserve(kind);

	if (!r)
		return NULL;
	r->qp_num = num;
	r->qp_type = type;
	r->port_num = port;
	put_device(r, BPF_CORE_READ(qp, device));
	put_owner(r, &qp->res);
	return r;
}

#define QP_FIELDS(qp) (qp)->qp_num, (qp)->qp_type, (qp)->port

/* ERR_PTR()s are the last page of the address space. */
static __always_inline int qp_made(const struct ib_qp *qp)
{
	struct rdmastat_trace_record *r;

	if (!qp || (unsigned long)qp >= (unsigned long)-4095)
		return 0;
	/* The QP was just made and is returned to its maker, who alone may
	 * destroy it, and has not yet: it is alive while this runs. */
	r = qp_record(qp, RDMASTAT_TRACE_QP_CREATED, QP_FIELDS(qp));
	if (r)
		submit(r);
	return 0;
}

PROGRAM_PAIR("fexit/ib_create_qp_user", qp_create_user, RDMASTAT_TRACE_HOOK_QP_CREATE_USER,
	     struct ib_device *dev COMMA struct ib_pd *pd COMMA
	     struct ib_qp_init_attr *attr COMMA void *udata COMMA
	     struct ib_uqp_object *uobj COMMA const char *caller COMMA struct ib_qp *ret,
	     qp_made(ret))
PROGRAM_PAIR("fexit/ib_create_qp_kernel", qp_create_kernel,
	     RDMASTAT_TRACE_HOOK_QP_CREATE_KERNEL,
	     struct ib_pd *pd COMMA struct ib_qp_init_attr *attr COMMA
	     const char *caller COMMA struct ib_qp *ret,
	     qp_made(ret))

/* At exit, and only when it gave the attributes: a caller that got none
 * moves no QP with them. */
static __always_inline int note_cm_attrs(const struct rdma_cm_id *cm_id,
					 const struct ib_qp_attr *attr, int ret)
{
	const struct rdma_id_private *id;
	struct cm_attrs *a;

	if (!cm_id || !attr || ret)
		return 0;
	a = bpf_task_storage_get(&cm_attrs, bpf_get_current_task_btf(), 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!a)
		return 0;
	id = id_of(cm_id);
	/* The caller asks for one state: ucma and rdma_cm set it first. */
	a->time_ns = bpf_ktime_get_ns();
	a->qp_state = attr->qp_state;
	a->tracked = BPF_CORE_READ(id, res.valid);
	a->cm_id = BPF_CORE_READ(id, res.id);
	return 0;
}

PROGRAM_PAIR("fexit/rdma_init_qp_attr", cm_init_qp_attr, RDMASTAT_TRACE_HOOK_CM_INIT_QP_ATTR,
	     struct rdma_cm_id *cm_id COMMA struct ib_qp_attr *attr COMMA int *mask COMMA
	     int ret,
	     note_cm_attrs(cm_id, attr, ret))

/*
 * A state change asked of a QP: _ib_modify_qp() is where ib_modify_qp(),
 * ib_modify_qp_with_udata() (uverbs' every path) and ib_drain_qp()'s move to
 * ERR all go, on 6.1, 6.12 and 7.2. Its caller holds the QP for the call
 * (uverbs holds the QP's object, which its destruction waits for; a kernel
 * QP's owner both modifies and destroys it), so the QP is alive at exit, and
 * attr is the caller's. The source GID of the path set (qp->av_sgid_attr)
 * is referenced by the QP until it is destroyed or given another path; uverbs
 * holds the object shared, so a concurrent modify of the same QP may replace
 * and put it: the read is a probe read, which cannot fault, and may then be
 * another path's GID.
 */
static __always_inline int qp_modified(const struct ib_qp *handle,
				       const struct ib_qp_attr *attr, int mask, int ret)
{
	struct rdmastat_trace_record *r;
	const struct ib_gid_attr *sgid;
	const struct ib_qp *qp;
	struct cm_attrs *a;

	if (!handle || !attr || !(mask & IB_QP_STATE))
		return 0;
	/* Its callers pass the real QP behind an XRC target's handle. */
	qp = handle->real_qp;
	if (!qp)
		qp = handle;
	r = qp_record(qp, RDMASTAT_TRACE_QP_MODIFIED, QP_FIELDS(qp));
	if (!r)
		return 0;
	r->status = ret;
	r->attr_mask = mask;
	r->qp_state = attr->qp_state;
	if (mask & IB_QP_DEST_QPN)
		r->remote_qpn = attr->dest_qp_num;
	if ((mask & IB_QP_AV) && (attr->ah_attr.ah_flags & IB_AH_GRH)) {
		r->flags |= RDMASTAT_TRACE_F_AV;
		bpf_core_read(r->gid, sizeof(r->gid), &attr->ah_attr.grh.dgid);
		sgid = ret ? NULL : qp->av_sgid_attr;
		if (sgid)
			bpf_core_read(r->sgid, sizeof(r->sgid), &sgid->gid);
	}
	a = bpf_task_storage_get(&cm_attrs, bpf_get_current_task_btf(), 0, 0);
	if (a && a->time_ns) {
		if (a->qp_state == r->qp_state &&
		    r->time_ns - a->time_ns < CM_ATTRS_NS) {
			r->flags |= RDMASTAT_TRACE_F_CM;
			if (a->tracked) {
				r->flags |= RDMASTAT_TRACE_F_TRACKED;
				r->cm_id = a->cm_id;
			}
		}
		a->time_ns = 0;
	}
	submit(r);
	return 0;
}

PROGRAM_PAIR("fexit/_ib_modify_qp", qp_modify, RDMASTAT_TRACE_HOOK_QP_MODIFY,
	     struct ib_qp *qp COMMA struct ib_qp_attr *attr COMMA int mask COMMA
	     struct ib_udata *udata COMMA int ret,
	     qp_modified(qp, attr, mask, ret))

/*
 * The QP is alive at entry: its destroyer holds it. An XRC target's handle
 * (real_qp elsewhere) destroys only itself, and a QP still in use (usecnt)
 * is refused with EBUSY: neither is the QP's end.
 */
static __always_inline int qp_gone(const struct ib_qp *qp)
{
	struct rdmastat_trace_record *r;

	if (!qp || qp->real_qp != qp || qp->usecnt.counter)
		return 0;
	r = qp_record(qp, RDMASTAT_TRACE_QP_DESTROYED, QP_FIELDS(qp));
	if (r)
		submit(r);
	return 0;
}

PROGRAM_PAIR("fentry/ib_destroy_qp_user", qp_destroy, RDMASTAT_TRACE_HOOK_QP_DESTROY,
	     struct ib_qp *qp, qp_gone(qp))

/*
 * A process's QP's asynchronous event, as uverbs hears it from the driver,
 * which raises it on a QP it has not freed. Like the handler, a QP without
 * a uverbs object (an XRC target's kernel QP) is left out.
 */
static __always_inline int qp_event(const struct ib_event *event)
{
	struct rdmastat_trace_record *r;
	const struct ib_qp *qp;

	if (!event)
		return 0;
	/* A union the verifier types by its first member (a CQ): read. */
	qp = BPF_CORE_READ(event, element.qp);
	if (!qp || !BPF_CORE_READ(qp, uobject))
		return 0;
	r = qp_record(qp, RDMASTAT_TRACE_QP_ASYNC_EVENT, BPF_CORE_READ(qp, qp_num),
		      BPF_CORE_READ(qp, qp_type), BPF_CORE_READ(qp, port));
	if (!r)
		return 0;
	r->event = event->event;
	submit(r);
	return 0;
}

PROGRAM_PAIR("fentry/ib_uverbs_qp_event_handler", qp_async_event,
	     RDMASTAT_TRACE_HOOK_QP_ASYNC_EVENT, struct ib_event *event, qp_event(event))
