// SPDX-License-Identifier: GPL-2.0
/*
 * A run's connection: rdma_cm setup (server or client), the protection
 * domain, completion queue, queue pair and buffers, the hello in private
 * data, and the teardown. Runs in the run's kernel thread; the rdma_cm and
 * completion handlers only record what happened and wake it.
 */
#include <linux/kthread.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <uapi/linux/rdmastat_kping.h>

#include "kping.h"

/* rdmastat's hello: "RDST", version, mode, two zero bytes, be32 size. */
static void kping_hello_encode(u8 *out, u8 mode, u32 size)
{
	__be32 be = cpu_to_be32(size);

	memcpy(out, RDMASTAT_KPING_HELLO_MAGIC, RDMASTAT_KPING_HELLO_MAGIC_LEN);
	out[4] = RDMASTAT_KPING_HELLO_VERSION;
	out[5] = mode;
	out[6] = 0;
	out[7] = 0;
	memcpy(out + 8, &be, sizeof(be));
}

/* Records a hello found in private data (rping sends none: zero padding). */
static void kping_hello_parse(struct kping_run *run, const u8 *data, u8 len)
{
	__be32 be;

	if (!data || len < RDMASTAT_KPING_HELLO_LEN ||
	    memcmp(data, RDMASTAT_KPING_HELLO_MAGIC, RDMASTAT_KPING_HELLO_MAGIC_LEN) ||
	    data[4] != RDMASTAT_KPING_HELLO_VERSION || data[5] > RDMASTAT_KPING_MODE_MAX)
		return;
	memcpy(&be, data + 8, sizeof(be));
	run->peer_hello = true;
	run->peer_mode = data[5];
	run->peer_size = be32_to_cpu(be);
}

/*
 * Events of three kinds of ids arrive here, all with the run as context: a
 * server's listener, the connect requests it spawns (new ids, each offered
 * as the run's connection) and the run's connection. Only the connection's
 * events are the run's: one on the listener matters only while the server
 * still waits for its client (its device went away), and one on any other
 * id (a client refused as the second) is none of the run's business.
 */
static int kping_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct kping_run *run = id->context;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&run->lock, flags);
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		/* One client per run; a non-zero return destroys (rejects) it. */
		if (run->conn || run->state != RDMASTAT_KPING_STATE_CONNECTING) {
			ret = -EBUSY;
			goto out;
		}
		run->child = id;
		run->conn = id;
		kping_hello_parse(run, ev->param.conn.private_data,
				  ev->param.conn.private_data_len);
		goto out;
	}
	if (id == run->listener) {
		if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL && !run->conn)
			run->listener_gone = true;
		goto out;
	}
	if (id != run->conn)
		goto out;
	switch (ev->event) {
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		run->disconnected = true;
		break;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (run->p.role == RDMASTAT_KPING_ROLE_CLIENT)
			kping_hello_parse(run, ev->param.conn.private_data,
					  ev->param.conn.private_data_len);
		fallthrough;
	default:
		run->cm_event = ev->event;
		run->cm_status = ev->status;
		break;
	}
out:
	spin_unlock_irqrestore(&run->lock, flags);
	wake_up(&run->wq);
	return ret;
}

static bool kping_should_wake(struct kping_run *run, const u64 *counter, u64 target)
{
	return READ_ONCE(*counter) >= target || READ_ONCE(run->error) ||
	       READ_ONCE(run->disconnected) || kthread_should_stop();
}

int kping_wait_count(struct kping_run *run, const u64 *counter, u64 target,
		     const char *what)
{
	wait_event_interruptible_timeout(run->wq,
					 kping_should_wake(run, counter, target),
					 msecs_to_jiffies(run->p.timeout_ms));
	if (kthread_should_stop())
		return -EINTR;
	if (READ_ONCE(*counter) >= target)
		return 0;
	if (READ_ONCE(run->error))
		return -READ_ONCE(run->error);
	if (READ_ONCE(run->disconnected))
		return -ENOTCONN;
	kping_fail(run, ETIMEDOUT, what);
	return -ETIMEDOUT;
}

/* Waits for the next rdma_cm event, which must be want. */
static int kping_wait_cm(struct kping_run *run, int want, const char *what)
{
	unsigned long flags;
	long left;
	int event, status;

	left = wait_event_interruptible_timeout(run->wq,
						READ_ONCE(run->cm_event) >= 0 ||
						READ_ONCE(run->disconnected) ||
						kthread_should_stop(),
						msecs_to_jiffies(run->p.timeout_ms));
	if (kthread_should_stop())
		return -EINTR;
	spin_lock_irqsave(&run->lock, flags);
	event = run->cm_event;
	status = run->cm_status;
	run->cm_event = -1;
	spin_unlock_irqrestore(&run->lock, flags);
	if (event == want)
		return 0;
	if (event < 0) {
		kping_fail(run, left ? ECONNRESET : ETIMEDOUT, what);
		return left ? -ECONNRESET : -ETIMEDOUT;
	}
	{
		char msg[64];

		snprintf(msg, sizeof(msg), "%s: %s (%d)", what,
			 rdma_event_msg(event), status);
		kping_fail(run, status < 0 ? -status : ECONNREFUSED, msg);
	}
	return status < 0 ? status : -ECONNREFUSED;
}

static int kping_buf_init(struct kping_run *run, struct kping_buf *buf, u32 size)
{
	struct ib_device *dev = run->pd->device;

	buf->data = kzalloc(size, GFP_KERNEL);
	if (!buf->data)
		return -ENOMEM;
	buf->size = size;
	buf->dma = ib_dma_map_single(dev, buf->data, size, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, buf->dma)) {
		kfree(buf->data);
		buf->data = NULL;
		return -ENOMEM;
	}
	buf->addr = buf->dma;
	buf->lkey = run->pd->local_dma_lkey;
	buf->rkey = run->pd->unsafe_global_rkey;
	if (run->p.mem == RDMASTAT_KPING_MEM_DMA)
		return 0;
	sg_init_one(&buf->sg, buf->data, size);
	sg_dma_address(&buf->sg) = buf->dma;
	sg_dma_len(&buf->sg) = size;
	buf->mr = ib_alloc_mr(run->pd, IB_MR_TYPE_MEM_REG,
			      DIV_ROUND_UP(offset_in_page(buf->data) + size, PAGE_SIZE));
	if (IS_ERR(buf->mr)) {
		int ret = PTR_ERR(buf->mr);

		buf->mr = NULL;
		return ret;
	}
	return 0;
}

static void kping_buf_free(struct kping_run *run, struct kping_buf *buf)
{
	if (buf->mr)
		ib_dereg_mr(buf->mr);
	if (buf->data) {
		ib_dma_unmap_single(run->pd->device, buf->dma, buf->size,
				    DMA_BIDIRECTIONAL);
		kfree(buf->data);
	}
	memset(buf, 0, sizeof(*buf));
}

/* Protection domain, completion queue, queue pair, buffers; posts a receive. */
static int kping_resources(struct kping_run *run, struct rdma_cm_id *id, u32 size)
{
	struct ib_qp_init_attr attr = {};
	unsigned int sq = 16 + (run->p.mode == RDMASTAT_KPING_MODE_WRITE_BW ?
				run->p.depth : 0);
	unsigned long flags;
	int ret;

	run->pd = ib_alloc_pd(id->device, run->p.mem == RDMASTAT_KPING_MEM_DMA ?
			      IB_PD_UNSAFE_GLOBAL_RKEY : 0);
	if (IS_ERR(run->pd)) {
		ret = PTR_ERR(run->pd);
		run->pd = NULL;
		kping_fail(run, -ret, "allocating the protection domain");
		return ret;
	}
	run->cq = ib_alloc_cq(id->device, run, sq + 8, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(run->cq)) {
		ret = PTR_ERR(run->cq);
		run->cq = NULL;
		kping_fail(run, -ret, "allocating the completion queue");
		return ret;
	}
	ret = kping_buf_init(run, &run->rx, sizeof(struct kping_msg));
	if (!ret)
		ret = kping_buf_init(run, &run->tx, sizeof(struct kping_msg));
	if (!ret)
		ret = kping_buf_init(run, &run->local, size);
	if (!ret && run->p.role == RDMASTAT_KPING_ROLE_CLIENT &&
	    run->p.mode != RDMASTAT_KPING_MODE_WRITE_BW &&
	    run->p.mode != RDMASTAT_KPING_MODE_READ_LAT)
		ret = kping_buf_init(run, &run->sink, size);
	if (ret) {
		kping_fail(run, -ret, "allocating and registering buffers");
		return ret;
	}
	run->rx_msg = run->rx.data;
	run->tx_msg = run->tx.data;

	attr.send_cq = run->cq;
	attr.recv_cq = run->cq;
	attr.cap.max_send_wr = sq;
	attr.cap.max_recv_wr = 4;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.qp_type = IB_QPT_RC;
	ret = rdma_create_qp(id, run->pd, &attr);
	if (ret) {
		kping_fail(run, -ret, "creating the queue pair");
		return ret;
	}
	spin_lock_irqsave(&run->lock, flags);
	run->cm_id = id;
	strscpy(run->dev_name, dev_name(&id->device->dev), sizeof(run->dev_name));
	spin_unlock_irqrestore(&run->lock, flags);
	return kping_post_recv(run);
}

static void kping_conn_param(struct rdma_conn_param *param, u8 *hello,
			     u8 mode, u32 size)
{
	memset(param, 0, sizeof(*param));
	kping_hello_encode(hello, mode, size);
	param->private_data = hello;
	param->private_data_len = RDMASTAT_KPING_HELLO_LEN;
	param->responder_resources = 1;
	param->initiator_depth = 1;
	param->retry_count = 7;
	param->rnr_retry_count = 7;
}

static void kping_connected(struct kping_run *run)
{
	unsigned long flags;

	spin_lock_irqsave(&run->lock, flags);
	memcpy(&run->peer_addr, &run->cm_id->route.addr.dst_addr,
	       sizeof(run->peer_addr));
	run->state = RDMASTAT_KPING_STATE_RUNNING;
	run->st.start_ns = ktime_get_ns();
	spin_unlock_irqrestore(&run->lock, flags);
}

/* The run's first id: a client's connection, or a server's listener. */
static struct rdma_cm_id *kping_create_id(struct kping_run *run)
{
	struct rdma_cm_id *id;
	unsigned long flags;

	id = rdma_create_id(run->net, kping_cm_handler, run, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		kping_fail(run, -PTR_ERR(id), "creating the rdma_cm id");
		return id;
	}
	/* No event comes before the thread resolves, binds or listens. */
	spin_lock_irqsave(&run->lock, flags);
	if (run->p.role == RDMASTAT_KPING_ROLE_SERVER)
		run->listener = id;
	else
		run->conn = id;
	spin_unlock_irqrestore(&run->lock, flags);
	return id;
}

static int kping_connect(struct kping_run *run)
{
	struct rdma_conn_param param;
	u8 hello[RDMASTAT_KPING_HELLO_LEN];
	struct rdma_cm_id *id;
	int ret;

	id = kping_create_id(run);
	if (IS_ERR(id))
		return PTR_ERR(id);
	run->listen_id = id;	/* until it has a QP: destroyed in teardown */
	ret = rdma_resolve_addr(id, NULL, (struct sockaddr *)&run->p.addr,
				run->p.timeout_ms);
	if (ret) {
		kping_fail(run, -ret, "resolving the address");
		return ret;
	}
	ret = kping_wait_cm(run, RDMA_CM_EVENT_ADDR_RESOLVED, "resolving the address");
	if (ret)
		return ret;
	ret = rdma_resolve_route(id, run->p.timeout_ms);
	if (ret) {
		kping_fail(run, -ret, "resolving the route");
		return ret;
	}
	ret = kping_wait_cm(run, RDMA_CM_EVENT_ROUTE_RESOLVED, "resolving the route");
	if (ret)
		return ret;
	run->listen_id = NULL;
	run->cm_id = id;
	ret = kping_resources(run, id, run->p.size);
	if (ret)
		return ret;
	kping_conn_param(&param, hello, run->p.mode, run->p.size);
	ret = rdma_connect(id, &param);
	if (ret) {
		kping_fail(run, -ret, "connecting");
		return ret;
	}
	ret = kping_wait_cm(run, RDMA_CM_EVENT_ESTABLISHED, "connecting");
	if (ret)
		return ret;
	if (run->p.mode != RDMASTAT_KPING_MODE_PING &&
	    (!run->peer_hello || run->peer_mode != run->p.mode)) {
		kping_fail(run, EPROTO,
			   "the server does not speak this mode (rping has only the ping mode)");
		return -EPROTO;
	}
	kping_connected(run);
	return 0;
}

static int kping_accept(struct kping_run *run)
{
	struct rdma_conn_param param;
	u8 hello[RDMASTAT_KPING_HELLO_LEN];
	struct rdma_cm_id *id;
	unsigned long flags;
	u32 size = run->p.size;
	u8 mode;
	int ret;

	id = kping_create_id(run);
	if (IS_ERR(id))
		return PTR_ERR(id);
	run->listen_id = id;
	ret = rdma_bind_addr(id, (struct sockaddr *)&run->p.addr);
	if (ret) {
		kping_fail(run, -ret, "binding the address");
		return ret;
	}
	ret = rdma_listen(id, 1);
	if (ret) {
		kping_fail(run, -ret, "listening");
		return ret;
	}
	/*
	 * A server waits for its client until stopped, its device goes away
	 * (whose removal waits for us to destroy the listener) or the timeout.
	 */
	wait_event_interruptible_timeout(run->wq, READ_ONCE(run->child) ||
					 READ_ONCE(run->listener_gone) ||
					 kthread_should_stop(),
					 msecs_to_jiffies(run->p.timeout_ms));
	if (kthread_should_stop())
		return -EINTR;
	if (!READ_ONCE(run->child)) {
		if (READ_ONCE(run->listener_gone)) {
			kping_fail(run, ENODEV, "the device went away while listening");
			return -ENODEV;
		}
		kping_fail(run, ETIMEDOUT, "waiting for a client");
		return -ETIMEDOUT;
	}
	spin_lock_irqsave(&run->lock, flags);
	id = run->child;
	run->child = NULL;
	run->cm_id = id;
	spin_unlock_irqrestore(&run->lock, flags);
	mode = run->peer_hello ? run->peer_mode : RDMASTAT_KPING_MODE_PING;
	if (mode != RDMASTAT_KPING_MODE_PING) {
		if (run->peer_size < 1 || run->peer_size > RDMASTAT_KPING_MAX_SIZE) {
			kping_fail(run, EINVAL, "the client asked for a buffer size out of range");
			return -EINVAL;
		}
		size = run->peer_size;
	}
	/* GET reads mode and size under the lock. */
	spin_lock_irqsave(&run->lock, flags);
	run->p.mode = mode;
	run->p.size = size;
	spin_unlock_irqrestore(&run->lock, flags);
	ret = kping_resources(run, id, size);
	if (ret)
		return ret;
	kping_conn_param(&param, hello, run->p.mode, size);
	/* rping ignores the private data of the accept: answer everyone. */
	rdma_lock_handler(id);
	ret = rdma_accept(id, &param);
	rdma_unlock_handler(id);
	if (ret) {
		kping_fail(run, -ret, "accepting");
		return ret;
	}
	ret = kping_wait_cm(run, RDMA_CM_EVENT_ESTABLISHED, "accepting");
	if (ret)
		return ret;
	kping_connected(run);
	return 0;
}

/* Everything the thread created, in reverse; no handler runs afterwards. */
static void kping_teardown(struct kping_run *run)
{
	struct rdma_cm_id *child;
	unsigned long flags;

	if (run->listen_id)
		rdma_destroy_id(run->listen_id);
	run->listen_id = NULL;
	/* No more connect requests: a client not yet taken is ours to free. */
	spin_lock_irqsave(&run->lock, flags);
	child = run->child;
	run->child = NULL;
	spin_unlock_irqrestore(&run->lock, flags);
	if (child)
		rdma_destroy_id(child);
	if (run->cm_id) {
		if (run->cm_id->qp) {
			rdma_disconnect(run->cm_id);
			rdma_destroy_qp(run->cm_id);
		}
	}
	if (run->cq)
		ib_free_cq(run->cq);
	run->cq = NULL;
	if (run->pd) {
		kping_buf_free(run, &run->rx);
		kping_buf_free(run, &run->tx);
		kping_buf_free(run, &run->local);
		kping_buf_free(run, &run->sink);
		ib_dealloc_pd(run->pd);
		run->pd = NULL;
	}
	if (run->cm_id)
		rdma_destroy_id(run->cm_id);
	run->cm_id = NULL;
}

int kping_thread(void *arg)
{
	struct kping_run *run = arg;
	unsigned long flags;
	int ret;

	/* A namespace already going away gets no run (its exit stops us). */
	if (!maybe_get_net(run->net)) {
		kping_fail(run, ENETDOWN, "the network namespace is going away");
		ret = -ENETDOWN;
		goto out;
	}
	if (run->p.role == RDMASTAT_KPING_ROLE_SERVER)
		ret = kping_accept(run);
	else
		ret = kping_connect(run);
	if (!ret)
		ret = kping_traffic(run);
	/*
	 * The peer leaving is how a server that serves "until the client
	 * leaves" ends; any other run it cuts short.
	 */
	if (ret == -ENOTCONN &&
	    !(run->p.role == RDMASTAT_KPING_ROLE_SERVER && !run->p.count))
		kping_fail(run, ENOTCONN,
			   "the peer left before the run was done (disconnected or flushed)");
	kping_teardown(run);
	put_net(run->net);
out:
	spin_lock_irqsave(&run->lock, flags);
	if (run->error)
		run->state = RDMASTAT_KPING_STATE_FAILED;
	else if (ret == -EINTR)
		run->state = RDMASTAT_KPING_STATE_STOPPED;
	else
		run->state = RDMASTAT_KPING_STATE_DONE;
	if (run->st.start_ns)
		run->st.end_ns = ktime_get_ns();
	spin_unlock_irqrestore(&run->lock, flags);
	/* The run's owner holds our task_struct and reaps us with kthread_stop(). */
	return 0;
}
