/* SPDX-License-Identifier: ISC */
/*
 * bench-handshake: full TLS handshakes against HTTPS servers on 127.0.0.1, several connections
 * in parallel, each one a new TCP connection, a new handshake (no session resumption), one
 * "GET /" and its answer read to the end (so the server has finished its side too).
 *
 *   bench-handshake --target NAME,PORT[,PID...] [--target ...] [--daemon PID] [--cafile PEM]
 *                   [--tls1_2] [--parallel P] (--count N | --seconds S) [--rounds R]
 *
 * With several targets the run alternates between them: each round measures every target in
 * turn, so a machine shared with other work disturbs them alike. Per target it reports, as one
 * JSON object on stdout: handshakes/s (the median of the rounds, and each round's in the order
 * they ran), p50 and p99 handshake latency
 * (TCP connect to the end of SSL_connect, over all rounds' samples), and the CPU time per
 * handshake of the server's processes (each PID given and all its descendants) and of the
 * daemon's (--daemon PID and its descendants), both read from /proc/PID/stat (utime + stime)
 * before and after each round, medians of the rounds. With --cafile every certificate is
 * verified (a handshake that does not verify counts as a failure); the client verifies the
 * server's CertificateVerify or ServerKeyExchange signature in every handshake anyway.
 * Exit status 0 when every handshake succeeded, 1 otherwise (the figures are printed either
 * way), 2 for bad arguments.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench-clock.h"
#include "proc-cpu.h"

#define MAX_TARGETS 8
#define MAX_PIDS 8
#define MAX_THREADS 64
#define MAX_ROUNDS 99
#define MAX_SAMPLES 2000000

struct target {
	char name[32];
	int port;
	pid_t pids[MAX_PIDS];
	int npids;
	/* Per round. */
	double rate[MAX_ROUNDS], server_cpu[MAX_ROUNDS], daemon_cpu[MAX_ROUNDS];
	/* All rounds: latencies in microseconds. */
	double *lat;
	size_t nlat;
	long handshakes, failures;
	char first_error[200];
};

static struct {
	struct target targets[MAX_TARGETS];
	int ntargets;
	pid_t daemon;
	const char *cafile;
	int tls12;
	int parallel;
	long count;
	double seconds;
	int rounds;
} opt = { .parallel = 1, .rounds = 1 };

static SSL_CTX *ctx;

/* One target's round, shared by its threads. */
struct round {
	struct target *t;
	atomic_long next;	/* handshakes started (count mode) */
	double deadline;	/* seconds mode */
	pthread_mutex_t lock;	/* t->lat, t->failures, t->first_error */
};

static void usage(void)
{
	fprintf(stderr, "usage: bench-handshake --target NAME,PORT[,PID...] [--target ...] "
		"[--daemon PID] [--cafile PEM] [--tls1_2] [--parallel P] (--count N | --seconds S) "
		"[--rounds R]\n");
	exit(2);
}

/* ---- CPU time from /proc -------------------------------------------------------------------- */

/* CPU seconds of the processes pids and of their descendants. */
static double cpu_s(const pid_t *pids, int n)
{
	double sum = 0;

	for (int i = 0; i < n; i++)
		sum += proc_cpu_s(pids[i]) + descendants_cpu_s(pids[i]);
	return sum;
}

/* ---- one handshake -------------------------------------------------------------------------- */

static void failed(struct round *r, const char *what)
{
	unsigned long e = ERR_peek_last_error();
	char reason[160] = "";

	if (e != 0)
		ERR_error_string_n(e, reason, sizeof(reason));
	ERR_clear_error();
	pthread_mutex_lock(&r->lock);
	if (r->t->failures++ == 0)
		snprintf(r->t->first_error, sizeof(r->t->first_error), "%s: %s", what,
			reason[0] ? reason : strerror(errno));
	pthread_mutex_unlock(&r->lock);
}

/* Connects, handshakes, asks for "/" and reads the answer; the handshake's latency into *us. */
static int handshake(struct round *r, double *us)
{
	static const char request[] = "GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)r->t->port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	char buf[512], head[16] = "";
	int fd, one = 1, n, got = 0, ok = -1;
	SSL *ssl = NULL;
	double start = mono_s();

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) {
		failed(r, "socket");
		return -1;
	}
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		failed(r, "connect");
		goto out;
	}
	if ((ssl = SSL_new(ctx)) == NULL || !SSL_set_fd(ssl, fd) ||
	    !SSL_set_tlsext_host_name(ssl, "localhost") || !SSL_set1_host(ssl, "localhost")) {
		failed(r, "SSL_new");
		goto out;
	}
	if (SSL_connect(ssl) != 1) {
		failed(r, "handshake");
		goto out;
	}
	*us = (mono_s() - start) * 1e6;
	if (SSL_write(ssl, request, (int)sizeof(request) - 1) != (int)sizeof(request) - 1) {
		failed(r, "write");
		goto out;
	}
	/* Read to the end; the answer's first bytes are kept for the status line. */
	while ((n = SSL_read(ssl, buf, (int)sizeof(buf))) > 0)
		for (int i = 0; i < n && got < (int)sizeof(head) - 1; i++)
			head[got++] = buf[i];
	if (strncmp(head, "HTTP/1.1 200", 12) != 0 && strncmp(head, "HTTP/1.0 200", 12) != 0) {
		errno = EPROTO;
		failed(r, "no 200 answer");
		goto out;
	}
	ok = 0;
out:
	SSL_free(ssl);
	close(fd);
	return ok;
}

static void *worker(void *arg)
{
	struct round *r = arg;
	double us;

	for (;;) {
		if (opt.count > 0 ? atomic_fetch_add(&r->next, 1) >= opt.count :
		    mono_s() >= r->deadline)
			break;
		if (handshake(r, &us) != 0)
			continue;
		pthread_mutex_lock(&r->lock);
		if (r->t->nlat < MAX_SAMPLES)
			r->t->lat[r->t->nlat++] = us;
		r->t->handshakes++;
		pthread_mutex_unlock(&r->lock);
	}
	return NULL;
}

/* One round of one target: P threads, then the rate and the CPU per handshake. */
static void run_round(struct target *t, int round)
{
	struct round r = { .t = t, .lock = PTHREAD_MUTEX_INITIALIZER };
	pthread_t th[MAX_THREADS];
	long before = t->handshakes;
	double server0 = cpu_s(t->pids, t->npids), daemon0 = cpu_s(&opt.daemon, opt.daemon > 0);
	double start = mono_s(), elapsed, done;

	r.deadline = start + opt.seconds;
	for (int i = 0; i < opt.parallel; i++)
		if (pthread_create(&th[i], NULL, worker, &r) != 0) {
			perror("bench-handshake: pthread_create");
			exit(1);
		}
	for (int i = 0; i < opt.parallel; i++)
		pthread_join(th[i], NULL);
	elapsed = mono_s() - start;
	done = (double)(t->handshakes - before);
	t->rate[round] = done / elapsed;
	t->server_cpu[round] = done > 0 ? (cpu_s(t->pids, t->npids) - server0) / done * 1e6 : 0;
	t->daemon_cpu[round] = done > 0 && opt.daemon > 0 ?
		(cpu_s(&opt.daemon, 1) - daemon0) / done * 1e6 : 0;
}

/* ---- figures -------------------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The q-quantile (nearest rank) of v[0..n-1], sorted in place; 0 for none. */
static double quantile(double *v, size_t n, double q)
{
	size_t i;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	i = (size_t)(q * (double)n);
	return v[i < n ? i : n - 1];
}

/* The median of a per-round figure, the rounds left in their order. */
static double round_median(const double *v)
{
	double copy[MAX_ROUNDS];

	memcpy(copy, v, (size_t)opt.rounds * sizeof(*v));
	return quantile(copy, (size_t)opt.rounds, 0.5);
}

static void print_target(struct target *t, int last)
{
	printf("  {\"name\": \"%s\", \"port\": %d, \"handshakes\": %ld, \"failures\": %ld, "
		"\"handshakes_per_s\": %.1f, \"p50_us\": %.1f, \"p99_us\": %.1f, "
		"\"server_cpu_us_per_handshake\": %.1f, \"daemon_cpu_us_per_handshake\": %.1f, "
		"\"rounds_handshakes_per_s\": [", t->name, t->port, t->handshakes, t->failures,
		round_median(t->rate), quantile(t->lat, t->nlat, 0.5),
		quantile(t->lat, t->nlat, 0.99), round_median(t->server_cpu),
		round_median(t->daemon_cpu));
	/* In the order they ran: round i of every target ran close together in time. */
	for (int i = 0; i < opt.rounds; i++)
		printf("%s%.1f", i ? ", " : "", t->rate[i]);
	printf("]");
	if (t->failures)
		printf(", \"first_error\": \"%s\"", t->first_error);
	printf("}%s\n", last ? "" : ",");
}

/* ---- arguments ------------------------------------------------------------------------------ */

static void parse_target(const char *arg)
{
	struct target *t;
	char copy[256], *tok, *save, *end;

	if (opt.ntargets == MAX_TARGETS || strlen(arg) >= sizeof(copy))
		usage();
	t = &opt.targets[opt.ntargets++];
	strcpy(copy, arg);
	if ((tok = strtok_r(copy, ",", &save)) == NULL || strlen(tok) >= sizeof(t->name) ||
	    strpbrk(tok, "\"\\") != NULL)
		usage();
	strcpy(t->name, tok);
	if ((tok = strtok_r(NULL, ",", &save)) == NULL || (t->port = atoi(tok)) <= 0 ||
	    t->port > 65535)
		usage();
	while ((tok = strtok_r(NULL, ",", &save)) != NULL) {
		if (t->npids == MAX_PIDS)
			usage();
		t->pids[t->npids] = (pid_t)strtol(tok, &end, 10);
		if (*end != '\0' || t->pids[t->npids] <= 0)
			usage();
		t->npids++;
	}
}

static void parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "target", required_argument, NULL, 't' },
		{ "daemon", required_argument, NULL, 'd' },
		{ "cafile", required_argument, NULL, 'c' },
		{ "tls1_2", no_argument, NULL, '2' },
		{ "parallel", required_argument, NULL, 'p' },
		{ "count", required_argument, NULL, 'n' },
		{ "seconds", required_argument, NULL, 's' },
		{ "rounds", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 't': parse_target(optarg); break;
		case 'd': opt.daemon = (pid_t)atoi(optarg); break;
		case 'c': opt.cafile = optarg; break;
		case '2': opt.tls12 = 1; break;
		case 'p': opt.parallel = atoi(optarg); break;
		case 'n': opt.count = atol(optarg); break;
		case 's': opt.seconds = atof(optarg); break;
		case 'r': opt.rounds = atoi(optarg); break;
		default: usage();
		}
	}
	if (optind != argc || opt.ntargets == 0 || opt.parallel < 1 ||
	    opt.parallel > MAX_THREADS || opt.rounds < 1 || opt.rounds > MAX_ROUNDS ||
	    (opt.count > 0) == (opt.seconds > 0) || opt.count < 0 || opt.seconds < 0)
		usage();
}

static void make_ctx(void)
{
	int version = opt.tls12 ? TLS1_2_VERSION : TLS1_3_VERSION;

	if ((ctx = SSL_CTX_new(TLS_client_method())) == NULL ||
	    !SSL_CTX_set_min_proto_version(ctx, version) ||
	    !SSL_CTX_set_max_proto_version(ctx, version) ||
	    (opt.tls12 && !SSL_CTX_set_cipher_list(ctx, "ECDHE-ECDSA-AES128-GCM-SHA256"))) {
		fprintf(stderr, "bench-handshake: SSL_CTX set-up failed\n");
		exit(1);
	}
	/* A new handshake each time: no session is kept, so none is offered for resumption. */
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	if (opt.cafile != NULL) {
		if (!SSL_CTX_load_verify_locations(ctx, opt.cafile, NULL)) {
			fprintf(stderr, "bench-handshake: cannot read %s\n", opt.cafile);
			exit(1);
		}
		SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	}
}

int main(int argc, char **argv)
{
	long failures = 0;

	parse_args(argc, argv);
	make_ctx();
	for (int i = 0; i < opt.ntargets; i++)
		if ((opt.targets[i].lat = calloc(MAX_SAMPLES, sizeof(double))) == NULL) {
			perror("bench-handshake: calloc");
			return 1;
		}
	for (int round = 0; round < opt.rounds; round++)
		for (int i = 0; i < opt.ntargets; i++)
			run_round(&opt.targets[i], round);
	printf("{\"protocol\": \"%s\", \"parallel\": %d, \"rounds\": %d, \"targets\": [\n",
		opt.tls12 ? "TLSv1.2" : "TLSv1.3", opt.parallel, opt.rounds);
	for (int i = 0; i < opt.ntargets; i++) {
		print_target(&opt.targets[i], i == opt.ntargets - 1);
		failures += opt.targets[i].failures;
	}
	printf("]}\n");
	for (int i = 0; i < opt.ntargets; i++)
		free(opt.targets[i].lat);
	SSL_CTX_free(ctx);
	return failures ? 1 : 0;
}
