// SPDX-License-Identifier: MIT
/*
 * rdmastat-timeit RUNS CMD [ARG...]: runs CMD RUNS times with its output
 * discarded and prints "MEDIAN_US BEST_US MAXRSS_KIB": the median and fastest
 * wall time in microseconds (monotonic clock) and the largest peak resident set
 * of any run (wait4's ru_maxrss). Exits 1 if any run fails. The lab's busybox
 * has no sub-second clock in date(1) nor a time(1) that reports memory.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int by_value(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long runs, i;
	long long *times, median;
	long maxrss = 0;

	if (argc < 3 || (runs = strtol(argv[1], NULL, 10)) < 1 ||
	    !(times = calloc((size_t)runs, sizeof(*times)))) {
		fprintf(stderr, "usage: rdmastat-timeit RUNS CMD [ARG...]\n");
		return 2;
	}
	for (i = 0; i < runs; i++) {
		long long t0 = now_us();
		int status;
		struct rusage ru;
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			int null = open("/dev/null", O_WRONLY);

			dup2(null, 1);
			dup2(null, 2);
			execvp(argv[2], argv + 2);
			_exit(127);
		}
		if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "rdmastat-timeit: %s failed\n", argv[2]);
			return 1;
		}
		times[i] = now_us() - t0;
		if (ru.ru_maxrss > maxrss)
			maxrss = ru.ru_maxrss;
	}
	qsort(times, (size_t)runs, sizeof(*times), by_value);
	median = runs % 2 ? times[runs / 2] : (times[runs / 2 - 1] + times[runs / 2]) / 2;
	printf("%lld %lld %ld\n", median, times[0], maxrss);
	free(times);
	return 0;
}
