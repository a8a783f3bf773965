// SPDX-License-Identifier: MIT
/*
 * rdmastat-timeit RUNS CMD [ARG...]: runs CMD RUNS times with its output
 * discarded and prints "MEDIAN_US BEST_US MAXRSS_KIB USER_US SYS_US MINFLT":
 * the median and fastest wall time in microseconds (monotonic clock), the
 * largest peak resident set of any run (wait4's ru_maxrss), and the medians of
 * the CPU time spent in user space and in the kernel (microseconds) and of the
 * minor page faults: where the wall time went. Exits 1 if any run fails. The
 * lab's busybox has no sub-second clock in date(1) nor a time(1) that reports
 * memory.
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

/* Sorts v (runs values) and returns their median. */
static long long median_of(long long *v, long runs)
{
	qsort(v, (size_t)runs, sizeof(*v), by_value);
	return runs % 2 ? v[runs / 2] : (v[runs / 2 - 1] + v[runs / 2]) / 2;
}

static long long tv_us(struct timeval tv)
{
	return (long long)tv.tv_sec * 1000000 + tv.tv_usec;
}

int main(int argc, char **argv)
{
	long runs, i;
	long long *times, *user, *sys, *faults, median;
	long maxrss = 0;

	if (argc < 3 || (runs = strtol(argv[1], NULL, 10)) < 1 ||
	    !(times = calloc((size_t)runs * 4, sizeof(*times)))) {
		fprintf(stderr, "usage: rdmastat-timeit RUNS CMD [ARG...]\n");
		return 2;
	}
	user = times + runs;
	sys = user + runs;
	faults = sys + runs;
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
		user[i] = tv_us(ru.ru_utime);
		sys[i] = tv_us(ru.ru_stime);
		faults[i] = ru.ru_minflt;
		if (ru.ru_maxrss > maxrss)
			maxrss = ru.ru_maxrss;
	}
	median = median_of(times, runs);
	printf("%lld %lld %ld %lld %lld %lld\n", median, times[0], maxrss, median_of(user, runs),
	       median_of(sys, runs), median_of(faults, runs));
	free(times);
	return 0;
}
