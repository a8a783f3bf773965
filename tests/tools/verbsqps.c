// SPDX-License-Identifier: MIT
/*
 * rdmastat-verbsqps: many raw-verbs connections in one process, for the
 * scale benchmark (bench/lab.sh). On device DEV (-d), port 1, it makes N RC
 * QPs (-n) and connects them in pairs, QP 2k with QP 2k+1, as NCCL or UCX
 * would over a TCP exchange: INIT, then RTR with the partner's QP number and
 * the port's GID at index GIDX (-g) as destination, then RTS. No traffic
 * flows. It prints "ready N" and holds them for SECONDS (-t, default 3600)
 * or until SIGTERM. With -k, a QP the kernel refuses (an rdma cgroup's
 * limit) ends the making: it prints "refused QP I: REASON", keeps what it
 * made (an even number of them connected) and holds it as before.
 */
#include <errno.h>
#include <infiniband/verbs.h>
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

static int to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					IBV_QP_ACCESS_FLAGS);
}

static int to_rts(struct ibv_qp *qp, uint32_t peer, const union ibv_gid *gid, int gidx)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_1024,
		.dest_qp_num = peer,
		.rq_psn = 1,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = {
			.is_global = 1,
			.grh = { .dgid = *gid, .sgid_index = (uint8_t)gidx, .hop_limit = 1 },
			.port_num = 1,
		},
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 1;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				     IBV_QP_MAX_QP_RD_ATOMIC);
}

int main(int argc, char **argv)
{
	const char *dev_name = "rxe0";
	int n = 1000, gidx = 1, seconds = 3600, keep = 0, opt, i, count;
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_qp **qps;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	union ibv_gid gid;

	while ((opt = getopt(argc, argv, "d:n:g:t:k")) != -1) {
		switch (opt) {
		case 'd': dev_name = optarg; break;
		case 'n': n = atoi(optarg); break;
		case 'g': gidx = atoi(optarg); break;
		case 't': seconds = atoi(optarg); break;
		case 'k': keep = 1; break;
		default:
			fprintf(stderr, "usage: %s [-d DEV] [-n N] [-g GIDX] [-t SECONDS] [-k]\n",
				argv[0]);
			return 2;
		}
	}
	if (n < 2 || n % 2) {
		fprintf(stderr, "rdmastat-verbsqps: -n takes an even number of at least 2\n");
		return 2;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	list = ibv_get_device_list(&count);
	for (i = 0; list && i < count; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev_name))
			ctx = ibv_open_device(list[i]);
	if (!ctx) {
		fprintf(stderr, "rdmastat-verbsqps: cannot open %s\n", dev_name);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	qps = calloc((size_t)n, sizeof(*qps));
	if (!cq || !qps || ibv_query_gid(ctx, 1, gidx, &gid)) {
		perror("rdmastat-verbsqps: setup");
		return 1;
	}
	for (i = 0; i < n; i++) {
		struct ibv_qp_init_attr init = {
			.send_cq = cq,
			.recv_cq = cq,
			.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1,
				 .max_recv_sge = 1 },
			.qp_type = IBV_QPT_RC,
		};

		qps[i] = ibv_create_qp(pd, &init);
		if (!qps[i] && keep) {
			printf("refused QP %d: %s\n", i, strerror(errno));
			if (i % 2)
				ibv_destroy_qp(qps[--i]);
			n = i;
			break;
		}
		if (!qps[i] || to_init(qps[i])) {
			fprintf(stderr, "rdmastat-verbsqps: QP %d of %d: %s\n", i, n, strerror(errno));
			return 1;
		}
	}
	for (i = 0; i < n; i++)
		if (to_rts(qps[i], qps[i ^ 1]->qp_num, &gid, gidx)) {
			fprintf(stderr, "rdmastat-verbsqps: QP %d to RTS: %s\n", i, strerror(errno));
			return 1;
		}
	printf("ready %d\n", n);
	fflush(stdout);
	while (!stop && seconds-- > 0)
		sleep(1);
	for (i = 0; i < n; i++)
		ibv_destroy_qp(qps[i]);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	free(qps);
	return 0;
}
