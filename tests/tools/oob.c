// SPDX-License-Identifier: MIT
/*
 * rdmastat-oob: a hostile rping server. It accepts one connection on
 * ADDR:PORT, takes the client's first message as rping's advertisement
 * (be64 address, be32 rkey, be32 length), and uses that rkey to RDMA READ
 * 64 bytes at the advertised address (the control: the key itself is good),
 * then 64 bytes OFFSET bytes away from it (-o, default 1048576; negative
 * reads before the buffer). -o edge reads the 64 bytes just before the
 * buffer, or just after it, whichever lies in the buffer's own 4 KiB page:
 * memory that is always mapped, so a key that grants it (kping's dma mode)
 * shows it without the reader faulting the peer's kernel on a hole, as a
 * read 1 MiB away can. A failed read kills the queue pair, so each offset
 * takes a connection of its own. One line per read:
 *   read OFFSET: STATUS      (read edge: STATUS, after a line edge: OFFSET)
 * where STATUS is ibv_wc_status_str() of the completion ("success", "remote
 * access error", ...) or "post failed: ERRNO" / "timeout". Then it
 * disconnects. An rping client's peer must see only the buffer it
 * advertised: the reads outside it must fail.
 *
 * usage: rdmastat-oob -a ADDR -p PORT [-o OFFSET|edge] [-t SECONDS]
 * Exit 0 when both reads were attempted, 2 when this program could not
 * set up (no connection, no advertisement).
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MIB (1024 * 1024)
#define PAGE 4096
#define READ_LEN 64

/* The offset of READ_LEN bytes beside [buf, buf + size) within buf's page, or 0. */
static long edge_offset(uint64_t buf, uint32_t size)
{
	uint64_t in_page = buf % PAGE;

	if (in_page >= READ_LEN)
		return -READ_LEN;
	if (in_page + size + READ_LEN <= PAGE)
		return (long)size;
	return 0;
}

struct advert {
	uint64_t buf;
	uint32_t rkey;
	uint32_t size;
} __attribute__((packed));

static struct rdma_event_channel *ch;

static struct rdma_cm_event *wait_event(int timeout_ms, enum rdma_cm_event_type want)
{
	struct pollfd fd = {.fd = ch->fd, .events = POLLIN};
	struct rdma_cm_event *ev;

	if (poll(&fd, 1, timeout_ms) <= 0 || rdma_get_cm_event(ch, &ev))
		return NULL;
	if (ev->event != want) {
		fprintf(stderr, "rdmastat-oob: got %s, wanted %s\n", rdma_event_str(ev->event),
			rdma_event_str(want));
		rdma_ack_cm_event(ev);
		return NULL;
	}
	return ev;
}

/* Polls cq for one completion for up to timeout_ms; 0 with *wc set, -1 on timeout. */
static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc, int timeout_ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n > 0)
			return 0;
		if (n < 0)
			return -1;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 > timeout_ms)
			return -1;
		usleep(1000);
	}
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr qpa = {.qp_type = IBV_QPT_RC,
				       .cap = {.max_send_wr = 4, .max_recv_wr = 2,
					       .max_send_sge = 1, .max_recv_sge = 1}};
	struct rdma_conn_param param = {.responder_resources = 1, .initiator_depth = 1};
	struct sockaddr_in sin = {.sin_family = AF_INET};
	long offsets[] = {0, MIB};
	struct rdma_cm_id *listen_id, *id;
	struct rdma_cm_event *ev;
	struct advert adv_wire;
	struct ibv_mr *rmr, *smr;
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	struct ibv_wc wc;
	char sink[READ_LEN];
	const char *addr = NULL;
	int port = 0, seconds = 20, opt;
	uint64_t buf;
	uint32_t rkey;
	unsigned i;
	int edge = 0;

	while ((opt = getopt(argc, argv, "a:p:o:t:")) != -1) {
		switch (opt) {
		case 'a': addr = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'o':
			if (!strcmp(optarg, "edge"))
				edge = 1;
			else
				offsets[1] = strtol(optarg, NULL, 0);
			break;
		case 't': seconds = atoi(optarg); break;
		default: goto usage;
		}
	}
	if (!addr || port <= 0 || port > 65535 || inet_pton(AF_INET, addr, &sin.sin_addr) != 1)
		goto usage;
	sin.sin_port = htons((unsigned short)port);

	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listen_id, (struct sockaddr *)&sin) || rdma_listen(listen_id, 1)) {
		perror("rdmastat-oob: listen");
		return 2;
	}
	ev = wait_event(seconds * 1000, RDMA_CM_EVENT_CONNECT_REQUEST);
	if (!ev)
		return 2;
	id = ev->id;
	rdma_ack_cm_event(ev);
	pd = ibv_alloc_pd(id->verbs);
	cq = pd ? ibv_create_cq(id->verbs, 8, NULL, NULL, 0) : NULL;
	qpa.send_cq = qpa.recv_cq = cq;
	rmr = pd ? ibv_reg_mr(pd, &adv_wire, sizeof(adv_wire), IBV_ACCESS_LOCAL_WRITE) : NULL;
	smr = pd ? ibv_reg_mr(pd, sink, sizeof(sink), IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!cq || !rmr || !smr || rdma_create_qp(id, pd, &qpa)) {
		perror("rdmastat-oob: resources");
		return 2;
	}
	{
		struct ibv_sge sge = {.addr = (uintptr_t)&adv_wire, .length = sizeof(adv_wire),
				      .lkey = rmr->lkey};
		struct ibv_recv_wr wr = {.sg_list = &sge, .num_sge = 1}, *bad;

		if (ibv_post_recv(id->qp, &wr, &bad)) {
			perror("rdmastat-oob: post recv");
			return 2;
		}
	}
	if (rdma_accept(id, &param)) {
		perror("rdmastat-oob: accept");
		return 2;
	}
	ev = wait_event(seconds * 1000, RDMA_CM_EVENT_ESTABLISHED);
	if (!ev)
		return 2;
	rdma_ack_cm_event(ev);
	if (poll_one(cq, &wc, seconds * 1000) || wc.status != IBV_WC_SUCCESS ||
	    wc.opcode != IBV_WC_RECV) {
		fprintf(stderr, "rdmastat-oob: no advertisement\n");
		return 2;
	}
	buf = be64toh(adv_wire.buf);
	rkey = be32toh(adv_wire.rkey);
	printf("advertised: %u bytes, rkey 0x%x\n", be32toh(adv_wire.size), rkey);
	if (edge) {
		offsets[1] = edge_offset(buf, be32toh(adv_wire.size));
		printf("edge: %ld\n", offsets[1]);
		if (!offsets[1])
			printf("read edge: none (the buffer fills its page)\n");
	}
	for (i = 0; i < sizeof(offsets) / sizeof(offsets[0]); i++) {
		char label[32];
		struct ibv_sge sge = {.addr = (uintptr_t)sink, .length = READ_LEN, .lkey = smr->lkey};
		struct ibv_send_wr wr = {.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_READ,
					 .send_flags = IBV_SEND_SIGNALED}, *bad;

		if (i && edge && !offsets[i])
			break;
		if (i && edge)
			snprintf(label, sizeof(label), "edge");
		else
			snprintf(label, sizeof(label), "%ld", offsets[i]);
		wr.wr.rdma.remote_addr = buf + (uint64_t)offsets[i];
		wr.wr.rdma.rkey = rkey;
		if (ibv_post_send(id->qp, &wr, &bad)) {
			printf("read %s: post failed: %d\n", label, errno);
			continue;
		}
		if (poll_one(cq, &wc, 5000)) {
			printf("read %s: timeout\n", label);
			continue;
		}
		printf("read %s: %s\n", label, ibv_wc_status_str(wc.status));
		fflush(stdout);
	}
	rdma_disconnect(id);
	return 0;
usage:
	fprintf(stderr, "usage: rdmastat-oob -a ADDR -p PORT [-o OFFSET] [-t SECONDS]\n");
	return 2;
}
