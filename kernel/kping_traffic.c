// SPDX-License-Identifier: GPL-2.0
/*
 * A run's traffic: posting sends, receives, RDMA READs and WRITEs, fast
 * registrations and invalidations, their completions, and the modes built on
 * them. Completion handlers run in softirq context: they count and wake the
 * run's thread, which does everything else.
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <uapi/linux/rdmastat_kping.h>

#include "kping.h"

#define KPING_MSG_SIZE		sizeof(struct kping_msg)
#define KPING_IWARP_SETTLE_MS	100

static struct kping_run *kping_cq_run(struct ib_cq *cq)
{
	return cq->cq_context;
}

/* A flush means the queue pair left RTS: the peer left, or we are ending. */
static void kping_wc_error(struct kping_run *run, struct ib_wc *wc, const char *what)
{
	char msg[80];

	if (wc->status == IB_WC_WR_FLUSH_ERR) {
		WRITE_ONCE(run->disconnected, true);
	} else {
		snprintf(msg, sizeof(msg), "%s completion: %s", what,
			 ib_wc_status_msg(wc->status));
		kping_fail(run, EIO, msg);
	}
	wake_up(&run->wq);
}

static void kping_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kping_run *run = kping_cq_run(cq);
	unsigned long flags;

	if (wc->status != IB_WC_SUCCESS)
		return kping_wc_error(run, wc, "receive");
	ib_dma_sync_single_for_cpu(run->pd->device, run->rx.dma, KPING_MSG_SIZE,
				   DMA_BIDIRECTIONAL);
	spin_lock_irqsave(&run->lock, flags);
	memcpy(&run->peer, run->rx_msg, sizeof(run->peer));
	if (wc->wc_flags & IB_WC_WITH_INVALIDATE) {
		run->st.remote_inv_ops++;
		run->rx_inv = true;
		run->rx_inv_rkey = wc->ex.invalidate_rkey;
	}
	run->st.recv_ops++;
	run->st.recv_bytes += wc->byte_len;
	run->rx_len = wc->byte_len;
	WRITE_ONCE(run->rx_done, run->rx_done + 1);
	spin_unlock_irqrestore(&run->lock, flags);
	wake_up(&run->wq);
}

static void kping_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kping_run *run = kping_cq_run(cq);
	unsigned long flags;

	if (wc->status != IB_WC_SUCCESS)
		return kping_wc_error(run, wc, "send");
	spin_lock_irqsave(&run->lock, flags);
	run->st.send_ops++;
	run->st.send_bytes += KPING_MSG_SIZE;
	WRITE_ONCE(run->tx_done, run->tx_done + 1);
	spin_unlock_irqrestore(&run->lock, flags);
	wake_up(&run->wq);
}

static void kping_rdma_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kping_run *run = kping_cq_run(cq);
	unsigned long flags;

	if (wc->status != IB_WC_SUCCESS)
		return kping_wc_error(run, wc, wc->opcode == IB_WC_RDMA_READ ?
				      "rdma read" : "rdma write");
	spin_lock_irqsave(&run->lock, flags);
	if (wc->opcode == IB_WC_RDMA_READ) {
		run->st.read_ops++;
		run->st.read_bytes += run->rdma_len;
	} else {
		run->st.write_ops++;
		run->st.write_bytes += run->rdma_len;
	}
	WRITE_ONCE(run->rdma_done, run->rdma_done + 1);
	spin_unlock_irqrestore(&run->lock, flags);
	wake_up(&run->wq);
}

/* Registrations and invalidations are unsignaled: only failures come here. */
static void kping_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	if (wc->status != IB_WC_SUCCESS)
		kping_wc_error(kping_cq_run(cq), wc, "memory registration");
}

static int kping_posted(struct kping_run *run, int ret, const char *what)
{
	if (ret)
		kping_fail(run, -ret, what);
	return ret;
}

int kping_post_recv(struct kping_run *run)
{
	struct ib_sge sge = {
		.addr = run->rx.dma,
		.length = KPING_MSG_SIZE,
		.lkey = run->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .wr_cqe = &run->rx_cqe, .sg_list = &sge, .num_sge = 1 };

	run->rx_cqe.done = kping_rx_done;
	run->tx_cqe.done = kping_tx_done;
	run->rdma_cqe.done = kping_rdma_done;
	run->reg_cqe.done = kping_reg_done;
	return kping_posted(run, ib_post_recv(run->cm_id->qp, &wr, NULL),
			    "posting a receive");
}

/* Sends an advertisement of buf (NULL: a go-ahead) and waits for its completion. */
static int kping_send(struct kping_run *run, const struct kping_buf *buf,
		      u32 inv_rkey, const char *what)
{
	struct ib_sge sge = {
		.addr = run->tx.dma,
		.length = KPING_MSG_SIZE,
		.lkey = run->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &run->tx_cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = inv_rkey ? IB_WR_SEND_WITH_INV : IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = inv_rkey,
	};
	int ret;

	memset(run->tx_msg, 0, KPING_MSG_SIZE);
	if (buf) {
		run->tx_msg->addr = cpu_to_be64(buf->dma);
		run->tx_msg->rkey = cpu_to_be32(buf->rkey);
		run->tx_msg->len = cpu_to_be32(buf->size);
	}
	ib_dma_sync_single_for_device(run->pd->device, run->tx.dma, KPING_MSG_SIZE,
				      DMA_BIDIRECTIONAL);
	ret = kping_posted(run, ib_post_send(run->cm_id->qp, &wr, NULL), what);
	if (ret)
		return ret;
	return kping_wait_count(run, &run->tx_done, ++run->tx_posted,
				KPING_PEER_TIMEOUT_MS, what);
}

/* Waits for the peer's next message (ms 0: no limit) and posts the next receive. */
static int kping_recv(struct kping_run *run, struct kping_msg *msg, unsigned int ms,
		      const char *what)
{
	struct kping_buf *bufs[] = { &run->local, &run->sink };
	unsigned long flags;
	bool inv;
	u32 rkey;
	int ret, i;

	ret = kping_wait_count(run, &run->rx_done, run->rx_seen + 1, ms, what);
	if (ret)
		return ret;
	run->rx_seen++;
	spin_lock_irqsave(&run->lock, flags);
	*msg = run->peer;
	inv = run->rx_inv;
	rkey = run->rx_inv_rkey;
	run->rx_inv = false;
	spin_unlock_irqrestore(&run->lock, flags);
	for (i = 0; inv && i < ARRAY_SIZE(bufs); i++)
		if (bufs[i]->mr && bufs[i]->registered && bufs[i]->rkey == rkey)
			bufs[i]->registered = false;
	return kping_post_recv(run);
}

static void kping_count(struct kping_run *run, u64 *field, u64 n)
{
	unsigned long flags;

	spin_lock_irqsave(&run->lock, flags);
	*field += n;
	spin_unlock_irqrestore(&run->lock, flags);
}

/* A fresh key for buf and a fast registration of it (fast-registration modes). */
static int kping_reg(struct kping_run *run, struct kping_buf *buf, int access)
{
	struct ib_reg_wr wr = {
		.wr.opcode = IB_WR_REG_MR,
		.wr.wr_cqe = &run->reg_cqe,
		.access = access,
	};
	int n;

	if (!buf->mr)
		return 0;
	ib_update_fast_reg_key(buf->mr, (u8)ib_inc_rkey(buf->mr->rkey));
	n = ib_map_mr_sg(buf->mr, &buf->sg, 1, NULL, PAGE_SIZE);
	if (n != 1) {
		kping_fail(run, EINVAL, "mapping a buffer for fast registration");
		return -EINVAL;
	}
	wr.mr = buf->mr;
	wr.key = buf->mr->rkey;
	if (kping_posted(run, ib_post_send(run->cm_id->qp, &wr.wr, NULL),
			 "posting a fast registration"))
		return -EIO;
	buf->lkey = buf->mr->lkey;
	buf->rkey = buf->mr->rkey;
	buf->registered = true;
	kping_count(run, &run->st.reg_ops, 1);
	return 0;
}

/* Invalidates buf's key unless the peer already did. */
static int kping_inv(struct kping_run *run, struct kping_buf *buf)
{
	struct ib_send_wr wr = {
		.opcode = IB_WR_LOCAL_INV,
		.wr_cqe = &run->reg_cqe,
		.ex.invalidate_rkey = buf->rkey,
	};

	if (!buf->mr || !buf->registered)
		return 0;
	buf->registered = false;
	kping_count(run, &run->st.inv_ops, 1);
	return kping_posted(run, ib_post_send(run->cm_id->qp, &wr, NULL),
			    "posting a local invalidation");
}

static int kping_post_rdma(struct kping_run *run, enum ib_wr_opcode op,
			   struct kping_buf *buf, u32 len, const struct kping_msg *peer)
{
	struct ib_sge sge = { .addr = buf->dma, .length = len, .lkey = buf->lkey };
	struct ib_rdma_wr wr = {
		.wr.opcode = op,
		.wr.send_flags = IB_SEND_SIGNALED,
		.wr.wr_cqe = &run->rdma_cqe,
		.wr.sg_list = &sge,
		.wr.num_sge = 1,
		.remote_addr = be64_to_cpu(peer->addr),
		.rkey = be32_to_cpu(peer->rkey),
	};
	int ret;

	run->rdma_len = len;
	ret = kping_posted(run, ib_post_send(run->cm_id->qp, &wr.wr, NULL),
			   op == IB_WR_RDMA_READ ? "posting an rdma read" :
			   "posting an rdma write");
	if (!ret)
		run->rdma_posted++;
	return ret;
}

static int kping_rdma(struct kping_run *run, enum ib_wr_opcode op,
		      struct kping_buf *buf, u32 len, const struct kping_msg *peer)
{
	int ret = kping_post_rdma(run, op, buf, len, peer);

	if (ret)
		return ret;
	return kping_wait_count(run, &run->rdma_done, run->rdma_posted,
				KPING_PEER_TIMEOUT_MS,
				op == IB_WR_RDMA_READ ? "rdma read" : "rdma write");
}

/* The length of the peer's buffer, which must be from min to max bytes. */
static int kping_peer_len(struct kping_run *run, const struct kping_msg *adv,
			  u32 min, u32 max)
{
	u32 len = be32_to_cpu(adv->len);
	char msg[80];

	if (adv->rkey && len >= min && len <= max)
		return len;
	snprintf(msg, sizeof(msg), "the peer advertised %u bytes (rkey %#x), not %u to %u",
		 len, be32_to_cpu(adv->rkey), min, max);
	kping_fail(run, EPROTO, msg);
	return -EPROTO;
}

static void kping_iteration(struct kping_run *run, u64 t0)
{
	u64 ns = t0 ? ktime_get_ns() - t0 : 0;
	unsigned long flags;

	spin_lock_irqsave(&run->lock, flags);
	run->st.iters++;
	if (t0) {
		if (!run->st.lat_sum || ns < run->st.lat_min)
			run->st.lat_min = ns;
		if (ns > run->st.lat_max)
			run->st.lat_max = ns;
		run->st.lat_sum += ns ? ns : 1;
	}
	spin_unlock_irqrestore(&run->lock, flags);
}

static bool kping_more(struct kping_run *run, u64 done)
{
	return !run->p.count || done < run->p.count;
}

/* Sends a go-ahead, invalidating the peer's key in the FRWR_REMOTE mode. */
static int kping_go_ahead(struct kping_run *run, const struct kping_msg *adv)
{
	u32 inv = run->p.mem == RDMASTAT_KPING_MEM_FRWR_REMOTE ? be32_to_cpu(adv->rkey) : 0;

	return kping_send(run, NULL, inv, "sending a go-ahead");
}

/* rping's server: READ the client's source, go ahead, WRITE it back, go ahead. */
static int kping_ping_server(struct kping_run *run)
{
	struct kping_msg adv;
	u64 i;
	int len, ret;

	for (i = 0; kping_more(run, i); i++) {
		ret = kping_recv(run, &adv, 0, "waiting for the client's source buffer");
		if (ret == -ENOTCONN)
			return 0;	/* the client left between pings */
		len = ret ? ret : kping_peer_len(run, &adv, 1, run->local.size);
		if (len < 0)
			return len;
		ret = kping_reg(run, &run->local, IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE);
		if (!ret)
			ret = kping_rdma(run, IB_WR_RDMA_READ, &run->local, len, &adv);
		if (!ret)
			ret = kping_go_ahead(run, &adv);
		if (!ret)
			ret = kping_recv(run, &adv, 0, "waiting for the client's sink buffer");
		if (ret)
			return ret;
		len = kping_peer_len(run, &adv, 1, run->local.size);
		if (len < 0)
			return len;
		ret = kping_rdma(run, IB_WR_RDMA_WRITE, &run->local, len, &adv);
		if (!ret)
			ret = kping_inv(run, &run->local);
		if (!ret)
			ret = kping_go_ahead(run, &adv);
		/*
		 * The last go-ahead may complete in error when the client, which
		 * has all it needs once it arrives, disconnects first.
		 */
		if (ret && ret != -ENOTCONN)
			return ret;
		kping_iteration(run, 0);
		if (ret)
			return 0;
	}
	return 0;
}

/* rping's payload: "rdma-ping-N: ", letters from 'A' + N % 58 to 'z' and round. */
static void kping_fill(struct kping_buf *buf, u64 seq)
{
	u8 *p = buf->data, c = 'A' + seq % 58;
	int n = snprintf(p, buf->size, "rdma-ping-%llu: ", seq);
	u32 i;

	for (i = min_t(u32, n, buf->size); i < buf->size; i++) {
		p[i] = c;
		c = c == 'z' ? 'A' : c + 1;
	}
	p[buf->size - 1] = 0;
}

static int kping_compare(struct kping_run *run, u64 seq)
{
	struct ib_device *dev = run->pd->device;
	char msg[64];

	ib_dma_sync_single_for_cpu(dev, run->sink.dma, run->sink.size, DMA_BIDIRECTIONAL);
	if (!memcmp(run->local.data, run->sink.data, run->local.size))
		return 0;
	snprintf(msg, sizeof(msg), "validation: data mismatch at %llu", seq);
	kping_fail(run, EBADMSG, msg);
	return -EBADMSG;
}

/* rping's client: advertise the source, then the sink, each answered by a go-ahead. */
static int kping_ping_client(struct kping_run *run)
{
	struct ib_device *dev = run->pd->device;
	struct kping_msg ack;
	u64 i, t0;
	int ret;

	for (i = 0; kping_more(run, i); i++) {
		kping_fill(&run->local, i);
		ib_dma_sync_single_for_device(dev, run->local.dma, run->local.size,
					      DMA_BIDIRECTIONAL);
		t0 = ktime_get_ns();
		ret = kping_reg(run, &run->local, IB_ACCESS_REMOTE_READ);
		if (!ret)
			ret = kping_reg(run, &run->sink,
					IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE);
		if (!ret)
			ret = kping_send(run, &run->local, 0, "advertising the source buffer");
		if (!ret)
			ret = kping_recv(run, &ack, KPING_PEER_TIMEOUT_MS,
					 "waiting for the server's first go-ahead");
		if (!ret)
			ret = kping_send(run, &run->sink, 0, "advertising the sink buffer");
		if (!ret)
			ret = kping_recv(run, &ack, KPING_PEER_TIMEOUT_MS,
					 "waiting for the server's second go-ahead");
		if (!ret)
			ret = kping_inv(run, &run->local);
		if (!ret)
			ret = kping_inv(run, &run->sink);
		if (!ret && run->p.validate)
			ret = kping_compare(run, i);
		if (ret)
			return ret;
		kping_iteration(run, t0);
	}
	return 0;
}

/*
 * In the write and read modes the server speaks first. An iWARP initiator
 * (siw) reads the MPA reply with its private data and refuses the connection
 * when more bytes follow in the same read, so the server lets the client
 * reach RTS before its first message.
 */
static void kping_server_speaks_first(struct kping_run *run)
{
	if (rdma_protocol_iwarp(run->cm_id->device, run->cm_id->port_num))
		msleep(KPING_IWARP_SETTLE_MS);
}

/* The server of the write and read modes: advertise, then wait for the client to leave. */
static int kping_passive_server(struct kping_run *run)
{
	struct kping_msg none;
	int ret;

	kping_server_speaks_first(run);
	ret = kping_reg(run, &run->local, IB_ACCESS_LOCAL_WRITE |
			IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ);
	if (!ret)
		ret = kping_send(run, &run->local, 0, "advertising the buffer");
	if (ret)
		return ret;
	ret = kping_recv(run, &none, 0, "waiting for the client to leave");
	if (ret == -ENOTCONN)
		return 0;
	if (!ret) {
		kping_fail(run, EPROTO, "unexpected message from the client");
		ret = -EPROTO;
	}
	return ret;
}

/* WRITE_BW: depth RDMA WRITEs outstanding into the server's buffer. */
static int kping_bw_client(struct kping_run *run)
{
	struct kping_msg adv;
	u64 done = 0;
	int ret;

	ret = kping_recv(run, &adv, KPING_PEER_TIMEOUT_MS, "waiting for the server's buffer");
	if (!ret)
		ret = kping_peer_len(run, &adv, run->p.size, INT_MAX);
	if (ret < 0)
		return ret;
	while (kping_more(run, done)) {
		while (run->rdma_posted - done < run->p.depth &&
		       kping_more(run, run->rdma_posted)) {
			ret = kping_post_rdma(run, IB_WR_RDMA_WRITE, &run->local,
					      run->p.size, &adv);
			if (ret)
				return ret;
		}
		ret = kping_wait_count(run, &run->rdma_done, done + 1,
				       KPING_PEER_TIMEOUT_MS, "rdma write");
		if (ret)
			return ret;
		for (; done < READ_ONCE(run->rdma_done); done++)
			kping_iteration(run, 0);
	}
	return 0;
}

/* READ_LAT: one RDMA READ of the server's buffer at a time. */
static int kping_read_lat_client(struct kping_run *run)
{
	struct kping_msg adv;
	u64 i, t0;
	int ret;

	ret = kping_recv(run, &adv, KPING_PEER_TIMEOUT_MS, "waiting for the server's buffer");
	if (!ret)
		ret = kping_peer_len(run, &adv, run->p.size, INT_MAX);
	if (ret < 0)
		return ret;
	ret = kping_reg(run, &run->local, IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE);
	for (i = 0; !ret && kping_more(run, i); i++) {
		t0 = ktime_get_ns();
		ret = kping_rdma(run, IB_WR_RDMA_READ, &run->local, run->p.size, &adv);
		if (!ret)
			kping_iteration(run, t0);
	}
	return ret;
}

/* Spins (yielding) until buf's last byte is marker. */
static int kping_await(struct kping_run *run, struct kping_buf *buf, u8 marker)
{
	const u8 *last = (const u8 *)buf->data + buf->size - 1;
	unsigned long spins;

	for (spins = 0; READ_ONCE(*last) != marker; spins++) {
		if (kthread_should_stop())
			return -EINTR;
		if (READ_ONCE(run->error))
			return -READ_ONCE(run->error);
		if (READ_ONCE(run->disconnected))
			return -ENOTCONN;
		cond_resched();
		ib_dma_sync_single_for_cpu(run->pd->device, buf->dma, buf->size,
					   DMA_BIDIRECTIONAL);
	}
	return 0;
}

static u8 kping_marker(u64 round)
{
	return round % 255 + 1;
}

/*
 * WRITE_LAT, as "rdmastat ping --lat": the server advertises its buffer, the
 * client its sink; the client writes, the server sees the last byte change
 * and writes its buffer back, the client sees its sink's last byte change.
 */
static int kping_write_lat(struct kping_run *run)
{
	bool client = run->p.role == RDMASTAT_KPING_ROLE_CLIENT;
	struct kping_buf *in = client ? &run->sink : &run->local;
	u32 size = run->p.size;
	struct kping_msg adv;
	u64 round, t0;
	int ret;

	if (!client)
		kping_server_speaks_first(run);
	ret = kping_reg(run, in, IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE);
	if (!ret && !client)
		ret = kping_send(run, in, 0, "advertising the buffer");
	if (!ret)
		ret = kping_recv(run, &adv, client ? KPING_PEER_TIMEOUT_MS : 0,
				 "waiting for the peer's buffer");
	if (!ret && kping_peer_len(run, &adv, size, INT_MAX) < 0)
		ret = -EPROTO;
	if (!ret && client)
		ret = kping_send(run, in, 0, "advertising the sink buffer");
	if (ret)
		return ret;
	for (round = 0; kping_more(run, round); round++) {
		u8 *out = run->local.data;

		if (client) {
			if (run->p.validate)
				kping_fill(&run->local, round);
			out[size - 1] = kping_marker(round);
			ib_dma_sync_single_for_device(run->pd->device, run->local.dma,
						      size, DMA_BIDIRECTIONAL);
		} else {
			ret = kping_await(run, in, kping_marker(round));
			if (ret == -ENOTCONN)
				return 0;
			if (ret)
				return ret;
		}
		t0 = ktime_get_ns();
		ret = kping_rdma(run, IB_WR_RDMA_WRITE, &run->local, size, &adv);
		if (!ret && client)
			ret = kping_await(run, in, kping_marker(round));
		if (!ret && client && run->p.validate)
			ret = kping_compare(run, round);
		if (ret)
			return ret;
		kping_iteration(run, client ? t0 : 0);
	}
	return 0;
}

int kping_traffic(struct kping_run *run)
{
	bool client = run->p.role == RDMASTAT_KPING_ROLE_CLIENT;

	switch (run->p.mode) {
	case RDMASTAT_KPING_MODE_PING:
		return client ? kping_ping_client(run) : kping_ping_server(run);
	case RDMASTAT_KPING_MODE_WRITE_LAT:
		return kping_write_lat(run);
	case RDMASTAT_KPING_MODE_WRITE_BW:
		return client ? kping_bw_client(run) : kping_passive_server(run);
	default:
		return client ? kping_read_lat_client(run) : kping_passive_server(run);
	}
}
