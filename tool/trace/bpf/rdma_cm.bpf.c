// SPDX-License-Identifier: (GPL-2.0-only OR MIT)
/*
 * rdmastat's BPF programs: one record per hit of the kernel's rdma_cma
 * tracepoints (and of ib_cma's icm_no_listener_err), with what the id says about itself at that moment (device,
 * port space, addresses, state, QP, owner), into a ring buffer the tool reads.
 *
 * The kernel's types are declared here with only the fields read, and
 * preserve_access_index: libbpf relocates each access against the running
 * kernel's BTF (rdma_id_private is in rdma_cm's module BTF), so one object
 * serves every kernel that has the fields.
 *
 * Each tracepoint has a BTF-typed program (tp_btf) and a raw one (raw_tp),
 * whose bodies are the same, each with a second program that records what
 * the first missed (TRACE_PROGRAM below). The tool loads the BTF-typed set
 * and falls back to the raw one when the kernel cannot attach BTF-typed programs to a
 * module's tracepoints. Two things have no tracepoint: a connect that fails
 * before any event (siw's connect to a closed port fails in rdma_connect
 * itself), and an iWARP reject. fexit programs on rdma_connect_locked() and
 * rdma_reject() report them, and an fentry program on rdma_connect_locked()
 * the start of the CM exchange, where the kernel allows function tracing.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_tracing.h>

#include "record.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

typedef struct {
	__u32 val;
} kuid_t;

struct cred {
	kuid_t euid;
} __attribute__((preserve_access_index));

struct task_struct {
	int tgid;
	char comm[16];
	const struct cred *real_cred;
} __attribute__((preserve_access_index));

struct ib_device {
	char name[RDMASTAT_TRACE_DEVICE_LEN];
	__u8 node_type;
} __attribute__((preserve_access_index));

struct sockaddr_bytes {
	__u8 bytes[RDMASTAT_TRACE_ADDR_LEN];
};

struct rdma_addr {
	struct sockaddr_bytes src_addr;
	struct sockaddr_bytes dst_addr;
} __attribute__((preserve_access_index));

struct rdma_route {
	struct rdma_addr addr;
} __attribute__((preserve_access_index));

enum rdma_ucm_port_space { RDMA_PS_TCP = 0x0106 };
enum rdma_cm_state { RDMA_CM_IDLE };
enum rdma_cm_event_type { RDMA_CM_EVENT_ADDR_RESOLVED };

struct rdma_cm_id {
	struct ib_device *device;
	struct rdma_route route;
	enum rdma_ucm_port_space ps;
	__u32 port_num;
} __attribute__((preserve_access_index));

struct rdma_restrack_entry {
	_Bool valid;
	struct task_struct *task;
	const char *kern_name;
	__u32 id;
} __attribute__((preserve_access_index));

struct rdma_id_private {
	struct rdma_cm_id id;
	enum rdma_cm_state state;
	__u32 qp_num;
	__u8 tos;
	struct rdma_restrack_entry res;
} __attribute__((preserve_access_index));

struct rdma_cm_event {
	enum rdma_cm_event_type event;
	int status;
} __attribute__((preserve_access_index));

/* ib_cm's: a request's id, and the address it came from. */
union ib_gid {
	__u8 raw[16];
};

struct ib_global_route {
	union ib_gid dgid;
} __attribute__((preserve_access_index));

struct rdma_ah_attr {
	struct ib_global_route grh;
	__u8 ah_flags;
} __attribute__((preserve_access_index));

struct cm_av {
	struct rdma_ah_attr ah_attr;
} __attribute__((preserve_access_index));

struct ib_cm_id {
	struct ib_device *device;
	__be64 service_id;
} __attribute__((preserve_access_index));

struct cm_id_private {
	struct ib_cm_id id;
	struct cm_av av;
} __attribute__((preserve_access_index));

struct ib_pd;
struct ib_qp_init_attr;
struct rdma_conn_param;

/* Set by the tool before load: the ring buffer's size. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
} records SEC(".maps");

/* Set by the tool before load: buffered bytes past which a record wakes the
 * reader. Below it, records wait for the reader's next round (it polls every
 * few milliseconds). A wakeup from a program is an interrupt that may preempt
 * it where tracepoints run preemptible (7.x): another task on that CPU then
 * finds the program still running, and the kernel skips it for that hit. */
const volatile __u64 wake_bytes = 0;

/* Records that found the ring buffer full, per CPU (index 0). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

static __always_inline void count_lost(void)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&lost, &zero);

	if (n)
		(*n)++;
}

/* A zeroed record of kind, stamped now; NULL (counted) when the buffer is
 * full. */
static __always_inline struct rdmastat_trace_record *reserve(__u16 kind)
{
	struct rdmastat_trace_record *r;

	r = bpf_ringbuf_reserve(&records, sizeof(*r), 0);
	if (!r) {
		count_lost();
		return NULL;
	}
	__builtin_memset(r, 0, sizeof(*r));
	r->time_ns = bpf_ktime_get_ns();
	r->kind = kind;
	return r;
}

static __always_inline void submit(struct rdmastat_trace_record *r)
{
	__u64 queued = bpf_ringbuf_query(&records, BPF_RB_AVAIL_DATA);

	bpf_ringbuf_submit(r, queued >= wake_bytes ? BPF_RB_FORCE_WAKEUP :
						     BPF_RB_NO_WAKEUP);
}

static __always_inline void put_device(struct rdmastat_trace_record *r,
				       const struct ib_device *dev)
{
	if (!dev)
		return;
	r->flags |= RDMASTAT_TRACE_F_DEVICE;
	r->node_type = BPF_CORE_READ(dev, node_type);
	bpf_core_read_str(r->device, sizeof(r->device), &dev->name);
}

/* The owner restrack recorded for an object when it was made. */
static __always_inline void put_owner(struct rdmastat_trace_record *r,
				      const struct rdma_restrack_entry *res)
{
	struct task_struct *task = BPF_CORE_READ(res, task);
	const char *kern_name = BPF_CORE_READ(res, kern_name);

	if (task) {
		r->flags |= RDMASTAT_TRACE_F_USER;
		r->pid = BPF_CORE_READ(task, tgid);
		r->uid = BPF_CORE_READ(task, real_cred, euid.val);
		bpf_core_read_str(r->name, sizeof(r->name), &task->comm);
	} else if (kern_name) {
		bpf_probe_read_kernel_str(r->name, sizeof(r->name), kern_name);
	}
}

static __always_inline int emit(const struct rdma_id_private *id, __u16 kind,
				__s32 event, __s32 status)
{
	struct rdmastat_trace_record *r;

	/* The verifier (6.12 and later) types a BTF-typed argument as possibly
	 * NULL and refuses arithmetic on it before a check. */
	if (!id)
		return 0;
	r = reserve(kind);
	if (!r)
		return 0;
	r->event = event;
	r->status = status;
	if (BPF_CORE_READ(id, res.valid)) {
		r->flags |= RDMASTAT_TRACE_F_TRACKED;
		r->cm_id = BPF_CORE_READ(id, res.id);
	}
	r->qp_num = BPF_CORE_READ(id, qp_num);
	r->port_space = BPF_CORE_READ(id, id.ps);
	r->port_num = BPF_CORE_READ(id, id.port_num);
	r->state = BPF_CORE_READ(id, state);
	r->tos = BPF_CORE_READ(id, tos);
	bpf_core_read(r->src, sizeof(r->src), &id->id.route.addr.src_addr);
	bpf_core_read(r->dst, sizeof(r->dst), &id->id.route.addr.dst_addr);

	put_device(r, BPF_CORE_READ(id, id.device));
	/* The owner as restrack recorded it when the id was made (a passive
	 * side's id inherits its listener's), not the task running now. */
	put_owner(r, &id->res);
	submit(r);
	return 0;
}

static __always_inline int on_event(const struct rdma_id_private *id,
				    const struct rdma_cm_event *ev)
{
	if (!ev)
		return 0;
	return emit(id, RDMASTAT_TRACE_CM_EVENT, BPF_CORE_READ(ev, event),
		    BPF_CORE_READ(ev, status));
}

/* A request nobody listens for: ib_cm made an id for it (its address vector
 * already aimed back at the requester), found no listener, and rejects it. */
static __always_inline int on_no_listener(const struct ib_cm_id *cm_id)
{
	const struct cm_id_private *priv;
	struct rdmastat_trace_record *r;

	if (!cm_id)
		return 0;
	r = reserve(RDMASTAT_TRACE_NO_LISTENER);
	if (!r)
		return 0;
	r->service_id = bpf_be64_to_cpu(BPF_CORE_READ(cm_id, service_id));
	priv = (const void *)((char *)cm_id -
			      bpf_core_field_offset(struct cm_id_private, id));
	bpf_core_read(r->gid, sizeof(r->gid), &priv->av.ah_attr.grh.dgid);
	put_device(r, BPF_CORE_READ(cm_id, device));
	submit(r);
	return 0;
}

/*
 * Where tracepoints run preemptible (7.x), a program preempted mid-run holds
 * its CPU: the kernel skips it for every other hit there until it resumes
 * (a recursion miss). So each tracepoint has a second program, attached after
 * the first, that records a hit only when the first is held on this CPU by
 * another task and did not finish this hit itself; otherwise it returns at
 * once. Per tracepoint and CPU (migration is disabled while they run, and only
 * the first program writes running and done, only the second recovered),
 * struct rdmastat_trace_tp_state.
 * Known gap: 7.x enables migration again between the two programs. A task
 * preempted just there, whose CPU meanwhile finishes another hit and has a
 * third task preempted inside the first program, has its hit recorded twice;
 * a task that hits a tracepoint again with the same first argument, while its
 * first program is held elsewhere, has that hit lost (and counted).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RDMASTAT_TRACE_TRACEPOINTS);
	__type(key, __u32);
	__type(value, struct rdmastat_trace_tp_state);
} tp_states SEC(".maps");

static __always_inline struct rdmastat_trace_tp_state *tp_state(__u32 tp)
{
	return bpf_map_lookup_elem(&tp_states, &tp);
}

static __always_inline struct rdmastat_trace_tp_state *enter(__u32 tp)
{
	struct rdmastat_trace_tp_state *s = tp_state(tp);

	if (s)
		s->running++;
	return s;
}

static __always_inline void leave(struct rdmastat_trace_tp_state *s, __u64 arg)
{
	if (!s)
		return;
	s->done_task = bpf_get_current_task();
	s->done_arg = arg;
	s->running--;
}

/* Whether the first program missed this hit: it is running on this CPU
 * (preempted, in another task), and the hit it finished last is not this. */
static __always_inline struct rdmastat_trace_tp_state *missed(__u32 tp, __u64 arg)
{
	struct rdmastat_trace_tp_state *s = tp_state(tp);

	if (!s || !s->running)
		return NULL;
	if (s->done_task == bpf_get_current_task() && s->done_arg == arg)
		return NULL;
	return s;
}

/* Each tracepoint (number tp) as a BTF-typed program and as a raw one, each
 * with its second program. */
#define TRACE_PROGRAM(sec, prefix, name, tp, args, body)                      \
	SEC(#sec "/" #name)                                                    \
	int BPF_PROG(prefix##_##name, args)                                    \
	{                                                                      \
		struct rdmastat_trace_tp_state *s = enter(tp);                                \
		body;                                                          \
		leave(s, ctx[0]);                                              \
		return 0;                                                      \
	}                                                                      \
	SEC(#sec "/" #name)                                                    \
	int BPF_PROG(prefix##_##name##_again, args)                            \
	{                                                                      \
		struct rdmastat_trace_tp_state *s = missed(tp, ctx[0]);                       \
		if (!s)                                                        \
			return 0;                                              \
		body;                                                          \
		s->recovered++;                                                \
		return 0;                                                      \
	}

#define TRACE_PAIR(name, tp, args, body)                                       \
	TRACE_PROGRAM(tp_btf, btf, name, tp, PARAMS(args), body)               \
	TRACE_PROGRAM(raw_tp, raw, name, tp, PARAMS(args), body)

#define PARAMS(...) __VA_ARGS__
#define COMMA ,

TRACE_PAIR(cm_event_handler, 0,
	   const struct rdma_id_private *id COMMA const struct rdma_cm_event *ev,
	   on_event(id, ev))
TRACE_PAIR(cm_qp_create, 1,
	   const struct rdma_id_private *id COMMA const struct ib_pd *pd COMMA
	   const struct ib_qp_init_attr *attr COMMA int rc,
	   emit(id, RDMASTAT_TRACE_QP_CREATE, 0, rc))
TRACE_PAIR(cm_send_rej, 2, const struct rdma_id_private *id,
	   emit(id, RDMASTAT_TRACE_SEND_REJ, 0, 0))
TRACE_PAIR(cm_send_rtu, 3, const struct rdma_id_private *id,
	   emit(id, RDMASTAT_TRACE_SEND_RTU, 0, 0))
TRACE_PAIR(cm_disconnect, 4, const struct rdma_id_private *id,
	   emit(id, RDMASTAT_TRACE_DISCONNECT, 0, 0))
TRACE_PAIR(icm_no_listener_err, 5, const struct ib_cm_id *cm_id,
	   on_no_listener(cm_id))
TRACE_PAIR(cm_id_destroy, 6, const struct rdma_id_private *id,
	   emit(id, RDMASTAT_TRACE_DESTROY, 0, 0))

SEC("fexit/rdma_connect_locked")
int BPF_PROG(connect_exit, struct rdma_cm_id *cm_id, struct rdma_conn_param *param, int ret)
{
	const struct rdma_id_private *id;

	if (ret >= 0 || !cm_id)
		return 0;
	id = (const void *)((char *)cm_id -
			    bpf_core_field_offset(struct rdma_id_private, id));
	return emit(id, RDMASTAT_TRACE_CONNECT_FAIL, 0, ret);
}

SEC("fentry/rdma_connect_locked")
int BPF_PROG(connect_entry, struct rdma_cm_id *cm_id)
{
	const struct rdma_id_private *id;

	if (!cm_id)
		return 0;
	id = (const void *)((char *)cm_id -
			    bpf_core_field_offset(struct rdma_id_private, id));
	return emit(id, RDMASTAT_TRACE_CONNECT_START, 0, 0);
}

/* iWARP rejects go to iw_cm without passing cm_send_rej. */
SEC("fexit/rdma_reject")
int BPF_PROG(reject_exit, struct rdma_cm_id *cm_id, const void *data, __u8 len, __u8 reason,
	     int ret)
{
	const struct rdma_id_private *id;
	struct ib_device *dev;

	if (!cm_id)
		return 0;
	dev = BPF_CORE_READ(cm_id, device);
	if (!dev || BPF_CORE_READ(dev, node_type) != 4 /* RDMA_NODE_RNIC */)
		return 0;
	id = (const void *)((char *)cm_id -
			    bpf_core_field_offset(struct rdma_id_private, id));
	return emit(id, RDMASTAT_TRACE_SEND_REJ, 0, ret);
}

/* The QP programs share this object's ring buffer, maps and helpers. */
#include "qp.bpf.c"
