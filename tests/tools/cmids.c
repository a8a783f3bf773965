// SPDX-License-Identifier: MIT
/*
 * rdmastat-cmids: creates COUNT listening rdma_cm ids bound to ADDR (ports
 * chosen by the kernel), prints "ready COUNT" and holds them for SECONDS (or
 * until SIGTERM). With -c it instead creates and destroys ids in a loop for
 * SECONDS and prints how many it made. A lab helper: many ids make multi-message
 * NLDEV dumps; the loop makes churn.
 */
#include <arpa/inet.h>
#include <rdma/rdma_cma.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

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

static struct rdma_cm_id *listen_on(struct rdma_event_channel *ch, struct sockaddr_storage *ss)
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
	if (rdma_listen(id, 1)) {
		perror("rdma_listen");
		rdma_destroy_id(id);
		return NULL;
	}
	return id;
}

int main(int argc, char **argv)
{
	const char *addr = "10.9.0.1";
	long count = 100, seconds = 10, made = 0, i;
	int churn = 0, opt;
	struct sockaddr_storage ss;
	struct rdma_event_channel *ch;
	struct rdma_cm_id **ids;
	time_t end;

	while ((opt = getopt(argc, argv, "a:n:t:c")) != -1) {
		switch (opt) {
		case 'a': addr = optarg; break;
		case 'n': count = strtol(optarg, NULL, 10); break;
		case 't': seconds = strtol(optarg, NULL, 10); break;
		case 'c': churn = 1; break;
		default:
			fprintf(stderr, "usage: rdmastat-cmids [-a ADDR] [-n COUNT] [-t SECONDS] [-c]\n");
			return 2;
		}
	}
	if (count < 1 || make_addr(addr, &ss)) {
		fprintf(stderr, "rdmastat-cmids: bad address or count\n");
		return 2;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	ch = rdma_create_event_channel();
	ids = calloc((size_t)count, sizeof(*ids));
	if (!ch || !ids) {
		perror("rdmastat-cmids");
		return 1;
	}
	end = time(NULL) + seconds;
	do {
		for (i = 0; i < count && !stop; i++) {
			ids[i] = listen_on(ch, &ss);
			if (!ids[i])
				return 1;
			made++;
		}
		if (!churn) {
			printf("ready %ld\n", made);
			fflush(stdout);
			while (!stop && time(NULL) < end)
				usleep(100000);
		}
		for (i = 0; i < count; i++)
			if (ids[i])
				rdma_destroy_id(ids[i]);
		memset(ids, 0, (size_t)count * sizeof(*ids));
	} while (churn && !stop && time(NULL) < end);
	if (churn)
		printf("created %ld\n", made);
	free(ids);
	rdma_destroy_event_channel(ch);
	return 0;
}
