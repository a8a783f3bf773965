/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmastat_kping.ko internals shared between its files.
 */
#ifndef _RDMASTAT_KPING_INTERNAL_H
#define _RDMASTAT_KPING_INTERNAL_H

#include "compat.h"
#include <linux/in6.h>
#include <linux/list.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <uapi/linux/rdmastat_kping.h>

/* What START asked for (validated by netlink.c). */
struct kping_params {
	u8 role;			/* enum rdmastat_kping_role */
	u8 mode;			/* enum rdmastat_kping_mode */
	u8 mem;				/* enum rdmastat_kping_mem */
	bool validate;
	struct sockaddr_storage addr;	/* with the port */
	u32 count;
	u32 size;
	u32 depth;
	u32 timeout_ms;			/* the longest any step waits */
};

/* Counters; written by the run's thread and completion handlers. */
struct kping_stats {
	u64 iters;
	u64 send_ops, send_bytes, recv_ops, recv_bytes;
	u64 write_ops, write_bytes, read_ops, read_bytes;
	u64 reg_ops, inv_ops, remote_inv_ops;
	u64 lat_min, lat_max, lat_sum;
	u64 start_ns, end_ns;
};

/* A buffer the run reads, writes or advertises, and its registration. */
struct kping_buf {
	void *data;
	u32 size;
	u64 dma;
	u64 addr;			/* in lkey's (and rkey's) address space */
	enum dma_data_direction dir;
	struct ib_mr *mr;		/* fast-registration modes */
	struct scatterlist sg;
	u32 lkey, rkey;			/* of the current registration */
	bool registered;		/* not yet invalidated */
};

/* The two 16-byte message buffers: rping's advertisement and go-ahead. */
struct kping_msg {
	__be64 addr;
	__be32 rkey;
	__be32 len;
};

struct kping_run {
	struct list_head node;		/* kping_runs, under kping_mutex */
	u32 id;
	struct net *net;
	struct kping_params p;
	struct task_struct *task;

	/* Everything below the thread alone creates and destroys. */
	struct rdma_cm_id *listen_id;
	struct rdma_cm_id *cm_id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct kping_buf rx, tx, local, sink;
	struct kping_msg *rx_msg, *tx_msg;
	struct ib_cqe rx_cqe, tx_cqe, rdma_cqe, reg_cqe;
	struct kping_msg peer;		/* the peer's last advertisement */
	u8 peer_mode;			/* from the client's hello */
	u32 peer_size;
	bool peer_hello;
	u64 rx_seen, tx_posted, rdma_posted;	/* the thread's own counts */

	/*
	 * lock guards the fields below; it is taken by the rdma_cm handler
	 * (process context), completion handlers (softirq) and dumps, so always
	 * with interrupts off, and nobody sleeps under it.
	 */
	spinlock_t lock;
	wait_queue_head_t wq;
	u8 state;			/* enum rdmastat_kping_state */
	int cm_event;			/* last rdma_cm event, -1: consumed */
	int cm_status;
	/*
	 * The handler's view of the ids: listener and conn only identify which
	 * id an event concerns and are never dereferenced, so they may outlive
	 * what listen_id and cm_id (the thread's, which owns and destroys the
	 * ids) point to. child is handed from the handler to the thread.
	 */
	struct rdma_cm_id *listener;	/* a server's listening id */
	struct rdma_cm_id *conn;	/* the id of the run's connection */
	struct rdma_cm_id *child;	/* a server's pending client */
	bool listener_gone;		/* its device went away */
	bool disconnected;
	u64 rx_done, tx_done, rdma_done;	/* completions seen */
	bool rx_inv;			/* the last receive invalidated ... */
	u32 rx_inv_rkey;		/* ... this key of ours */
	u32 rx_len;
	u32 rdma_len;			/* bytes of each RDMA op posted */
	int error;			/* positive errno */
	char error_msg[RDMASTAT_KPING_ERROR_MSG_LEN];
	struct sockaddr_storage peer_addr;
	char dev_name[IB_DEVICE_NAME_MAX];
	struct kping_stats st;
};

/* main.c: the runs. */
extern struct mutex kping_mutex;
extern struct list_head kping_runs;
extern bool kping_allow_unsafe_global_rkey;
extern unsigned int kping_generation;
/*
 * A new run on the list, its thread created but not started: the caller
 * starts it (kping_run_go) or takes it back (unlink, stop, free).
 */
int kping_run_start(struct net *net, const struct kping_params *p,
		    struct kping_run **out);
struct kping_run *kping_run_find(struct net *net, u32 id);
void kping_run_go(struct kping_run *run);
void kping_run_unlink(struct kping_run *run);
void kping_run_stop(struct kping_run *run);
void kping_run_free(struct kping_run *run);
void kping_fail(struct kping_run *run, int err, const char *what);

/* conn.c: the connection (the run's thread). */
int kping_thread(void *arg);
/* Waits, at most the run's timeout, until *counter reaches target. */
int kping_wait_count(struct kping_run *run, const u64 *counter, u64 target,
		     const char *what);

/* traffic.c: work requests and their completions (the run's thread). */
int kping_post_recv(struct kping_run *run);
/* Sends an advertisement of buf (NULL: a go-ahead), waits for its completion. */
int kping_send(struct kping_run *run, const struct kping_buf *buf,
	       u32 inv_rkey, const char *what);
/* Sends a go-ahead, invalidating the peer's key in the FRWR_REMOTE mode. */
int kping_go_ahead(struct kping_run *run, const struct kping_msg *adv);
/* Waits for the peer's next message, posts the next receive. */
int kping_recv(struct kping_run *run, struct kping_msg *msg, const char *what);
/* A fresh key for buf and a fast registration of it (no-op in DMA mode). */
int kping_reg(struct kping_run *run, struct kping_buf *buf, int access);
/* Invalidates buf's key unless the peer already did (no-op in DMA mode). */
int kping_inv(struct kping_run *run, struct kping_buf *buf);
int kping_post_rdma(struct kping_run *run, enum ib_wr_opcode op,
		    struct kping_buf *buf, u32 len, const struct kping_msg *peer);
/* kping_post_rdma() and a wait for its completion. */
int kping_rdma(struct kping_run *run, enum ib_wr_opcode op,
	       struct kping_buf *buf, u32 len, const struct kping_msg *peer);
/* The length of the peer's buffer, which must be from min to max bytes. */
int kping_peer_len(struct kping_run *run, const struct kping_msg *adv,
		   u32 min, u32 max);
/* One operation done; t0 (0: untimed) starts its round trip. */
void kping_iteration(struct kping_run *run, u64 t0);
/* Whether a run with done operations has more to do. */
bool kping_more(struct kping_run *run, u64 done);

/* modes.c: the traffic of the run's mode. */
int kping_traffic(struct kping_run *run);

/* netlink.c: the generic netlink family. */
int kping_netlink_init(void);
void kping_netlink_exit(void);

#endif /* _RDMASTAT_KPING_INTERNAL_H */
