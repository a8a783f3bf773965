// SPDX-License-Identifier: GPL-2.0
/*
 * The modes a run's thread drives over its connection: rping's cycle (server
 * and client), RDMA WRITE ping-pong, RDMA WRITE bandwidth and RDMA READ
 * latency, built on the work requests of traffic.c.
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <uapi/linux/rdmastat_kping.h>

#include "kping.h"

#define KPING_IWARP_SETTLE_MS	100
/* kping_await(): spin this long, then sleep between checks, up to the max. */
#define KPING_AWAIT_SPIN_NS	(1 * NSEC_PER_MSEC)
#define KPING_AWAIT_SLEEP_MIN_US	50
#define KPING_AWAIT_SLEEP_MAX_US	10000

/* rping's server: READ the client's source, go ahead, WRITE it back, go ahead. */
static int kping_ping_server(struct kping_run *run)
{
	struct kping_msg adv;
	u64 i;
	int len, ret;

	for (i = 0; kping_more(run, i); i++) {
		ret = kping_recv(run, &adv, "waiting for the client's source buffer");
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
			ret = kping_recv(run, &adv, "waiting for the client's sink buffer");
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
			ret = kping_recv(run, &ack, "waiting for the server's first go-ahead");
		if (!ret)
			ret = kping_send(run, &run->sink, 0, "advertising the sink buffer");
		if (!ret)
			ret = kping_recv(run, &ack, "waiting for the server's second go-ahead");
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
	/* RDMA WRITEs and READs land silently: the client must end in time. */
	ret = kping_recv(run, &none, "waiting for the client to finish and leave");
	if (ret == -ENOTCONN)
		return 0;
	if (!ret) {
		kping_fail(run, EPROTO, "unexpected message from the client");
		ret = -EPROTO;
	}
	return ret;
}

/* A write or read client's first step: the server's buffer, of at least size bytes. */
static int kping_server_buffer(struct kping_run *run, struct kping_msg *adv)
{
	int ret = kping_recv(run, adv, "waiting for the server's buffer");

	if (!ret && kping_peer_len(run, adv, run->p.size, INT_MAX) < 0)
		ret = -EPROTO;
	return ret;
}

/* WRITE_BW: depth RDMA WRITEs outstanding into the server's buffer. */
static int kping_bw_client(struct kping_run *run)
{
	struct kping_msg adv;
	u64 done = 0;
	int ret;

	ret = kping_server_buffer(run, &adv);
	if (ret)
		return ret;
	while (kping_more(run, done)) {
		while (run->rdma_posted - done < run->p.depth &&
		       kping_more(run, run->rdma_posted)) {
			ret = kping_post_rdma(run, IB_WR_RDMA_WRITE, &run->local,
					      run->p.size, &adv);
			if (ret)
				return ret;
		}
		ret = kping_wait_count(run, &run->rdma_done, done + 1, "rdma write");
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

	ret = kping_server_buffer(run, &adv);
	if (!ret)
		ret = kping_reg(run, &run->local,
				IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE);
	for (i = 0; !ret && kping_more(run, i); i++) {
		t0 = ktime_get_ns();
		ret = kping_rdma(run, IB_WR_RDMA_READ, &run->local, run->p.size, &adv);
		if (!ret)
			kping_iteration(run, t0);
	}
	return ret;
}

/*
 * Waits until buf's last byte is marker: the peer's RDMA WRITE lands with no
 * completion on this side, so the thread polls memory. It spins (yielding)
 * for KPING_AWAIT_SPIN_NS, which keeps a round trip's latency, then sleeps
 * between checks, twice as long each time up to KPING_AWAIT_SLEEP_MAX_US,
 * so a silent peer costs little CPU; after the run's timeout it fails.
 */
static int kping_await(struct kping_run *run, struct kping_buf *buf, u8 marker,
		       const char *what)
{
	const u8 *last = (const u8 *)buf->data + buf->size - 1;
	u64 limit = (u64)run->p.timeout_ms * NSEC_PER_MSEC;
	unsigned int us = KPING_AWAIT_SLEEP_MIN_US;
	u64 start = ktime_get_ns(), waited;

	for (;;) {
		ib_dma_sync_single_for_cpu(run->pd->device, buf->dma, buf->size,
					   DMA_BIDIRECTIONAL);
		if (READ_ONCE(*last) == marker)
			return 0;
		if (kthread_should_stop())
			return -EINTR;
		if (READ_ONCE(run->error))
			return -READ_ONCE(run->error);
		if (READ_ONCE(run->disconnected))
			return -ENOTCONN;
		waited = ktime_get_ns() - start;
		if (waited >= limit) {
			kping_fail(run, ETIMEDOUT, what);
			return -ETIMEDOUT;
		}
		if (waited < KPING_AWAIT_SPIN_NS) {
			cond_resched();
			continue;
		}
		usleep_range(us, 2 * us);
		us = min_t(unsigned int, 2 * us, KPING_AWAIT_SLEEP_MAX_US);
	}
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
		ret = kping_recv(run, &adv, "waiting for the peer's buffer");
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
			ret = kping_await(run, in, kping_marker(round),
					  "waiting for the client's rdma write");
			if (ret == -ENOTCONN)
				return 0;
			if (ret)
				return ret;
		}
		t0 = ktime_get_ns();
		ret = kping_rdma(run, IB_WR_RDMA_WRITE, &run->local, size, &adv);
		if (!ret && client)
			ret = kping_await(run, in, kping_marker(round),
					  "waiting for the server's rdma write");
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
