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
 * whose bodies are the same. Each program, these and the ones on functions,
 * has a second program that records what the first missed (PROGRAM_PAIR
 * below). The tool loads the BTF-typed set
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
 * (a recursion miss). Programs on functions' entry and exit run with only
 * migration disabled on every kernel, and are preempted where the kernel's
 * preemption model allows it. So each tracepoint and traced function has a
 * second program, run after the first, that records a hit only when the
 * first did not finish it; otherwise it returns at once. The tool loads the
 * second programs (and sets seconds) where its probe (preempt.bpf.c) finds
 * tracepoints preemptible.
 *
 * A task runs a hit's two programs one after the other, though it may be
 * preempted or migrated between them, and one task is in one hit of a
 * tracepoint or function at a time: so the first program marks the hit
 * finished under its task and hook, and the second takes the mark away. The
 * mark is per task, not per CPU: a per-CPU note of the last hit finished
 * cannot tell a task's hit from its previous one. A second program records
 * only once the tool has attached every program (armed): before, a function's
 * second program runs alone, its first not yet attached.
 * Known gaps. Both programs skipped (another task held inside each on that
 * CPU): the hit is lost, and counted. The second alone skipped: its mark stays
 * until the task's next hit there, which is lost (and counted) if its first
 * program is skipped. A hit in interrupt context runs as the task it
 * interrupted: between that task's two programs for the same hook (only
 * ib_uverbs_qp_event_handler is reached from both), the task's hit is
 * recorded twice. A mark the map refuses is counted (unmarked) and its hit
 * recorded twice.
 */
const volatile __u8 seconds = 0;

/* Set by the tool once every program is attached. */
__u8 armed = 0;

struct finished_key {
	__u64 task;
	__u32 hook;
	__u32 pad;
};

/* The marks. An LRU map: a mark the second program never took (it was
 * skipped) is evicted in time rather than filling the map. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct finished_key);
	__type(value, __u8);
} finished SEC(".maps");

/* Per tracepoint or function and CPU, the hits second programs recorded. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RDMASTAT_TRACE_HOOKS);
	__type(key, __u32);
	__type(value, struct rdmastat_trace_tp_state);
} tp_states SEC(".maps");

static __always_inline struct finished_key finished_key(__u32 hook)
{
	struct finished_key key = { .task = bpf_get_current_task(), .hook = hook };

	return key;
}

/* The first program's last step. */
static __always_inline void finish(__u32 hook)
{
	struct rdmastat_trace_tp_state *s;
	struct finished_key key;
	__u8 one = 1;

	if (!seconds)
		return;
	key = finished_key(hook);
	if (!bpf_map_update_elem(&finished, &key, &one, BPF_ANY))
		return;
	s = bpf_map_lookup_elem(&tp_states, &hook);
	if (s)
		s->unmarked++;
}

/* The second program's first step: whether the first did not finish this
 * hit (it was skipped). The mark is taken away even before the tool arms
 * the second programs; a failure other than no mark says nothing, and the
 * hit is left to the first (a miss the kernel counts). */
static __always_inline int missed(__u32 hook)
{
	struct finished_key key = finished_key(hook);

	return bpf_map_delete_elem(&finished, &key) == -2 /* -ENOENT */ && armed;
}

static __always_inline void recovered(__u32 hook)
{
	struct rdmastat_trace_tp_state *s = bpf_map_lookup_elem(&tp_states, &hook);

	if (s)
		s->recovered++;
}

/* A program on section sec, numbered hook (its tp_states entry), and its
 * second program. A tracepoint runs its programs in the order they were
 * attached; a function's trampoline runs the one attached last first. So the
 * tool attaches a tracepoint's second program after its first, and a
 * function's before. */
#define PROGRAM_PAIR(sec, name, hook, args, body)                             \
	SEC(sec)                                                               \
	int BPF_PROG(name, args)                                               \
	{                                                                      \
		body;                                                          \
		finish(hook);                                                  \
		return 0;                                                      \
	}                                                                      \
	SEC(sec)                                                               \
	int BPF_PROG(name##_again, args)                                       \
	{                                                                      \
		if (!missed(hook))                                             \
			return 0;                                              \
		body;                                                          \
		recovered(hook);                                               \
		return 0;                                                      \
	}

/* Each tracepoint (number tp) as a BTF-typed program and as a raw one. */
#define TRACE_PROGRAM(sec, prefix, name, tp, args, body)                      \
	PROGRAM_PAIR(#sec "/" #name, prefix##_##name, tp, PARAMS(args), body)

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

/* The id behind an rdma_cm_id. */
static __always_inline const struct rdma_id_private *id_of(const struct rdma_cm_id *cm_id)
{
	return (const void *)((const char *)cm_id -
			      bpf_core_field_offset(struct rdma_id_private, id));
}

static __always_inline int on_connect_exit(const struct rdma_cm_id *cm_id, int ret)
{
	if (ret >= 0 || !cm_id)
		return 0;
	return emit(id_of(cm_id), RDMASTAT_TRACE_CONNECT_FAIL, 0, ret);
}

static __always_inline int on_connect_entry(const struct rdma_cm_id *cm_id)
{
	if (!cm_id)
		return 0;
	return emit(id_of(cm_id), RDMASTAT_TRACE_CONNECT_START, 0, 0);
}

/* iWARP rejects go to iw_cm without passing cm_send_rej. */
static __always_inline int on_reject_exit(const struct rdma_cm_id *cm_id, int ret)
{
	struct ib_device *dev;

	if (!cm_id)
		return 0;
	dev = BPF_CORE_READ(cm_id, device);
	if (!dev || BPF_CORE_READ(dev, node_type) != 4 /* RDMA_NODE_RNIC */)
		return 0;
	return emit(id_of(cm_id), RDMASTAT_TRACE_SEND_REJ, 0, ret);
}

PROGRAM_PAIR("fexit/rdma_connect_locked", connect_exit, RDMASTAT_TRACE_HOOK_CONNECT_EXIT,
	     struct rdma_cm_id *cm_id COMMA struct rdma_conn_param *param COMMA int ret,
	     on_connect_exit(cm_id, ret))
PROGRAM_PAIR("fentry/rdma_connect_locked", connect_entry, RDMASTAT_TRACE_HOOK_CONNECT_ENTRY,
	     struct rdma_cm_id *cm_id, on_connect_entry(cm_id))
PROGRAM_PAIR("fexit/rdma_reject", reject_exit, RDMASTAT_TRACE_HOOK_REJECT_EXIT,
	     struct rdma_cm_id *cm_id COMMA const void *data COMMA __u8 len COMMA
	     __u8 reason COMMA int ret,
	     on_reject_exit(cm_id, ret))

/* The QP programs share this object's ring buffer, maps and helpers. */
#include "qp.bpf.c"
