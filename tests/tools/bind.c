// SPDX-License-Identifier: MIT
/*
 * rdmastat-bind ADDR PORT [SECONDS]: a plain TCP program. Binds ADDR:PORT and
 * listens; prints "bound ADDR PORT" and holds the socket SECONDS (default 0),
 * or prints the bind error ("bind: Address already in use") and exits 1.
 * The lab's stand-in for the application that cannot get its port.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	socklen_t len;
	long port, seconds;
	int fd;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: rdmastat-bind ADDR PORT [SECONDS]\n");
		return 2;
	}
	port = strtol(argv[2], NULL, 10);
	seconds = argc == 4 ? strtol(argv[3], NULL, 10) : 0;
	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, argv[1], &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons((unsigned short)port);
		len = sizeof(*sin);
	} else if (inet_pton(AF_INET6, argv[1], &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((unsigned short)port);
		len = sizeof(*sin6);
	} else {
		fprintf(stderr, "rdmastat-bind: bad address %s\n", argv[1]);
		return 2;
	}
	fd = socket(ss.ss_family, SOCK_STREAM, 0);
	if (fd < 0) {
		perror("socket");
		return 2;
	}
	if (bind(fd, (struct sockaddr *)&ss, len) < 0) {
		printf("bind: %s (errno %d)\n", strerror(errno), errno);
		return 1;
	}
	if (listen(fd, 1) < 0) {
		perror("listen");
		return 1;
	}
	printf("bound %s %ld\n", argv[1], port);
	fflush(stdout);
	sleep((unsigned int)seconds);
	close(fd);
	return 0;
}
