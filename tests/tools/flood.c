// SPDX-License-Identifier: MIT
/*
 * rdmastat-flood: holds many idle or half-sent TCP connections to a server, the
 * slow-client load of the serve tests (tests/serve/check.sh, bench.sh).
 *
 * rdmastat-flood [--sources LIST] [--send BYTES] [--timeout MS] HOST PORT N SECONDS
 *
 * Opens N TCP connections to HOST:PORT (numeric IPv4 or IPv6, "[::1]" too),
 * each bound to the next address of LIST in round robin before connect()
 * (LIST: comma-separated addresses and IPv4 ranges, "127.0.0.2-127.0.0.9"),
 * and writes BYTES on each (C escapes \r \n \t \\ \xHH), e.g. the half request
 * 'GET /metrics HTTP/1.1\r\nHost: x\r\n' with no final blank line. Raises its
 * own RLIMIT_NOFILE soft limit to the hard limit. Once all are connected it
 * prints "held N" and holds them SECONDS (0: until a signal), or until SIGTERM
 * or SIGINT, then prints "closed K of N": how many the server had closed
 * (end of stream, a reset or a failed send), and "answered A of N": how many
 * had received bytes. Each connect is bounded by --timeout (default 5000 ms);
 * if one cannot be opened it says which and why and exits 1. Usage errors: 2.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_SOURCES 4096
#define WINDOW 256
#define SOURCE(i) (nsources ? &sources[(i) % nsources] : NULL)

static struct sockaddr_storage sources[MAX_SOURCES];
static socklen_t source_lens[MAX_SOURCES];
static int nsources;
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: rdmastat-flood [--sources LIST] [--send BYTES] [--timeout MS] "
			"HOST PORT N SECONDS\n");
	exit(2);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static long number(const char *s, long min, long max, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "rdmastat-flood: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

/* Numeric address (brackets allowed around IPv6) with port into ss. */
static socklen_t parse_addr(const char *text, unsigned short port, struct sockaddr_storage *ss)
{
	char buf[INET6_ADDRSTRLEN + 2];
	size_t n = strlen(text);
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	if (n >= sizeof(buf))
		return 0;
	memcpy(buf, text, n + 1);
	if (n >= 2 && buf[0] == '[' && buf[n - 1] == ']') {
		buf[n - 1] = 0;
		memmove(buf, buf + 1, n - 1);
	}
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, buf, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		return sizeof(*sin);
	}
	if (inet_pton(AF_INET6, buf, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		return sizeof(*sin6);
	}
	return 0;
}

static void add_source(const struct sockaddr_storage *ss, socklen_t len)
{
	if (nsources == MAX_SOURCES) {
		fprintf(stderr, "rdmastat-flood: more than %d source addresses\n", MAX_SOURCES);
		exit(2);
	}
	sources[nsources] = *ss;
	source_lens[nsources++] = len;
}

/* "A,B,C-D": addresses and inclusive IPv4 ranges. */
static void parse_sources(const char *list)
{
	char *copy = strdup(list), *save = NULL, *item;

	if (!copy)
		exit(2);
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		struct sockaddr_storage a, b;
		char *dash = strchr(item, '-');
		socklen_t la, lb;
		unsigned long lo, hi, i;

		if (!dash) {
			la = parse_addr(item, 0, &a);
			if (!la) {
				fprintf(stderr, "rdmastat-flood: bad source address '%s'\n", item);
				exit(2);
			}
			add_source(&a, la);
			continue;
		}
		*dash = 0;
		la = parse_addr(item, 0, &a);
		lb = parse_addr(dash + 1, 0, &b);
		if (!la || !lb || a.ss_family != AF_INET || b.ss_family != AF_INET) {
			fprintf(stderr, "rdmastat-flood: bad source range '%s-%s' (IPv4 only)\n",
				item, dash + 1);
			exit(2);
		}
		lo = ntohl(((struct sockaddr_in *)&a)->sin_addr.s_addr);
		hi = ntohl(((struct sockaddr_in *)&b)->sin_addr.s_addr);
		if (lo > hi || hi - lo >= MAX_SOURCES) {
			fprintf(stderr, "rdmastat-flood: bad source range '%s-%s'\n", item, dash + 1);
			exit(2);
		}
		for (i = lo; i <= hi; i++) {
			((struct sockaddr_in *)&a)->sin_addr.s_addr = htonl((uint32_t)i);
			add_source(&a, la);
		}
	}
	free(copy);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* C escapes \r \n \t \0 \\ \xHH, in place; returns the length. */
static size_t unescape(char *s)
{
	char *r = s, *w = s;

	while (*r) {
		if (*r != '\\' || !r[1]) {
			*w++ = *r++;
			continue;
		}
		r++;
		switch (*r) {
		case 'r': *w++ = '\r'; r++; break;
		case 'n': *w++ = '\n'; r++; break;
		case 't': *w++ = '\t'; r++; break;
		case '0': *w++ = '\0'; r++; break;
		case 'x':
			if (hexval(r[1]) >= 0 && hexval(r[2]) >= 0) {
				*w++ = (char)(hexval(r[1]) * 16 + hexval(r[2]));
				r += 3;
				break;
			}
			/* fall through */
		default: *w++ = *r++; break;
		}
	}
	return (size_t)(w - s);
}

static const char *describe(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	const void *a = ss->ss_family == AF_INET
		? (const void *)&((const struct sockaddr_in *)ss)->sin_addr
		: (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr;

	if (!inet_ntop(ss->ss_family, a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

/*
 * Starts one non-blocking connect, bound to src (if any). Returns the socket,
 * *done set if it connected at once, or -1 with *why.
 */
static int start_one(const struct sockaddr_storage *dst, socklen_t dlen,
		     const struct sockaddr_storage *src, socklen_t slen, int *done,
		     const char **why)
{
	int fd;

	*done = 0;
	fd = socket(dst->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		*why = strerror(errno);
		return -1;
	}
#ifdef IP_BIND_ADDRESS_NO_PORT
	/* The ephemeral port is chosen at connect(), per destination. */
	if (src) {
		int one = 1;

		setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
	}
#endif
	if (src && bind(fd, (const struct sockaddr *)src, slen) < 0) {
		*why = errno == EADDRNOTAVAIL ? "bind: address not available (not a local address?)"
					      : strerror(errno);
		close(fd);
		return -1;
	}
	if (connect(fd, (const struct sockaddr *)dst, dlen) == 0) {
		*done = 1;
		return fd;
	}
	if (errno != EINPROGRESS) {
		*why = strerror(errno);
		close(fd);
		return -1;
	}
	return fd;
}

/* Sends all of data within timeout_ms; 0, or -1 if the peer is gone. */
static int send_all(int fd, const char *data, size_t len, int timeout_ms)
{
	struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };

	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	while (len) {
		ssize_t n = send(fd, data, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/* A connection is up: back to blocking, and sends the payload. */
static void connected(int fd, long i, const char *payload, size_t len, int timeout_ms, int *gone)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	if (len && send_all(fd, payload, len, timeout_ms) < 0)
		gone[i] = 1; /* the server closed it already */
}

int main(int argc, char **argv)
{
	const char *host, *send_text = NULL;
	char *payload = NULL, buf[4096], abuf[INET6_ADDRSTRLEN];
	size_t payload_len = 0;
	struct sockaddr_storage dst;
	socklen_t dlen;
	struct rlimit rl;
	struct sigaction sa;
	long port, n, seconds, i, timeout_ms = 5000, closed = 0, answered = 0;
	int *fds, *gone, argi = 1;
	long long end, pend_start[WINDOW];
	long pend_idx[WINDOW], inflight = 0;
	struct pollfd *pend = calloc(WINDOW, sizeof(*pend));

	while (argi < argc && !strncmp(argv[argi], "--", 2)) {
		if (!strcmp(argv[argi], "--")) {
			argi++;
			break;
		}
		if (argi + 1 >= argc)
			usage();
		if (!strcmp(argv[argi], "--sources"))
			parse_sources(argv[argi + 1]);
		else if (!strcmp(argv[argi], "--send"))
			send_text = argv[argi + 1];
		else if (!strcmp(argv[argi], "--timeout"))
			timeout_ms = number(argv[argi + 1], 1, 600000, "--timeout");
		else
			usage();
		argi += 2;
	}
	if (argc - argi != 4)
		usage();
	host = argv[argi];
	port = number(argv[argi + 1], 1, 65535, "port");
	n = number(argv[argi + 2], 1, 1000000, "connection count");
	seconds = number(argv[argi + 3], 0, 86400, "seconds");
	dlen = parse_addr(host, (unsigned short)port, &dst);
	if (!dlen) {
		fprintf(stderr, "rdmastat-flood: bad host '%s' (a numeric address)\n", host);
		return 2;
	}
	for (i = 0; i < nsources; i++) {
		if (sources[i].ss_family != dst.ss_family) {
			fprintf(stderr, "rdmastat-flood: source %s is not of the host's family\n",
				describe(&sources[i], abuf, sizeof(abuf)));
			return 2;
		}
	}
	if (send_text) {
		payload = strdup(send_text);
		if (!payload)
			return 2;
		payload_len = unescape(payload);
	}

	/* Raise the descriptor limit as far as the hard limit allows. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    (rlim_t)n + 16 > rl.rlim_cur) {
		fprintf(stderr, "rdmastat-flood: %ld connections need more descriptors than "
				"RLIMIT_NOFILE allows (%llu)\n", n, (unsigned long long)rl.rlim_cur);
		return 1;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	fds = calloc((size_t)n, sizeof(*fds));
	gone = calloc((size_t)n, sizeof(*gone));
	if (!fds || !gone || !pend)
		return 1;
	/*
	 * Up to WINDOW connects in flight at once, each bounded by timeout_ms: a
	 * server slow to accept (a short listen backlog) costs SYN retries, in
	 * parallel rather than one after the other.
	 */
	for (i = 0; !stop && (i < n || inflight);) {
		const char *why = "connect timed out";
		long k, failed = -1;

		while (i < n && inflight < WINDOW) {
			const struct sockaddr_storage *src = SOURCE(i);
			int done;

			fds[i] = start_one(&dst, dlen, src, src ? source_lens[i % nsources] : 0,
					   &done, &why);
			if (fds[i] < 0) {
				failed = i;
				break;
			}
			if (done) {
				connected(fds[i], i, payload, payload_len, (int)timeout_ms, gone);
			} else {
				pend[inflight].fd = fds[i];
				pend[inflight].events = POLLOUT;
				pend[inflight].revents = 0;
				pend_idx[inflight] = i;
				pend_start[inflight++] = now_ms();
			}
			i++;
		}
		if (failed < 0 && inflight && poll(pend, (nfds_t)inflight, 50) < 0 && errno != EINTR) {
			why = strerror(errno);
			failed = pend_idx[0];
		}
		for (k = 0; failed < 0 && k < inflight;) {
			int err = 0;
			socklen_t elen = sizeof(err);

			if (pend[k].revents) {
				if (getsockopt(pend[k].fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0 || err) {
					why = strerror(err ? err : errno);
					failed = pend_idx[k];
					break;
				}
				connected(pend[k].fd, pend_idx[k], payload, payload_len,
					  (int)timeout_ms, gone);
			} else if (now_ms() - pend_start[k] > timeout_ms) {
				failed = pend_idx[k];
				break;
			} else {
				k++;
				continue;
			}
			inflight--; /* drop slot k: the last one takes its place */
			pend[k] = pend[inflight];
			pend_idx[k] = pend_idx[inflight];
			pend_start[k] = pend_start[inflight];
		}
		if (failed >= 0) {
			const struct sockaddr_storage *src = SOURCE(failed);

			fprintf(stderr, "rdmastat-flood: connection %ld of %ld to %s port %ld%s%s: %s\n",
				failed + 1, n, host, port, src ? " from " : "",
				src ? describe(src, abuf, sizeof(abuf)) : "", why);
			return 1;
		}
	}
	if (stop) {
		fprintf(stderr, "rdmastat-flood: interrupted after %ld of %ld connects\n", i, n);
		return 1;
	}
	printf("held %ld\n", n);
	fflush(stdout);

	end = now_ms() + seconds * 1000;
	while (!stop && (seconds == 0 || now_ms() < end))
		poll(NULL, 0, 50);

	/* Which did the server close? End of stream, a reset or a failed send. */
	for (i = 0; i < n; i++) {
		struct pollfd p = { fds[i], POLLIN, 0 };
		int got = 0, reads = 0;

		while (!gone[i] && reads++ < 256 && poll(&p, 1, 0) > 0) {
			ssize_t r = recv(fds[i], buf, sizeof(buf), MSG_DONTWAIT);

			if (r > 0) {
				got = 1;
				continue;
			}
			if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
				break;
			gone[i] = 1;
		}
		closed += gone[i];
		answered += got;
		close(fds[i]);
	}
	printf("closed %ld of %ld\n", closed, n);
	printf("answered %ld of %ld\n", answered, n);
	fflush(stdout);
	free(fds);
	free(gone);
	free(payload);
	free(pend);
	return 0;
}
