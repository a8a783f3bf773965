// SPDX-License-Identifier: MIT
/*
 * rdmastat-qpnum: one rdma_cm id whose QP number is not its own QP, for the
 * honest-join tests. It resolves ADDR:PORT and calls rdma_connect() with
 *   -q QPN  no QP of its own, naming QP number QPN (another process's QP, or
 *           one that does not exist), as any application may;
 *   -o      its own RC QP, which it destroys once the connect call returned:
 *           the id keeps naming the destroyed QP's number.
 * Then it prints "ready QPN EVENT" (the QP number the id names and the first
 * connection event) and holds the id for SECONDS (-t, default 60) or until
 * SIGTERM. Run it on RoCE or InfiniBand only: on iWARP the kernel's iw_cm
 * looks the named QP up and would use it.
 */
#include <arpa/inet.h>
#include <rdma/rdma_cma.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int wait_event(struct rdma_event_channel *ec, enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;
	int ok;

	if (rdma_get_cm_event(ec, &ev)) {
		perror("rdma_get_cm_event");
		return -1;
	}
	ok = ev->event == want;
	if (!ok)
		fprintf(stderr, "expected %s, got %s (status %d)\n", rdma_event_str(want),
			rdma_event_str(ev->event), ev->status);
	rdma_ack_cm_event(ev);
	return ok ? 0 : -1;
}

static int usage(void)
{
	fprintf(stderr, "usage: rdmastat-qpnum -a ADDR -p PORT (-q QPN | -o) [-t SECONDS]\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct rdma_conn_param param = {.responder_resources = 1, .initiator_depth = 1,
					.retry_count = 1};
	struct ibv_qp_init_attr qp_attr = {.qp_type = IBV_QPT_RC,
					   .cap = {.max_send_wr = 1, .max_recv_wr = 1,
						   .max_send_sge = 1, .max_recv_sge = 1}};
	const char *addr = NULL;
	struct sockaddr_in dst = {.sin_family = AF_INET};
	struct rdma_event_channel *ec;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct ibv_pd *pd = NULL;
	struct ibv_cq *cq = NULL;
	unsigned long qpn = 0;
	int port = 0, own = 0, seconds = 60, opt;
	const char *first = "none";

	while ((opt = getopt(argc, argv, "a:p:q:ot:")) != -1) {
		switch (opt) {
		case 'a': addr = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'q': qpn = strtoul(optarg, NULL, 0); break;
		case 'o': own = 1; break;
		case 't': seconds = atoi(optarg); break;
		default: return usage();
		}
	}
	if (!addr || port <= 0 || port > 65535 || (own == (qpn != 0)) ||
	    inet_pton(AF_INET, addr, &dst.sin_addr) != 1)
		return usage();
	dst.sin_port = htons((unsigned short)port);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);

	ec = rdma_create_event_channel();
	if (!ec || rdma_create_id(ec, &id, NULL, RDMA_PS_TCP)) {
		perror("rdma_create_id");
		return 1;
	}
	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000) ||
	    wait_event(ec, RDMA_CM_EVENT_ADDR_RESOLVED) || rdma_resolve_route(id, 2000) ||
	    wait_event(ec, RDMA_CM_EVENT_ROUTE_RESOLVED)) {
		fprintf(stderr, "resolve %s:%d failed\n", addr, port);
		return 1;
	}
	if (own) {
		pd = ibv_alloc_pd(id->verbs);
		cq = pd ? ibv_create_cq(id->verbs, 2, NULL, NULL, 0) : NULL;
		qp_attr.send_cq = qp_attr.recv_cq = cq;
		if (!cq || rdma_create_qp(id, pd, &qp_attr)) {
			perror("rdma_create_qp");
			return 1;
		}
		qpn = id->qp->qp_num;
	} else {
		param.qp_num = (uint32_t)qpn;
	}
	if (rdma_connect(id, &param)) {
		perror("rdma_connect");
		return 1;
	}
	if (own) {
		/* The id keeps the number: the kernel never clears it. */
		rdma_destroy_qp(id);
		ibv_destroy_cq(cq);
		ibv_dealloc_pd(pd);
	}
	/* Whatever the peer answers, the id now names qpn. */
	if (!rdma_get_cm_event(ec, &ev)) {
		first = rdma_event_str(ev->event);
		rdma_ack_cm_event(ev);
	}
	printf("ready %lu %s\n", qpn, first);
	fflush(stdout);
	while (!stop && seconds-- > 0)
		sleep(1);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ec);
	return 0;
}
