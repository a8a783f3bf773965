// SPDX-License-Identifier: GPL-2.0
/*
 * A run's work requests: posting sends, receives, RDMA READs and WRITEs, fast
 * registrations and invalidations, and their completions. Completion handlers
 * run in softirq context: they count and wake the run's thread, which does
 * everything else (modes.c).
 */
#include <linux/kthread.h>
#include <linux/string.h>
#include <uapi/linux/rdmastat_kping.h>

#include "kping.h"

#define KPING_MSG_SIZE		sizeof(struct kping_msg)

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
	/*
	 * Every message is 16 bytes; a shorter one would leave the previous
	 * one's address and key in the buffer (a longer one does not fit and
	 * completes in error).
	 */
	if (wc->byte_len != KPING_MSG_SIZE) {
		char msg[64];

		snprintf(msg, sizeof(msg), "the peer sent a message of %u bytes, not %zu",
			 wc->byte_len, KPING_MSG_SIZE);
		kping_fail(run, EPROTO, msg);
		return;
	}
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

/*
 * Once connected, a post to a queue pair that has left RTS fails with
 * ENOTCONN (siw does so while rxe flushes instead): like a flush, that is the
 * peer leaving, which kping_thread() names, not a failure of the post itself.
 * start_ns is written by this thread only, so it needs no lock here.
 */
static int kping_posted(struct kping_run *run, int ret, const char *what)
{
	if (ret && run->st.start_ns &&
	    (ret == -ENOTCONN || READ_ONCE(run->disconnected))) {
		WRITE_ONCE(run->disconnected, true);
		wake_up(&run->wq);
		return -ENOTCONN;
	}
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

int kping_send(struct kping_run *run, const struct kping_buf *buf,
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
		run->tx_msg->addr = cpu_to_be64(buf->addr);
		run->tx_msg->rkey = cpu_to_be32(buf->rkey);
		run->tx_msg->len = cpu_to_be32(buf->size);
	}
	ib_dma_sync_single_for_device(run->pd->device, run->tx.dma, KPING_MSG_SIZE,
				      DMA_BIDIRECTIONAL);
	ret = kping_posted(run, ib_post_send(run->cm_id->qp, &wr, NULL), what);
	if (ret)
		return ret;
	return kping_wait_count(run, &run->tx_done, ++run->tx_posted, what);
}

int kping_recv(struct kping_run *run, struct kping_msg *msg, const char *what)
{
	struct kping_buf *bufs[] = { &run->local, &run->sink };
	unsigned long flags;
	bool inv;
	u32 rkey;
	int ret, i;

	ret = kping_wait_count(run, &run->rx_done, run->rx_seen + 1, what);
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

int kping_reg(struct kping_run *run, struct kping_buf *buf, int access)
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
	/*
	 * ib_map_mr_sg() set the iova to the buffer's DMA address, on siw and
	 * rxe its kernel virtual address: the peer would learn where the heap
	 * is. Registered zero-based instead, keeping only the offset within
	 * the first page, which rxe's page lookup takes from the iova
	 * (siw takes any iova); IB_WR_REG_MR installs it.
	 */
	buf->mr->iova &= PAGE_SIZE - 1;
	wr.mr = buf->mr;
	wr.key = buf->mr->rkey;
	if (kping_posted(run, ib_post_send(run->cm_id->qp, &wr.wr, NULL),
			 "posting a fast registration"))
		return -EIO;
	buf->addr = buf->mr->iova;
	buf->lkey = buf->mr->lkey;
	buf->rkey = buf->mr->rkey;
	buf->registered = true;
	kping_count(run, &run->st.reg_ops, 1);
	return 0;
}

int kping_inv(struct kping_run *run, struct kping_buf *buf)
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

int kping_post_rdma(struct kping_run *run, enum ib_wr_opcode op,
			   struct kping_buf *buf, u32 len, const struct kping_msg *peer)
{
	struct ib_sge sge = { .addr = buf->addr, .length = len, .lkey = buf->lkey };
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

int kping_rdma(struct kping_run *run, enum ib_wr_opcode op,
		      struct kping_buf *buf, u32 len, const struct kping_msg *peer)
{
	int ret = kping_post_rdma(run, op, buf, len, peer);

	if (ret)
		return ret;
	return kping_wait_count(run, &run->rdma_done, run->rdma_posted,
				op == IB_WR_RDMA_READ ? "rdma read" : "rdma write");
}

int kping_peer_len(struct kping_run *run, const struct kping_msg *adv,
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

void kping_iteration(struct kping_run *run, u64 t0)
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

bool kping_more(struct kping_run *run, u64 done)
{
	return !run->p.count || done < run->p.count;
}

int kping_go_ahead(struct kping_run *run, const struct kping_msg *adv)
{
	u32 inv = run->p.mem == RDMASTAT_KPING_MEM_FRWR_REMOTE ? be32_to_cpu(adv->rkey) : 0;

	return kping_send(run, NULL, inv, "sending a go-ahead");
}
