// SPDX-License-Identifier: MIT
/*
 * rdmastat-reject ADDR PORT [COUNT]: an rdma_cm server that rejects every
 * connect request with rdma_reject() and a private-data message, COUNT times
 * (default 1), then exits 0. On InfiniBand and RoCE the client sees REJECTED
 * with the IB CM reason CONSUMER_DEFINED (28); on siw, ECONNRESET. Prints
 * "listening ADDR PORT" once it listens, and "rejected N" after each reject.
 * The lab's server that says no, for the -E tests.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <rdma/rdma_cma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_addr(const char *text, long port, struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, text, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons((unsigned short)port);
		return 0;
	}
	if (inet_pton(AF_INET6, text, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((unsigned short)port);
		return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	static const char message[] = "rdmastat-reject: no";
	struct rdma_event_channel *channel;
	struct rdma_cm_id *listener;
	struct rdma_cm_event *event;
	struct sockaddr_storage ss;
	long port, count, done = 0;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: rdmastat-reject ADDR PORT [COUNT]\n");
		return 2;
	}
	port = strtol(argv[2], NULL, 10);
	count = argc == 4 ? strtol(argv[3], NULL, 10) : 1;
	if (port <= 0 || port > 65535 || count <= 0 || parse_addr(argv[1], port, &ss)) {
		fprintf(stderr, "rdmastat-reject: bad address, port or count\n");
		return 2;
	}
	channel = rdma_create_event_channel();
	if (!channel || rdma_create_id(channel, &listener, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listener, (struct sockaddr *)&ss) || rdma_listen(listener, 8)) {
		perror("rdmastat-reject: listen");
		return 1;
	}
	printf("listening %s %ld\n", argv[1], port);
	fflush(stdout);
	while (done < count && rdma_get_cm_event(channel, &event) == 0) {
		enum rdma_cm_event_type type = event->event;
		struct rdma_cm_id *id = event->id;

		rdma_ack_cm_event(event);
		if (type != RDMA_CM_EVENT_CONNECT_REQUEST)
			continue;
		if (rdma_reject(id, message, sizeof(message)))
			perror("rdmastat-reject: rdma_reject");
		rdma_destroy_id(id);
		printf("rejected %ld\n", ++done);
		fflush(stdout);
	}
	rdma_destroy_id(listener);
	rdma_destroy_event_channel(channel);
	return done == count ? 0 : 1;
}
