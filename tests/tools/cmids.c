// SPDX-License-Identifier: MIT
/*
 * rdmastat-cmids: creates COUNT rdma_cm ids bound to the -a addresses (round
 * robin; repeat -a for more) and listening, plus PAIRS connected pairs with
 * traffic, prints "ready COUNT" and holds them for SECONDS (or until SIGTERM).
 *   -P PORT   bind id i to port PORT + i / (number of addresses) instead of a
 *             port the kernel chooses: with address aliases this goes past the
 *             ephemeral port range
 *   -b PCT    PCT percent of the COUNT ids stay bound, not listening
 *   -C PAIRS  PAIRS client/server pairs (round robin over the addresses), each
 *             connected through one listener per address, with an RC QP on both
 *             ends and one message sent from client to server
 * With -c it instead creates and destroys COUNT listening ids in a loop for
 * SECONDS and prints how many it made; -r RATE makes at most RATE ids a second;
 * -m MIN goes on past SECONDS until it made MIN, for at most three times as
 * long again (a slow kernel still churns as much). A lab helper: many ids make multi-message
 * NLDEV dumps and the scale benchmark; the loop makes churn.
 */
#include <arpa/inet.h>
#include <rdma/rdma_cma.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_ADDRS 64
#define MAX_DEVICES 8
#define MSG_SIZE 64

static volatile sig_atomic_t stop;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sleeps until the made-th id is due at rate ids a second from start. */
static void pace(double start, long made, long rate)
{
	double wait = start + (double)made / (double)rate - now_s();

	if (wait > 0)
		usleep((useconds_t)(wait * 1e6));
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int make_addr(const char *text, struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, text, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, text, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		return 0;
	}
	return -1;
}

static void set_port(struct sockaddr_storage *ss, unsigned port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons((unsigned short)port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons((unsigned short)port);
}

static struct rdma_cm_id *bind_on(struct rdma_event_channel *ch, struct sockaddr_storage *ss,
				  int listen)
{
	struct rdma_cm_id *id;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP)) {
		perror("rdma_create_id");
		return NULL;
	}
	if (rdma_bind_addr(id, (struct sockaddr *)ss)) {
		perror("rdma_bind_addr");
		rdma_destroy_id(id);
		return NULL;
	}
	if (listen && rdma_listen(id, 128)) {
		perror("rdma_listen");
		rdma_destroy_id(id);
		return NULL;
	}
	return id;
}

/* Verbs resources shared by every QP of one device. */
struct device_res {
	struct ibv_context *verbs;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	char buf[2 * MSG_SIZE];
};

static struct device_res devices[MAX_DEVICES];

static struct device_res *device_of(struct ibv_context *verbs, int cq_size)
{
	int i;

	for (i = 0; i < MAX_DEVICES && devices[i].verbs; i++)
		if (devices[i].verbs == verbs)
			return &devices[i];
	if (i == MAX_DEVICES)
		return NULL;
	devices[i].verbs = verbs;
	devices[i].pd = ibv_alloc_pd(verbs);
	devices[i].cq = devices[i].pd ? ibv_create_cq(verbs, cq_size, NULL, NULL, 0) : NULL;
	devices[i].mr = devices[i].cq ? ibv_reg_mr(devices[i].pd, devices[i].buf,
						   sizeof(devices[i].buf),
						   IBV_ACCESS_LOCAL_WRITE)
				      : NULL;
	return devices[i].mr ? &devices[i] : NULL;
}

static struct device_res *make_qp(struct rdma_cm_id *id, int cq_size)
{
	struct device_res *d = device_of(id->verbs, cq_size);
	struct ibv_qp_init_attr attr;

	if (!d) {
		perror("verbs resources");
		return NULL;
	}
	memset(&attr, 0, sizeof(attr));
	attr.send_cq = d->cq;
	attr.recv_cq = d->cq;
	attr.qp_type = IBV_QPT_RC;
	attr.cap.max_send_wr = 2;
	attr.cap.max_recv_wr = 2;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, d->pd, &attr)) {
		perror("rdma_create_qp");
		return NULL;
	}
	return d;
}

/* The next event on ch, which must be of type want; returns its id. */
static struct rdma_cm_id *expect(struct rdma_event_channel *ch, enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;

	if (rdma_get_cm_event(ch, &ev)) {
		perror("rdma_get_cm_event");
		return NULL;
	}
	id = ev->id;
	if (ev->event != want) {
		fprintf(stderr, "rdmastat-cmids: got %s (status %d), expected %s\n",
			rdma_event_str(ev->event), ev->status, rdma_event_str(want));
		id = NULL;
	}
	rdma_ack_cm_event(ev);
	return id;
}

static int wait_completions(struct ibv_cq *cq, int n)
{
	struct ibv_wc wc;
	time_t end = time(NULL) + 10;

	while (n > 0 && time(NULL) < end) {
		int got = ibv_poll_cq(cq, 1, &wc);

		if (got < 0 || (got == 1 && wc.status != IBV_WC_SUCCESS)) {
			fprintf(stderr, "rdmastat-cmids: completion failed: %s\n",
				got < 0 ? "poll" : ibv_wc_status_str(wc.status));
			return -1;
		}
		n -= got;
	}
	return n > 0 ? -1 : 0;
}

/*
 * One connected pair to the listener lid: the client (on cch) connects, the
 * server end arrives on sch, and the client sends one message the server
 * receives. Stores the client and server ids in out[0], out[1].
 */
static int connect_pair(struct rdma_event_channel *cch, struct rdma_event_channel *sch,
			struct rdma_cm_id *lid, int cq_size, struct rdma_cm_id **out)
{
	struct rdma_conn_param param;
	struct device_res *cd, *sd;
	struct ibv_sge sge;
	struct ibv_recv_wr rwr, *bad_rwr;
	struct ibv_send_wr swr, *bad_swr;
	struct rdma_cm_id *c, *s;

	if (rdma_create_id(cch, &c, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(c, NULL, rdma_get_local_addr(lid), 5000) ||
	    !expect(cch, RDMA_CM_EVENT_ADDR_RESOLVED) || rdma_resolve_route(c, 5000) ||
	    !expect(cch, RDMA_CM_EVENT_ROUTE_RESOLVED) || !(cd = make_qp(c, cq_size)))
		return -1;
	memset(&param, 0, sizeof(param));
	param.initiator_depth = param.responder_resources = 1;
	param.retry_count = 7;
	if (rdma_connect(c, &param) || !(s = expect(sch, RDMA_CM_EVENT_CONNECT_REQUEST)) ||
	    !(sd = make_qp(s, cq_size)))
		return -1;
	out[0] = c;
	out[1] = s;
	sge.addr = (uintptr_t)sd->buf + MSG_SIZE;
	sge.length = MSG_SIZE;
	sge.lkey = sd->mr->lkey;
	memset(&rwr, 0, sizeof(rwr));
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	if (ibv_post_recv(s->qp, &rwr, &bad_rwr) || rdma_accept(s, &param) ||
	    !expect(cch, RDMA_CM_EVENT_ESTABLISHED) || !expect(sch, RDMA_CM_EVENT_ESTABLISHED))
		return -1;
	snprintf(cd->buf, MSG_SIZE, "rdmastat-cmids");
	sge.addr = (uintptr_t)cd->buf;
	sge.lkey = cd->mr->lkey;
	memset(&swr, 0, sizeof(swr));
	swr.sg_list = &sge;
	swr.num_sge = 1;
	swr.opcode = IBV_WR_SEND;
	swr.send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(c->qp, &swr, &bad_swr))
		return -1;
	/* send and receive complete on one CQ when both ends share the device */
	if (cd == sd)
		return wait_completions(cd->cq, 2);
	return wait_completions(cd->cq, 1) || wait_completions(sd->cq, 1) ? -1 : 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: rdmastat-cmids [-a ADDR]... [-n COUNT] [-P PORT] [-b PCT] "
			"[-C PAIRS] [-t SECONDS] [-c [-r RATE] [-m MIN]]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static struct sockaddr_storage addrs[MAX_ADDRS];
	long count = 100, seconds = 10, made = 0, pairs = 0, port = 0, bound_pct = 0, rate = 0, i,
	     total, min = 0;
	double start;
	int naddrs = 0, churn = 0, opt, cq_size;
	struct rdma_event_channel *ch, *cch = NULL;
	struct rdma_cm_id **ids, *listeners[MAX_ADDRS];
	time_t end;

	while ((opt = getopt(argc, argv, "a:n:t:cP:b:C:r:m:")) != -1) {
		switch (opt) {
		case 'a':
			if (naddrs == MAX_ADDRS || make_addr(optarg, &addrs[naddrs]))
				usage();
			naddrs++;
			break;
		case 'n': count = strtol(optarg, NULL, 10); break;
		case 't': seconds = strtol(optarg, NULL, 10); break;
		case 'c': churn = 1; break;
		case 'P': port = strtol(optarg, NULL, 10); break;
		case 'b': bound_pct = strtol(optarg, NULL, 10); break;
		case 'C': pairs = strtol(optarg, NULL, 10); break;
		case 'r': rate = strtol(optarg, NULL, 10); break;
		case 'm': min = strtol(optarg, NULL, 10); break;
		default: usage();
		}
	}
	if (!naddrs && make_addr("10.9.0.1", &addrs[naddrs++]))
		usage();
	if (count < 0 || pairs < 0 || port < 0 || bound_pct < 0 || bound_pct > 100 || rate < 0 ||
	    ((rate || min) && !churn) || min < 0 ||
	    port + count / naddrs >= 65536 || (churn && (pairs || port)))
		usage();
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	ch = rdma_create_event_channel();
	total = count + 2 * pairs + naddrs;
	ids = calloc((size_t)total, sizeof(*ids));
	if (!ch || !ids) {
		perror("rdmastat-cmids");
		return 1;
	}
	end = time(NULL) + seconds;
	start = now_s();
	do {
		for (i = 0; i < count && !stop; i++) {
			int a = (int)(i % naddrs);

			set_port(&addrs[a], port ? (unsigned)(port + i / naddrs) : 0);
			ids[i] = bind_on(ch, &addrs[a], churn || (i % 100) >= bound_pct);
			if (!ids[i])
				return 1;
			made++;
			if (rate)
				pace(start, made, rate);
		}
		if (!churn)
			break;
		for (i = 0; i < count; i++)
			if (ids[i])
				rdma_destroy_id(ids[i]);
		memset(ids, 0, (size_t)count * sizeof(*ids));
	} while (!stop && (time(NULL) < end || (made < min && time(NULL) < end + 3 * seconds)));
	if (churn) {
		printf("created %ld\n", made);
		return 0;
	}

	if (pairs) {
		cch = rdma_create_event_channel();
		cq_size = (int)(4 * pairs + 16);
		if (!cch) {
			perror("rdma_create_event_channel");
			return 1;
		}
		for (i = 0; i < naddrs && i < pairs; i++) {
			set_port(&addrs[i], 0);
			listeners[i] = bind_on(ch, &addrs[i], 1);
			if (!listeners[i])
				return 1;
			ids[count + 2 * pairs + i] = listeners[i];
		}
		alarm(600); /* a handshake that never completes must not hang the lab */
		for (i = 0; i < pairs && !stop; i++) {
			if (connect_pair(cch, ch, listeners[i % naddrs], cq_size, &ids[count + 2 * i])) {
				fprintf(stderr, "rdmastat-cmids: pair %ld failed\n", i);
				return 1;
			}
			if ((i + 1) % 50 == 0)
				fprintf(stderr, "%ld pairs connected\n", i + 1);
		}
		alarm(0);
	}
	printf("ready %ld\n", made + 2 * pairs);
	fflush(stdout);
	while (!stop && time(NULL) < end)
		usleep(100000);
	for (i = 0; i < total; i++) {
		if (!ids[i])
			continue;
		if (ids[i]->qp)
			rdma_destroy_qp(ids[i]);
		rdma_destroy_id(ids[i]);
	}
	for (i = 0; i < MAX_DEVICES && devices[i].verbs; i++) {
		ibv_dereg_mr(devices[i].mr);
		ibv_destroy_cq(devices[i].cq);
		ibv_dealloc_pd(devices[i].pd);
	}
	free(ids);
	if (cch)
		rdma_destroy_event_channel(cch);
	rdma_destroy_event_channel(ch);
	return 0;
}
