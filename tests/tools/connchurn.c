// SPDX-License-Identifier: MIT
/*
 * rdmastat-connchurn: RC connections made and torn down at a steady rate, to
 * load -E's collector. One process listens on ADDR:PORT and connects to
 * itself: each connection resolves its address and route, gets a QP on both
 * ends, is established, disconnected and destroyed, as an application's would.
 *   -a ADDR      the address to listen on and connect to (default 10.9.0.1)
 *   -p PORT      the listener's port (default 7400)
 *   -r RATE      connections started per second (default 100; 0: none, an
 *                idle baseline)
 *   -w WINDOW    at most WINDOW connections in progress; a start that would
 *                pass it is skipped and counted (default 64)
 *   -t SECONDS   how long to start connections (default 20); then it waits
 *                up to 10 s for those in progress
 * Prints "started S established E failed F skipped K seconds T".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long started, established, failed, skipped, in_flight;
static struct rdma_cm_id *listener;
static struct sockaddr_in addr;
static struct rdma_event_channel *ch;
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int make_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.qp_type = IBV_QPT_RC;
	attr.cap.max_send_wr = 1;
	attr.cap.max_recv_wr = 1;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	return rdma_create_qp(id, NULL, &attr);
}

/* An end is done: its QP and id go. An active end (context set) ends a
 * connection in progress. */
static void finish(struct rdma_cm_id *id, int ok)
{
	if (id->context) {
		in_flight--;
		if (!ok)
			failed++;
	}
	if (id->qp)
		rdma_destroy_qp(id);
	rdma_destroy_id(id);
}

static void start_one(void)
{
	struct rdma_cm_id *id;

	if (rdma_create_id(ch, &id, &started, RDMA_PS_TCP)) {
		failed++;
		return;
	}
	started++;
	in_flight++;
	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&addr, 5000))
		finish(id, 0);
}

static void handle(struct rdma_cm_event *ev)
{
	struct rdma_cm_id *id = ev->id;
	enum rdma_cm_event_type type = ev->event;
	struct rdma_conn_param param;

	memset(&param, 0, sizeof(param));
	param.initiator_depth = param.responder_resources = 1;
	param.retry_count = 7;
	rdma_ack_cm_event(ev);
	switch (type) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rdma_resolve_route(id, 5000))
			finish(id, 0);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (make_qp(id) || rdma_connect(id, &param))
			finish(id, 0);
		break;
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		if (make_qp(id) || rdma_accept(id, &param)) {
			rdma_reject(id, NULL, 0);
			finish(id, 0);
		}
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		/* The active end has what it came for: it hangs up. */
		if (id->context) {
			established++;
			rdma_disconnect(id);
		}
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		if (!id->context)
			rdma_disconnect(id);
		finish(id, 1);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		finish(id, 0);
		break;
	default:
		break;
	}
}

int main(int argc, char **argv)
{
	const char *address = "10.9.0.1";
	long port = 7400, rate = 100, window = 64, seconds = 20;
	double start, next, end;
	struct rdma_cm_event *ev;
	struct pollfd pfd;
	int opt;

	while ((opt = getopt(argc, argv, "a:p:r:w:t:")) != -1) {
		switch (opt) {
		case 'a': address = optarg; break;
		case 'p': port = strtol(optarg, NULL, 10); break;
		case 'r': rate = strtol(optarg, NULL, 10); break;
		case 'w': window = strtol(optarg, NULL, 10); break;
		case 't': seconds = strtol(optarg, NULL, 10); break;
		default:
			fprintf(stderr, "usage: rdmastat-connchurn [-a ADDR] [-p PORT] [-r RATE] "
					"[-w WINDOW] [-t SECONDS]\n");
			return 2;
		}
	}
	memset(&addr, 0, sizeof(addr));
	addr.sin_family = AF_INET;
	addr.sin_port = htons((unsigned short)port);
	if (rate < 0 || window <= 0 || seconds < 0 || port <= 0 || port > 65535 ||
	    inet_pton(AF_INET, address, &addr.sin_addr) != 1) {
		fprintf(stderr, "rdmastat-connchurn: bad arguments\n");
		return 2;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &listener, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listener, (struct sockaddr *)&addr) || rdma_listen(listener, 1024)) {
		perror("rdmastat-connchurn: listen");
		return 1;
	}
	pfd.fd = ch->fd;
	pfd.events = POLLIN;
	start = next = now();
	end = start + (double)seconds;
	while (!stop) {
		double t = now();
		int timeout;

		/* Starts due by now, at the rate, unless the window is full. */
		while (rate && t < end && next <= t) {
			if (in_flight < window)
				start_one();
			else
				skipped++;
			next += 1.0 / (double)rate;
		}
		if (t >= end && (in_flight == 0 || t >= end + 10))
			break;
		timeout = t >= end ? 100 : rate ? (int)((next - t) * 1000) : (int)((end - t) * 1000);
		if (poll(&pfd, 1, timeout < 1 ? 1 : timeout) < 0 && errno != EINTR)
			break;
		if (pfd.revents & POLLIN) {
			if (rdma_get_cm_event(ch, &ev))
				break;
			handle(ev);
		}
	}
	printf("started %ld established %ld failed %ld skipped %ld seconds %.1f\n", started,
	       established, failed, skipped, now() - start);
	return 0;
}
