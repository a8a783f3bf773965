/* SPDX-License-Identifier: (GPL-2.0-only OR MIT) */
/*
 * The records rdmastat's BPF programs (rdma_cm.bpf.c, qp.bpf.c) put in their
 * ring buffer, one per rdma_cm tracepoint hit or QP function call, and the
 * tool decodes
 * (trace/decode.cpp). Shared by both sides, so it is C that compiles for the
 * BPF target, as C90 and as C++.
 *
 * Every record has the same size and layout; fields a tracepoint does not
 * carry are zero. Integers are in host order, addresses as the kernel keeps
 * them (struct sockaddr_in or sockaddr_in6, network order inside).
 */
#ifndef RDMASTAT_TRACE_RECORD_H
#define RDMASTAT_TRACE_RECORD_H

#include <linux/types.h>

/* Which tracepoint wrote the record. */
enum rdmastat_trace_kind {
	/* rdma_cma:cm_event_handler: an event delivered to the id's consumer;
	 * event and status are the rdma_cm event's. */
	RDMASTAT_TRACE_CM_EVENT = 1,
	/* 2 is not used: rdma_cma:cm_id_attach fires before restrack numbers
	 * the id, so its record could not be joined with the id's others. */
	/* rdma_cma:cm_qp_create: a QP created on the id; status is the
	 * kernel's return code (0 or -errno), qp_num the QP when 0. */
	RDMASTAT_TRACE_QP_CREATE = 3,
	/* rdma_cma:cm_send_rej, or (iWARP) the fexit of rdma_reject(): this
	 * side rejected a connect request; status is rdma_reject()'s result
	 * on iWARP, 0 otherwise. */
	RDMASTAT_TRACE_SEND_REJ = 4,
	/* rdma_cma:cm_id_destroy: the id is being destroyed. */
	RDMASTAT_TRACE_DESTROY = 5,
	/* fexit of rdma_connect_locked() with an error (status: -errno): a
	 * connect that failed before any event, as siw's to a closed port. */
	RDMASTAT_TRACE_CONNECT_FAIL = 6,
	/* rdma_cma:cm_disconnect: this side called rdma_disconnect(). */
	RDMASTAT_TRACE_DISCONNECT = 7,
	/* fentry of rdma_connect_locked(): the id starts its CM handshake
	 * proper (on iWARP, rdma_connect() itself makes the TCP connection and
	 * sends the MPA request). */
	RDMASTAT_TRACE_CONNECT_START = 8,
	/* rdma_cma:cm_send_rtu: the active end of an IB or RoCE connection
	 * sent its RTU, and is established from its side (for a process's id,
	 * librdmacm has it sent after CONNECT_RESPONSE, then makes ESTABLISHED
	 * itself). */
	RDMASTAT_TRACE_SEND_RTU = 9,
	/* ib_cma:icm_no_listener_err: a connect request came to this host's
	 * device for a service (an rdma_cm port) nobody listens on, and the
	 * kernel rejected it. No rdma_cm id exists: only device, service_id
	 * and gid are set. */
	RDMASTAT_TRACE_NO_LISTENER = 10,
	/* The records of a QP (qp.bpf.c), each from a function every QP of a
	 * process (uverbs) and of the kernel passes through: no cm_id fields,
	 * but qp_num, qp_type, port_num, device and the owner restrack
	 * recorded for the QP. */
	/* fexit of ib_create_qp_user() or ib_create_qp_kernel(): a QP was
	 * made (failures are not reported). */
	RDMASTAT_TRACE_QP_CREATED = 11,
	/* fexit of _ib_modify_qp() (ib_modify_qp_with_udata(),
	 * ib_modify_qp() and ib_drain_qp() call it) with IB_QP_STATE in the
	 * mask: qp_state is the state asked for, status
	 * the result (0 or -errno); remote_qpn when the mask has
	 * IB_QP_DEST_QPN; gid (destination) and sgid when it has IB_QP_AV
	 * and the path has a GRH (F_AV). F_CM when the attributes came from
	 * a successful rdma_init_qp_attr() in this thread just before: the
	 * QP is a cm_id's (cm_id, when numbered: F_TRACKED). */
	RDMASTAT_TRACE_QP_MODIFIED = 12,
	/* fentry of ib_destroy_qp_user() (ib_destroy_qp() too): the QP is
	 * being destroyed. */
	RDMASTAT_TRACE_QP_DESTROYED = 13,
	/* fentry of ib_uverbs_qp_event_handler(): the driver raised an
	 * asynchronous event on a process's QP; event is the enum
	 * ib_event_type (IB_EVENT_QP_FATAL is 1). */
	RDMASTAT_TRACE_QP_ASYNC_EVENT = 14
};

/* The tracepoints with programs (rdma_cm.bpf.c numbers them 0 to 6). */
#define RDMASTAT_TRACE_TRACEPOINTS 7

/* The functions' fentry and fexit programs, numbered after the tracepoints:
 * each program with a second one has an entry in the tp_states map. */
enum rdmastat_trace_hook {
	RDMASTAT_TRACE_HOOK_CONNECT_EXIT = RDMASTAT_TRACE_TRACEPOINTS,
	RDMASTAT_TRACE_HOOK_CONNECT_ENTRY,
	RDMASTAT_TRACE_HOOK_REJECT_EXIT,
	RDMASTAT_TRACE_HOOK_QP_CREATE_USER,
	RDMASTAT_TRACE_HOOK_QP_CREATE_KERNEL,
	RDMASTAT_TRACE_HOOK_CM_INIT_QP_ATTR,
	RDMASTAT_TRACE_HOOK_QP_MODIFY,
	RDMASTAT_TRACE_HOOK_QP_DESTROY,
	RDMASTAT_TRACE_HOOK_QP_ASYNC_EVENT,
	RDMASTAT_TRACE_HOOKS /* tracepoints and functions: tp_states' size */
};

/* Per tracepoint or function and CPU, the tp_states map's values
 * (rdma_cm.bpf.c): the hits a second program recorded, and the marks the
 * first could not leave (each such hit recorded by both). */
struct rdmastat_trace_tp_state {
	__u64 recovered;
	__u64 unmarked;
};

/* Bytes of an address: sizeof(struct sockaddr_in6), as the kernel's own
 * rdma_cma tracepoints copy. AF_IB addresses (48 bytes) arrive cut short. */
#define RDMASTAT_TRACE_ADDR_LEN 28
/* The owner's name: a task's comm (16 bytes) or a kernel owner's name. */
#define RDMASTAT_TRACE_NAME_LEN 32
/* IB_DEVICE_NAME_MAX. */
#define RDMASTAT_TRACE_DEVICE_LEN 64

/* Flags. */
#define RDMASTAT_TRACE_F_USER 0x1	/* a process owns the id: pid, uid, comm */
#define RDMASTAT_TRACE_F_DEVICE 0x2	/* device and node_type are set */
#define RDMASTAT_TRACE_F_TRACKED 0x4	/* restrack numbered the id: cm_id is set */
#define RDMASTAT_TRACE_F_CM 0x8		/* QP_MODIFIED: a cm_id's attributes */
#define RDMASTAT_TRACE_F_AV 0x10	/* QP_MODIFIED: gid and sgid are set */

struct rdmastat_trace_record {
	__u64 time_ns;		/* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u16 kind;		/* enum rdmastat_trace_kind */
	__u8 flags;		/* RDMASTAT_TRACE_F_* */
	__u8 node_type;		/* the device's enum rdma_node_type */
	__u32 cm_id;		/* restrack id: NLDEV's cm-idn */
	__s32 event;		/* enum rdma_cm_event_type (CM_EVENT) */
	__s32 status;		/* the event's status, or QP_CREATE's result */
	__u32 qp_num;		/* the id's QP, 0 for none */
	__u32 port_space;	/* enum rdma_ucm_port_space */
	__u32 port_num;		/* the device port, 0 before the id binds */
	__u32 state;		/* enum rdma_cm_state when the tracepoint fired */
	__u32 pid;		/* F_USER: the owner's thread group id */
	__u32 uid;		/* F_USER: the owner's effective uid */
	__u32 tos;
	__u32 reserved;
	char name[RDMASTAT_TRACE_NAME_LEN];	/* comm, or the kernel owner */
	char device[RDMASTAT_TRACE_DEVICE_LEN];
	__u8 src[RDMASTAT_TRACE_ADDR_LEN];
	__u8 dst[RDMASTAT_TRACE_ADDR_LEN];
	__u64 service_id;	/* NO_LISTENER: the request's, in host order */
	__u8 gid[16];		/* NO_LISTENER: the requester's GID; QP_MODIFIED
				 * (F_AV): the path's destination GID */
	__u8 sgid[16];		/* QP_MODIFIED (F_AV): the path's source GID */
	__u32 qp_type;		/* QP_*: enum ib_qp_type */
	__u32 qp_state;		/* QP_MODIFIED: enum ib_qp_state asked for */
	__u32 remote_qpn;	/* QP_MODIFIED: the peer's QP number, or 0 */
	__u32 attr_mask;	/* QP_MODIFIED: enum ib_qp_attr_mask */
};

#endif /* RDMASTAT_TRACE_RECORD_H */
