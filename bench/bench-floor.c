/* SPDX-License-Identifier: ISC */
/*
 * bench-floor: what the transport alone costs (docs/performance.md, "The floor under the
 * daemon"). A client and an answering process exchange the frames of a SIGN request and of its
 * raw response over --connections Unix stream connections (64 by default), one request in flight
 * on each, both sides driven by epoll as bench-load and p256signd's parent are, for --seconds.
 * Nothing is parsed or signed: the CPU time both processes spend per round trip is the least any
 * daemon behind such a socket adds to a signature when its clients share the machine's CPUs.
 * --light is the floor of bench-load's light-load row instead: one connection, a request every
 * 1,000 us, passed by a relay (epoll, as the parent) to an answerer (a blocking read, as a
 * signer) and back; each process's CPU time per request, the answerer signing nothing.
 *   bench-floor [--connections N | --light] [--seconds S] [--json]
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench-clock.h"
#include "proc-cpu.h"
#include "proto.h"

#define MAX_CONNS 1024
#define FRAME_MAX 256
#define LIGHT_INTERVAL_US 1000	/* --light: bench-load's light-load row */

struct frames {
	uint8_t request[FRAME_MAX], response[FRAME_MAX];
	size_t request_len, response_len;
};

/* The frames bench-load and p256signd exchange: SIGN by name "bench", raw r || s back. */
static int make_frames(struct frames *f)
{
	struct proto_request req = { .h = { .version = PROTO_VERSION, .type = PROTO_SIGN },
		.format = PROTO_FORMAT_RAW };
	struct proto_response resp = { .h = { .version = PROTO_VERSION,
		.type = PROTO_SIGN | PROTO_RESPONSE }, .format = PROTO_FORMAT_RAW, .sig_len = 64 };

	if (proto_key_name(&req.key, "bench") != 0)
		return -1;
	memset(req.digest, 0x5a, sizeof(req.digest));
	memset(resp.sig, 0xa5, resp.sig_len);
	if (proto_encode_request(&req, f->request, sizeof(f->request), &f->request_len) != 0 ||
	    proto_encode_response(&resp, f->response, sizeof(f->response), &f->response_len) != 0)
		return -1;
	return 0;
}

static int write_frame(int fd, const uint8_t *p, size_t n)
{
	ssize_t w;

	do
		w = write(fd, p, n);
	while (w < 0 && errno == EINTR);
	return w == (ssize_t)n ? 0 : -1;	/* a frame this small fits a socket buffer whole */
}

/*
 * Reads whatever is ready on each connection and sends one frame back for each `expect` bytes
 * received, until every connection is closed (answerer) or the deadline passes (client, which
 * then stops sending). Counts the frames received.
 */
static int pump(const int *fd, unsigned n, size_t expect, const uint8_t *reply, size_t reply_len,
	double deadline, unsigned long *frames)
{
	struct epoll_event ev[64];
	size_t *have = calloc(n, sizeof(*have));
	unsigned open = n, inflight = 0;
	int ep = epoll_create1(EPOLL_CLOEXEC), r = -1;

	*frames = 0;
	if (have == NULL || ep < 0)
		goto out;
	for (unsigned i = 0; i < n; i++) {
		struct epoll_event e = { .events = EPOLLIN, .data.u32 = i };

		if (epoll_ctl(ep, EPOLL_CTL_ADD, fd[i], &e) != 0)
			goto out;
	}
	if (deadline > 0) {			/* the client starts every connection */
		for (unsigned i = 0; i < n; i++)
			if (write_frame(fd[i], reply, reply_len) != 0)
				goto out;
		inflight = n;
	}
	while (deadline > 0 ? inflight > 0 : open > 0) {
		int k = epoll_wait(ep, ev, 64, 5000);

		if (k <= 0)
			goto out;
		for (int j = 0; j < k; j++) {
			unsigned i = ev[j].data.u32;
			uint8_t buf[4096];
			ssize_t got = read(fd[i], buf, sizeof(buf));

			if (got == 0 && deadline <= 0) {
				epoll_ctl(ep, EPOLL_CTL_DEL, fd[i], NULL);
				open--;
				continue;
			}
			if (got <= 0)
				goto out;
			for (have[i] += (size_t)got; have[i] >= expect; have[i] -= expect) {
				(*frames)++;
				if (deadline > 0 && mono_s() >= deadline) {
					inflight--;
					continue;
				}
				if (write_frame(fd[i], reply, reply_len) != 0)
					goto out;
			}
		}
	}
	r = 0;
out:
	free(have);
	if (ep >= 0)
		close(ep);
	return r;
}

/* Reads exactly n bytes from fd (blocking); 0, or -1 at an error or the end of the stream. */
static int read_frame(int fd, uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t got = read(fd, p, n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return -1;
		p += got;
		n -= (size_t)got;
	}
	return 0;
}

/* --light's answerer: a blocking read of each request, its response written back. */
static int answer(int fd, const struct frames *f)
{
	uint8_t buf[FRAME_MAX];

	while (read_frame(fd, buf, f->request_len) == 0)
		if (write_frame(fd, f->response, f->response_len) != 0)
			return 1;
	return 0;
}

/* --light's relay: the client's requests to the answerer and its responses back, both ends
 * waited for with epoll as the parent waits for its clients and signers. */
static int relay(int client, int answerer, const struct frames *f)
{
	struct epoll_event e = { .events = EPOLLIN };
	uint8_t buf[FRAME_MAX];
	int ep = epoll_create1(EPOLL_CLOEXEC), r = 1;

	e.data.fd = client;
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, client, &e) != 0)
		goto out;
	e.data.fd = answerer;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, answerer, &e) != 0)
		goto out;
	for (;;) {
		int k = epoll_wait(ep, &e, 1, 5000), from_client;

		if (k < 0 && errno == EINTR)
			continue;
		if (k != 1)
			goto out;
		from_client = e.data.fd == client;
		if (read_frame(e.data.fd, buf, from_client ? f->request_len : f->response_len) != 0)
			break;			/* the client is done */
		if (write_frame(from_client ? answerer : client, buf,
		    from_client ? f->request_len : f->response_len) != 0)
			goto out;
	}
	r = 0;
out:
	if (ep >= 0)
		close(ep);
	return r;
}

/* Both processes' CPU seconds, read before they are reaped. */
struct light_cpu {
	double relay, answerer;
};

/* The client's side of --light: a request, its response, a sleep to the next due time. */
static int light_client(int fd, const struct frames *f, double seconds, unsigned long *n,
	pid_t relay_pid, pid_t answer_pid, struct light_cpu *cpu)
{
	uint8_t buf[FRAME_MAX];
	double r0 = proc_cpu_s(relay_pid), a0 = proc_cpu_s(answer_pid), end = mono_s() + seconds;
	uint64_t due = mono_ns();

	for (*n = 0; mono_s() < end; (*n)++) {
		struct timespec ts;

		if (write_frame(fd, f->request, f->request_len) != 0 ||
		    read_frame(fd, buf, f->response_len) != 0)
			return -1;
		due += LIGHT_INTERVAL_US * 1000ULL;
		ts = (struct timespec){ .tv_sec = (time_t)(due / 1000000000ULL),
			.tv_nsec = (long)(due % 1000000000ULL) };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	cpu->relay = proc_cpu_s(relay_pid) - r0;
	cpu->answerer = proc_cpu_s(answer_pid) - a0;
	return 0;
}

/* --light: client -> relay -> answerer -> relay -> client, a request every 1,000 us. */
static int light(const struct frames *f, double seconds, int json)
{
	int cs[2] = { -1, -1 }, as[2] = { -1, -1 }, r = 1;
	pid_t rp = -1, ap = -1;
	unsigned long n = 0;
	struct light_cpu cpu;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, cs) != 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, as) != 0)
		goto out;
	/* Each child keeps only its own ends, so that each sees the end of the stream before it. */
	if ((ap = fork()) == 0) {
		close(cs[0]);
		close(cs[1]);
		close(as[0]);
		_exit(answer(as[1], f));
	}
	if (ap < 0)
		goto out;
	close(as[1]);
	as[1] = -1;
	if ((rp = fork()) == 0) {
		close(cs[0]);
		_exit(relay(cs[1], as[0], f));
	}
	if (rp < 0)
		goto out;
	close(cs[1]);
	close(as[0]);
	cs[1] = as[0] = -1;
	if (light_client(cs[0], f, seconds, &n, rp, ap, &cpu) != 0 || n == 0)
		goto out;
	if (json)
		printf("{\"interval_us\": %u, \"requests\": %lu, \"cpu_us_per_request\": "
		    "{\"relay\": %.2f, \"answerer\": %.2f}}\n", LIGHT_INTERVAL_US, n,
		    cpu.relay / (double)n * 1e6, cpu.answerer / (double)n * 1e6);
	else
		printf("a request every %u us through a relay to an answerer: CPU per request: relay "
		    "%.2f us, answerer %.2f us (%lu requests)\n", LIGHT_INTERVAL_US,
		    cpu.relay / (double)n * 1e6, cpu.answerer / (double)n * 1e6, n);
	r = 0;
out:
	for (int i = 0; i < 2; i++) {
		if (cs[i] >= 0)
			close(cs[i]);
		if (as[i] >= 0)
			close(as[i]);
	}
	if (rp > 0)
		waitpid(rp, NULL, 0);		/* the relay leaves when the client's end closes */
	if (ap > 0)
		waitpid(ap, NULL, 0);		/* then the answerer, when the relay's does */
	if (r != 0)
		fprintf(stderr, "bench-floor: --light failed: %s\n", strerror(errno));
	return r;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench-floor [--connections N | --light] [--seconds S] [--json]\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "connections", required_argument, NULL, 'c' },
		{ "seconds", required_argument, NULL, 't' }, { "json", no_argument, NULL, 'j' },
		{ "light", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	struct frames f;
	unsigned long conns = 64, frames = 0, answered;
	double seconds = 3, start, elapsed, cpu;
	int json = 0, light_load = 0, ch, r = 1, status, *cfd = NULL, *afd = NULL;
	unsigned made = 0, cmade = 0, amade = 0; /* socketpairs made; ends still open */
	pid_t pid = -1;

	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case 'c': conns = strtoul(optarg, NULL, 10); break;
		case 't': seconds = strtod(optarg, NULL); break;
		case 'j': json = 1; break;
		case 'l': light_load = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc || conns == 0 || conns > MAX_CONNS || !(seconds > 0 && seconds <= 3600)) {
		usage(stderr);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (light_load)
		return make_frames(&f) != 0 ? 1 : light(&f, seconds, json);
	if (make_frames(&f) != 0 || (cfd = calloc(conns, sizeof(int))) == NULL ||
	    (afd = calloc(conns, sizeof(int))) == NULL)
		goto out;
	for (; made < conns; made++) {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
			break;
		cfd[made] = sv[0];
		afd[made] = sv[1];
	}
	cmade = amade = made;
	if (made < conns || (pid = fork()) < 0)
		goto out;
	if (pid == 0) {
		for (unsigned i = 0; i < made; i++)
			close(cfd[i]);
		_exit(pump(afd, made, f.request_len, f.response, f.response_len, 0, &answered) ? 1 : 0);
	}
	for (unsigned i = 0; i < made; i++)
		close(afd[i]);
	amade = 0;
	start = mono_s();
	/* The client sends requests and expects responses: the roles' frames swap. */
	if (pump(cfd, made, f.response_len, f.request, f.request_len, start + seconds,
	    &frames) != 0)
		goto out;
	elapsed = mono_s() - start;
	for (unsigned i = 0; i < made; i++)
		close(cfd[i]);
	cmade = 0;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		goto out;
	pid = -1;
	cpu = rusage_cpu_s(RUSAGE_SELF) + rusage_cpu_s(RUSAGE_CHILDREN);
	if (json)
		printf("{\"request_bytes\": %zu, \"response_bytes\": %zu, \"round_trips_per_s\": %.0f, "
		    "\"cpu_us_per_round_trip\": %.2f}\n", f.request_len, f.response_len,
		    (double)frames / elapsed, cpu / (double)frames * 1e6);
	else
		printf("%zu-byte requests, %zu-byte responses: %.0f round trips/s; %.2f us of CPU per "
		    "round trip, both sides together\n", f.request_len, f.response_len,
		    (double)frames / elapsed, cpu / (double)frames * 1e6);
	r = frames > 0 ? 0 : 1;
out:
	for (unsigned i = 0; i < amade; i++)
		close(afd[i]);
	for (unsigned i = 0; i < cmade; i++)
		close(cfd[i]);
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	free(cfd);
	free(afd);
	if (r != 0)
		fprintf(stderr, "bench-floor: failed: %s\n", strerror(errno));
	return r;
}
