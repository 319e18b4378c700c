/* SPDX-License-Identifier: ISC */
#ifndef P256SIGN_BENCH_PROC_CPU_H
#define P256SIGN_BENCH_PROC_CPU_H

/* CPU time and wake-ups of other processes from /proc, shared by bench-load and
 * bench-handshake. */
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* CPU seconds used so far by process pid, from /proc/PID/stat (utime and stime); 0 if gone. */
static inline double proc_cpu_s(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut = 0, st = 0;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* After the command name in parentheses: state is field 3, utime 14, stime 15. */
	if ((p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return 0;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/*
 * CPU seconds of pid's descendants (the children its main thread forked, theirs, ...): the
 * daemon's key-holder and signers, a server's workers.
 */
static inline double descendants_cpu_s(pid_t pid)
{
	char path[64];
	FILE *f;
	int child;
	double sum = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	while (fscanf(f, "%d", &child) == 1)
		sum += proc_cpu_s(child) + descendants_cpu_s(child);
	fclose(f);
	return sum;
}

/* The children pid's main thread forked, at most max of them in out: how many. */
static inline size_t proc_children(pid_t pid, pid_t *out, size_t max)
{
	char path[64];
	FILE *f;
	int child;
	size_t n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	while (n < max && fscanf(f, "%d", &child) == 1)
		out[n++] = (pid_t)child;
	fclose(f);
	return n;
}

/*
 * Context switches of pid so far (voluntary, each a sleep it was woken from, plus involuntary):
 * its wake-ups; 0 if gone.
 */
static inline unsigned long proc_switches(pid_t pid)
{
	char path[64], line[256];
	unsigned long sum = 0, v;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "voluntary_ctxt_switches: %lu", &v) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %lu", &v) == 1)
			sum += v;
	fclose(f);
	return sum;
}

#endif
