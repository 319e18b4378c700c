/* SPDX-License-Identifier: ISC */
/*
 * bench-compare: one run, one machine, one P-256 key, four ways to sign 32 bytes:
 *   - p256signd through libp256sign, with verify_after_sign on and off;
 *   - ssh-agent holding the key (OpenSSH agent protocol: REQUEST_IDENTITIES, then SIGN_REQUEST
 *     with 32 bytes of data);
 *   - the signing core in the process (p256_sign_checked and p256_sign).
 * For each: sequential latency on one connection (median, p99 over --samples requests) and
 * signs/s with 1, 4, 16, 64 connections (threads for the core), each connection sending its
 * next request when the previous one is answered, for --seconds each.
 *   bench-compare [--daemon PATH] [--seconds S] [--samples N] [--connections 1,4,16,64]
 *                 [--runs N] [--json]
 * With --runs N the whole comparison runs N times, the backends interleaved within each run, and
 * each figure is the median of its N measurements (the machine may be shared).
 * The key is made with ssh-keygen, so ssh-agent, ssh-add and ssh-keygen (openssh-client) must be
 * on PATH; p256signd runs with as many workers as CPUs.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench-clock.h"
#include "daemon-runner.h"
#include "fd-io.h"
#include "keyfile.h"
#include "p256.h"
#include "p256sign.h"
#include "scratch-dir.h"

#ifndef P256SIGND_PATH
#define P256SIGND_PATH "p256signd"
#endif

#define MAX_CONNS 16
#define MAX_THREADS 256
#define MAX_RUNS 15
#define NBACKENDS 5

static void die(const char *what)
{
	fprintf(stderr, "bench-compare: %s: %s\n", what, errno ? strerror(errno) : "failed");
	exit(1);
}

/* ---- backends: a connection per thread, one synchronous sign each call ----------------------- */

struct backend {
	const char *name;
	void *(*open)(const struct backend *b);
	int (*sign)(void *conn, const uint8_t data[32]);
	void (*close)(void *conn);
	const char *socket;		/* daemon and agent */
	struct p256_key *key;		/* core */
	int checked;			/* core: p256_sign_checked rather than p256_sign */
	int verify_after_sign;		/* daemon: its key's setting */
};

static void *daemon_open(const struct backend *b)
{
	struct p256sign *h;

	if (p256sign_connect(&h, b->socket) != 0)
		die("connect to p256signd");
	return h;
}

static int daemon_sign(void *conn, const uint8_t data[32])
{
	static const struct p256sign_key key = { .name = "bench" };
	uint8_t sig[P256SIGN_SIG_MAX];
	size_t len;

	return p256sign_sign_digest(conn, &key, data, P256SIGN_DER, sig, sizeof(sig), &len);
}

static void daemon_close(void *conn)
{
	p256sign_close(conn);
}

/* OpenSSH agent protocol (draft-miller-ssh-agent): u32 length, u8 type, body. */
#define SSH_AGENTC_REQUEST_IDENTITIES 11
#define SSH_AGENT_IDENTITIES_ANSWER 12
#define SSH_AGENTC_SIGN_REQUEST 13
#define SSH_AGENT_SIGN_RESPONSE 14
#define AGENT_MSG_MAX 8192

struct agent_conn {
	int fd;
	uint8_t blob[1024];		/* the key blob from IDENTITIES_ANSWER */
	uint32_t blob_len;
	uint8_t buf[AGENT_MSG_MAX];
};

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Sends msg (len bytes, type first) and reads the answer into c->buf; returns its length. */
static int agent_call(struct agent_conn *c, const uint8_t *msg, uint32_t len, uint8_t want)
{
	uint8_t hdr[4];
	uint32_t n;

	put_u32(hdr, len);
	if (fd_send_full(c->fd, hdr, 4) != 0 || fd_send_full(c->fd, msg, len) != 0 ||
	    fd_read_full(c->fd, hdr, 4) != 0)
		return -1;
	n = get_u32(hdr);
	if (n == 0 || n > sizeof(c->buf) || fd_read_full(c->fd, c->buf, n) != 0 || c->buf[0] != want)
		return -1;
	return (int)n;
}

static void *agent_open(const struct backend *b)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct agent_conn *c = calloc(1, sizeof(*c));
	uint8_t req = SSH_AGENTC_REQUEST_IDENTITIES;
	int n;

	if (c == NULL)
		die("calloc");
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", b->socket);
	if ((c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		die("connect to ssh-agent");
	/* type, u32 nkeys, string blob, string comment: take the first key. */
	if ((n = agent_call(c, &req, 1, SSH_AGENT_IDENTITIES_ANSWER)) < 9 || get_u32(c->buf + 1) < 1)
		die("ssh-agent holds no key");
	c->blob_len = get_u32(c->buf + 5);
	if (c->blob_len > sizeof(c->blob) || 9 + c->blob_len > (uint32_t)n)
		die("ssh-agent key blob");
	memcpy(c->blob, c->buf + 9, c->blob_len);
	return c;
}

static int agent_sign(void *conn, const uint8_t data[32])
{
	struct agent_conn *c = conn;
	uint8_t msg[1 + 4 + sizeof(c->blob) + 4 + 32 + 4];
	size_t n = 0;

	msg[n++] = SSH_AGENTC_SIGN_REQUEST;
	put_u32(msg + n, c->blob_len);
	memcpy(msg + n + 4, c->blob, c->blob_len);
	n += 4 + c->blob_len;
	put_u32(msg + n, 32);
	memcpy(msg + n + 4, data, 32);
	n += 4 + 32;
	put_u32(msg + n, 0);	/* flags */
	n += 4;
	return agent_call(c, msg, (uint32_t)n, SSH_AGENT_SIGN_RESPONSE) > 0 ? 0 : -1;
}

static void agent_close(void *conn)
{
	struct agent_conn *c = conn;

	close(c->fd);
	free(c);
}

static void *core_open(const struct backend *b)
{
	return (void *)b;
}

static int core_sign(void *conn, const uint8_t data[32])
{
	const struct backend *b = conn;
	uint8_t sig[P256_SIG_LEN];

	if (b->checked)
		return p256_sign_checked(b->key, data, P256_NONCE_HEDGED, NULL, 0, sig);
	return p256_sign(b->key->d, data, P256_NONCE_HEDGED, NULL, 0, sig);
}

static void core_close(void *conn)
{
}

/* ---- measurements ------------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct latency {
	double p50_us, p99_us;
};

static struct latency measure_latency(const struct backend *b, unsigned samples)
{
	uint64_t *t = calloc(samples, sizeof(*t));
	void *conn = b->open(b);
	uint8_t data[32];
	struct latency l;

	if (t == NULL)
		die("calloc");
	for (unsigned i = 0; i < samples + samples / 10; i++) {
		uint64_t t0;

		if (getrandom(data, sizeof(data), 0) != sizeof(data))
			die("getrandom");
		t0 = mono_ns();
		if (b->sign(conn, data) != 0)
			die(b->name);
		if (i >= samples / 10)	/* the first tenth warms up */
			t[i - samples / 10] = mono_ns() - t0;
	}
	b->close(conn);
	qsort(t, samples, sizeof(*t), cmp_u64);
	l.p50_us = (double)t[samples / 2] / 1e3;
	l.p99_us = (double)t[samples * 99 / 100] / 1e3;
	free(t);
	return l;
}

struct runner {
	const struct backend *b;
	pthread_barrier_t *start;
	const atomic_int *stop;
	unsigned long count;
	pthread_t thread;
};

static void *run_thread(void *arg)
{
	struct runner *r = arg;
	void *conn = r->b->open(r->b);
	uint8_t data[32];

	memset(data, 0x5a, sizeof(data));
	pthread_barrier_wait(r->start);
	while (!atomic_load(r->stop)) {
		data[r->count % 32] ^= (uint8_t)r->count;
		if (r->b->sign(conn, data) != 0)
			die(r->b->name);
		r->count++;
	}
	r->b->close(conn);
	return NULL;
}

/* Signs per second with n connections, each sequential, over `seconds`. */
static double measure_rate(const struct backend *b, unsigned n, double seconds)
{
	static struct runner r[MAX_THREADS];
	pthread_barrier_t start;
	atomic_int stop = 0;
	unsigned long total = 0;
	uint64_t t0;

	if (pthread_barrier_init(&start, NULL, n + 1) != 0)
		die("pthread_barrier_init");
	for (unsigned i = 0; i < n; i++) {
		r[i] = (struct runner){ .b = b, .start = &start, .stop = &stop };
		if (pthread_create(&r[i].thread, NULL, run_thread, &r[i]) != 0)
			die("pthread_create");
	}
	pthread_barrier_wait(&start);
	t0 = mono_ns();
	nanosleep(&(struct timespec){ .tv_sec = (time_t)seconds,
		.tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9) }, NULL);
	atomic_store(&stop, 1);
	for (unsigned i = 0; i < n; i++) {
		pthread_join(r[i].thread, NULL);
		total += r[i].count;
	}
	pthread_barrier_destroy(&start);
	return (double)total / ((double)(mono_ns() - t0) / 1e9);
}

/* ---- set-up: a key, an agent, daemons ---------------------------------------------------- */

static void run_cmd(const char *cmd)
{
	int st = system(cmd);

	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "bench-compare: failed: %s\n", cmd);
		exit(1);
	}
}

/* ssh-agent in the foreground on dir/agent.sock, holding the key; returns its pid. */
static pid_t start_agent(const char *dir, const char *key_file, char *sock, size_t cap)
{
	char cmd[512];
	pid_t pid;

	snprintf(sock, cap, "%s/agent.sock", dir);
	if ((pid = fork()) < 0)
		die("fork");
	if (pid == 0) {
		if (freopen("/dev/null", "w", stdout) == NULL)
			_exit(127);
		execlp("ssh-agent", "ssh-agent", "-D", "-a", sock, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 500 && access(sock, F_OK) != 0; i++)
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	snprintf(cmd, sizeof(cmd), "SSH_AUTH_SOCK='%s' ssh-add -q '%s' 2>/dev/null", sock, key_file);
	run_cmd(cmd);
	return pid;
}

struct row {
	const char *name;
	struct latency lat;
	double rate[MAX_CONNS];
};

static void report(const struct row *rows, size_t nrows, const unsigned *conns, size_t nconns,
	int json, double seconds, unsigned samples, unsigned runs)
{
	if (json) {
		printf("{\"seconds\": %g, \"samples\": %u, \"runs\": %u, \"cpus\": %ld, "
			"\"results\": [", seconds, samples, runs, sysconf(_SC_NPROCESSORS_ONLN));
		for (size_t i = 0; i < nrows; i++) {
			printf("%s\n {\"name\": \"%s\", \"p50_us\": %.1f, \"p99_us\": %.1f, \"rate\": {",
				i ? "," : "", rows[i].name, rows[i].lat.p50_us, rows[i].lat.p99_us);
			for (size_t j = 0; j < nconns; j++)
				printf("%s\"%u\": %.0f", j ? ", " : "", conns[j], rows[i].rate[j]);
			printf("}}");
		}
		printf("]}\n");
		return;
	}
	printf("| | median latency (us) | p99 latency (us) |");
	for (size_t j = 0; j < nconns; j++)
		printf(" signs/s, %u conn. |", conns[j]);
	printf("\n|---|---|---|");
	for (size_t j = 0; j < nconns; j++)
		printf("---|");
	printf("\n");
	for (size_t i = 0; i < nrows; i++) {
		printf("| %s | %.1f | %.1f |", rows[i].name, rows[i].lat.p50_us, rows[i].lat.p99_us);
		for (size_t j = 0; j < nconns; j++)
			printf(" %.0f |", rows[i].rate[j]);
		printf("\n");
	}
}

/* One backend's latency and rates, with its daemon or agent started and stopped around it. */
static void measure_backend(struct backend *b, const char *daemon_bin, const char *key_file,
	const char *dir, const unsigned *conns, size_t nconns, double seconds, unsigned samples,
	struct row *row)
{
	struct daemon_config cfg = { .key_name = "bench", .key_file = key_file, .nonce = "hedged",
		.verify_after_sign = b->verify_after_sign,
		.workers = (unsigned)sysconf(_SC_NPROCESSORS_ONLN),
		.max_inflight_per_connection = 256 };
	char agent_sock[128];
	struct daemon_proc d;
	pid_t agent = 0;

	if (b->open == daemon_open) {
		daemon_start(&d, daemon_bin, &cfg);
		b->socket = d.socket;
	} else if (b->open == agent_open) {
		agent = start_agent(dir, key_file, agent_sock, sizeof(agent_sock));
		b->socket = agent_sock;
	}
	row->name = b->name;
	row->lat = measure_latency(b, samples);
	for (size_t j = 0; j < nconns; j++)
		row->rate[j] = measure_rate(b, conns[j], seconds);
	if (b->open == daemon_open)
		daemon_stop(&d);
	if (agent > 0) {
		kill(agent, SIGTERM);
		waitpid(agent, NULL, 0);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Each figure of backend i: the median over the runs. */
static void median_row(struct row rows[][NBACKENDS], unsigned runs, size_t i, size_t nconns,
	struct row *out)
{
	double v[MAX_RUNS];

	out->name = rows[0][i].name;
	for (unsigned r = 0; r < runs; r++)
		v[r] = rows[r][i].lat.p50_us;
	out->lat.p50_us = median(v, runs);
	for (unsigned r = 0; r < runs; r++)
		v[r] = rows[r][i].lat.p99_us;
	out->lat.p99_us = median(v, runs);
	for (size_t j = 0; j < nconns; j++) {
		for (unsigned r = 0; r < runs; r++)
			v[r] = rows[r][i].rate[j];
		out->rate[j] = median(v, runs);
	}
}

static size_t parse_conns(const char *s, unsigned *out)
{
	size_t n = 0;
	char *end;

	while (*s && n < MAX_CONNS) {
		unsigned long v = strtoul(s, &end, 10);

		if (end == s || v < 1 || v > MAX_THREADS)
			return 0;
		out[n++] = (unsigned)v;
		s = *end == ',' ? end + 1 : end;
		if (*end != ',' && *end != '\0')
			return 0;
	}
	return n;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "daemon", required_argument, NULL, 'd' },
		{ "seconds", required_argument, NULL, 's' },
		{ "samples", required_argument, NULL, 'n' },
		{ "connections", required_argument, NULL, 'c' },
		{ "runs", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	const char *daemon_bin = P256SIGND_PATH;
	unsigned conns[MAX_CONNS] = { 1, 4, 16, 64 }, samples = 2000, runs = 1;
	size_t nconns = 4;
	double seconds = 2;
	int json = 0, opt;
	char dir[] = "/tmp/bench-compare-XXXXXX", key_file[64], cmd[256];
	struct keyfile_key kf;
	struct p256_key key = { 0 };
	struct row rows[MAX_RUNS][NBACKENDS], result[NBACKENDS];

	while ((opt = getopt_long(argc, argv, "d:s:n:c:r:j", options, NULL)) != -1) {
		switch (opt) {
		case 'd': daemon_bin = optarg; break;
		case 's': seconds = atof(optarg); break;
		case 'n': samples = (unsigned)atoi(optarg); break;
		case 'c': nconns = parse_conns(optarg, conns); break;
		case 'r': runs = (unsigned)atoi(optarg); break;
		case 'j': json = 1; break;
		default: nconns = 0; break;
		}
	}
	if (nconns == 0 || seconds <= 0 || samples < 100 || runs < 1 || runs > MAX_RUNS ||
	    optind != argc) {
		fprintf(stderr, "usage: bench-compare [--daemon PATH] [--seconds S] [--samples N] "
			"[--connections 1,4,16,64] [--runs N] [--json]\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (scratch_dir(dir) != 0)	/* removed at exit too: die exits */
		die("mkdtemp");
	snprintf(key_file, sizeof(key_file), "%s/key", dir);
	snprintf(cmd, sizeof(cmd), "ssh-keygen -q -t ecdsa -b 256 -m PEM -N '' -f '%s'", key_file);
	run_cmd(cmd);
	if (keyfile_load(key_file, &kf) != 0 || p256_key_init(&key, kf.d) != 0)
		die("loading the key");
	keyfile_key_clear(&kf);

	struct backend backends[NBACKENDS] = {
		{ .name = "p256signd, verify after sign", .open = daemon_open, .sign = daemon_sign,
		  .close = daemon_close, .verify_after_sign = 1 },
		{ .name = "p256signd, no verify after sign", .open = daemon_open,
		  .sign = daemon_sign, .close = daemon_close },
		{ .name = "ssh-agent", .open = agent_open, .sign = agent_sign, .close = agent_close },
		{ .name = "in-process core, verified", .open = core_open, .sign = core_sign,
		  .close = core_close, .key = &key, .checked = 1 },
		{ .name = "in-process core", .open = core_open, .sign = core_sign,
		  .close = core_close, .key = &key },
	};

	for (unsigned run = 0; run < runs; run++) {
		for (size_t i = 0; i < NBACKENDS; i++)
			measure_backend(&backends[i], daemon_bin, key_file, dir, conns, nconns, seconds,
				samples, &rows[run][i]);
	}
	for (size_t i = 0; i < NBACKENDS; i++)
		median_row(rows, runs, i, nconns, &result[i]);
	p256_key_clear(&key);
	if (scratch_dir_remove(dir) != 0)
		die(dir);
	report(result, NBACKENDS, conns, nconns, json, seconds, samples, runs);
	return 0;
}
