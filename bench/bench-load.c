/* SPDX-License-Identifier: ISC */
/*
 * bench-load: load generator for p256signd (docs/performance.md). Opens 1, 4, 16 and 64
 * connections (or --connections LIST), keeps --depth SIGN requests in flight on each for
 * --seconds, and reports signs/s and p50/p99 latency. By default it starts its own daemon (the
 * one built alongside, or --daemon PATH) with a fresh key, once with verify_after_sign on and once
 * off; --socket PATH measures a running daemon instead. In the same run, before and after the
 * load, it measures the in-process rate of p256_sign on one thread and on every core, and of
 * p256_sign_checked on one thread; the better of the two measurements is the yardstick of the
 * targets. With its own daemon it also reports signs per CPU-second (daemon, workers and
 * bench-load together), which other work on the machine does not distort, and the daemon's CPU
 * per signature against the yardstick. --runs N repeats the whole sequence N times, each run
 * with its own yardstick measured just before and after it, and judges the targets on the median
 * run: the host's run-to-run noise (about 5 %) is larger than the margins being judged. --nonce
 * MODE gives its daemon's key that nonce mode (hedged by default); --interval-us N sends each
 * connection's next request N us after its previous one instead of as soon as an answer
 * arrives (a light load: latency without queueing, and idle time in the daemon). --pin D:L runs
 * its daemon on the CPUs D and the load on the CPUs L (lists such as 0 or 0,1). --light adds,
 * for each daemon, a light-load row: one connection, a request every 1,000 us, with the daemon's
 * CPU per request less the CPU time of one in-process p256_sign (p256_sign_checked with
 * verify_after_sign) of the same run, which the machine's other work moves less than wall time.
 * --idle-seconds S counts, before the load, the wake-ups of each of its daemon's processes over
 * S seconds with no client (/proc/PID/status context switches).
 *   bench-load [--socket PATH | --daemon PATH] [--connections 1,4,16,64] [--depth N]
 *              [--seconds S] [--runs N] [--workers N] [--busy-poll US] [--key NAME]
 *              [--nonce hedged|deterministic|precomputed] [--interval-us N]
 *              [--pin DAEMON_CPUS:LOAD_CPUS] [--light] [--idle-seconds S] [--json]
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench-clock.h"
#include "proc-cpu.h"
#include "p256.h"
#include "proto.h"

#define MAX_CONNS 1024
#define MAX_DEPTH 256
#define ID_SLOTS (1u << 20)		/* send times by request id; far above conns x depth */
#define RBUF 65536
#define MAX_RUNS 50
#define LIGHT_INTERVAL_US 1000		/* --light: one request a millisecond */
#define COLD_SAMPLES 300		/* --light: signatures after an idle spell, each kind */
#define MAX_SIGNERS 64			/* counted by --idle-seconds */

struct options {
	const char *socket;
	const char *daemon;
	const char *key;
	const char *nonce;		/* the own daemon's key's nonce mode */
	unsigned interval_us;		/* 0: the next request as soon as an answer arrives */
	unsigned conns[16];
	size_t nconns;
	unsigned depth;
	double seconds;
	unsigned runs;
	unsigned workers;
	int busy_poll_us;		/* -1: the daemon's default */
	int json;
	int light;			/* --light: the light-load row too */
	double idle_s;			/* --idle-seconds: 0, not counted */
	int pinned;			/* --pin: the own daemon and the load on these CPUs */
	cpu_set_t daemon_cpus, load_cpus;
};

/* CPU seconds used so far by each kind of process; the daemon's are 0 when it is not ours. Also
 * the CPU time of each per signature of a run. */
struct cpu_split {
	double parent, workers, self;
};

struct result {
	unsigned run;			/* 1..runs */
	int verify_after_sign;		/* -1: unknown (external daemon) */
	unsigned conns, depth;
	unsigned interval_us;		/* 0: closed loop; else a request this often per connection */
	int light;			/* the --light row */
	double seconds, rate, p50_us, p99_us;
	double per_cpu_s;		/* signs per CPU-second of daemon and bench-load; 0: unknown */
	struct cpu_split us_per_sign;	/* microseconds; the daemon's 0: unknown */
	unsigned long errors;
	double ratio;			/* rate / in-process rate on all cores, of this run */
	double cpu_ratio;		/* per_cpu_s / in-process signs per CPU-second; 0: unknown */
	double sign_us;			/* in-process time of one signature, of this run */
	double sign_checked_us;		/* and of one verified before release (p256_sign_checked) */
	double sign_cpu_us;		/* their CPU time (less moved by other work on the machine) */
	double sign_checked_cpu_us;
	double daemon_cpu_ratio;	/* (parent + workers) CPU per signature / sign_us, or
					 * sign_checked_us with verify_after_sign; 0: unknown */
	double daemon_over_sign_us;	/* (parent + workers) CPU per signature less the CPU time of
					 * one in-process signature (checked with verify_after_sign) */
	double cold_us;			/* --light rows: that signature's CPU after an idle spell */
	double daemon_over_cold_us;	/* and the daemon's CPU per signature less it */
};

/* --idle-seconds: the wake-ups per second of each process of one daemon with no client. */
struct idle {
	unsigned run;
	int verify_after_sign;
	double parent, keyholder, signers[MAX_SIGNERS];
	size_t nsigners;
};

struct bconn {
	int fd;
	uint8_t rbuf[RBUF];
	size_t rlen;
	unsigned owed;			/* --interval-us: answered, the next request not yet sent */
	uint64_t due_ns;		/* when they may be sent */
};

static void cpu_now(pid_t daemon, struct cpu_split *c)
{
	*c = (struct cpu_split){ .self = rusage_cpu_s(RUSAGE_SELF) };
	if (daemon == 0)
		return;
	c->parent = proc_cpu_s(daemon);
	c->workers = descendants_cpu_s(daemon);
}

/* ---- in-process yardstick ------------------------------------------------------------------ */

struct signer {
	pthread_t thread;
	const struct p256_key *key;
	int checked;			/* p256_sign_checked instead of p256_sign */
	double until;
	unsigned long count;
	int failed;
};

static void *sign_loop(void *arg)
{
	struct signer *s = arg;
	uint8_t digest[P256_DIGEST_LEN] = { 1 }, sig[P256_SIG_LEN];

	while (mono_s() < s->until) {
		for (int i = 0; i < 16; i++, s->count++) {
			digest[0] = (uint8_t)s->count;
			if ((s->checked ? p256_sign_checked(s->key, digest, P256_NONCE_HEDGED,
				NULL, 0, sig) : p256_sign(s->key->d, digest, P256_NONCE_HEDGED, NULL,
				0, sig)) != 0)
				s->failed = 1;
		}
	}
	return NULL;
}

/*
 * Signs per second of p256_sign (or, checked, p256_sign_checked) summed over `threads` threads,
 * and per CPU-second.
 */
static int inprocess_rate(const struct p256_key *key, int checked, unsigned threads,
	double seconds, double *rate, double *per_cpu_s)
{
	struct signer s[64];
	unsigned long total = 0;
	double start = mono_s(), cpu = rusage_cpu_s(RUSAGE_SELF);
	unsigned i, started;
	int r = 0;

	if (threads > 64)
		threads = 64;
	for (started = 0; started < threads; started++) {
		s[started] = (struct signer){ .key = key, .checked = checked,
			.until = start + seconds };
		if (pthread_create(&s[started].thread, NULL, sign_loop, &s[started]) != 0)
			break;
	}
	for (i = 0; i < started; i++) {
		pthread_join(s[i].thread, NULL);
		total += s[i].count;
		r |= s[i].failed;
	}
	*rate = (double)total / (mono_s() - start);
	cpu = rusage_cpu_s(RUSAGE_SELF) - cpu;
	*per_cpu_s = cpu > 0 ? (double)total / cpu : 0;
	return started == threads && r == 0 ? 0 : -1;
}

/* The in-process yardstick: p256_sign on one thread and on every core. */
struct yardstick {
	double rate1;			/* signs/s on one thread */
	double rate1_checked;		/* the same with p256_sign_checked */
	double rate_all;		/* signs/s on every core */
	double per_cpu_s;		/* signs per CPU-second */
	double per_cpu_s1;		/* on one thread: p256_sign per CPU-second */
	double per_cpu_s1_checked;	/* and p256_sign_checked */
	double cold_us, cold_checked_us; /* --light: CPU of one after an idle spell (sign_cold) */
};

/* Keeps in *best the better of each figure of *best and *y. */
static void keep_best(struct yardstick *best, const struct yardstick *y)
{
	best->rate1 = y->rate1 > best->rate1 ? y->rate1 : best->rate1;
	best->rate1_checked = y->rate1_checked > best->rate1_checked ? y->rate1_checked :
	    best->rate1_checked;
	best->rate_all = y->rate_all > best->rate_all ? y->rate_all : best->rate_all;
	best->per_cpu_s = y->per_cpu_s > best->per_cpu_s ? y->per_cpu_s : best->per_cpu_s;
	best->per_cpu_s1 = y->per_cpu_s1 > best->per_cpu_s1 ? y->per_cpu_s1 : best->per_cpu_s1;
	best->per_cpu_s1_checked = y->per_cpu_s1_checked > best->per_cpu_s1_checked ?
	    y->per_cpu_s1_checked : best->per_cpu_s1_checked;
	if (y->cold_us > 0 && (best->cold_us == 0 || y->cold_us < best->cold_us))
		best->cold_us = y->cold_us;
	if (y->cold_checked_us > 0 &&
	    (best->cold_checked_us == 0 || y->cold_checked_us < best->cold_checked_us))
		best->cold_checked_us = y->cold_checked_us;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The CPU time of one signature made right after sleeping LIGHT_INTERVAL_US, as a signer makes
 * it at a light load (median of COLD_SAMPLES, this thread's CPU clock). A CPU that has been idle
 * runs its next tens of microseconds slower than the hot loop of inprocess_rate shows (on a
 * virtual machine the vCPU is resumed and its caches and TLB refilled), so the light rows are
 * also judged against this.
 */
static int inprocess_cold(const struct p256_key *key, int checked, double *us)
{
	static double t[COLD_SAMPLES];
	const struct timespec gap = { .tv_nsec = LIGHT_INTERVAL_US * 1000L };
	uint8_t digest[P256_DIGEST_LEN] = { 0x42 }, sig[P256_SIG_LEN];

	for (size_t i = 0; i < COLD_SAMPLES; i++) {
		struct timespec a, b;
		int r;

		digest[1] = (uint8_t)i;
		if (nanosleep(&gap, NULL) != 0 || clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a) != 0)
			return -1;
		r = checked ? p256_sign_checked(key, digest, P256_NONCE_HEDGED, NULL, 0, sig) :
		    p256_sign(key->d, digest, P256_NONCE_HEDGED, NULL, 0, sig);
		if (r != 0 || clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b) != 0)
			return -1;
		t[i] = (double)(b.tv_sec - a.tv_sec) * 1e6 + (double)(b.tv_nsec - a.tv_nsec) / 1e3;
	}
	qsort(t, COLD_SAMPLES, sizeof(t[0]), cmp_double);
	*us = t[COLD_SAMPLES / 2];
	return 0;
}

/* Measures the yardstick, keeping the best figures seen so far. */
static int measure_yardstick(const struct p256_key *key, long cores, int light,
	struct yardstick *y)
{
	struct yardstick now = { 0 };

	if (inprocess_rate(key, 0, 1, 1.0, &now.rate1, &now.per_cpu_s1) != 0 ||
	    inprocess_rate(key, 1, 1, 0.5, &now.rate1_checked, &now.per_cpu_s1_checked) != 0 ||
	    inprocess_rate(key, 0, cores < 1 ? 1 : (unsigned)cores, 2.0, &now.rate_all,
	    &now.per_cpu_s) != 0)
		return -1;
	if (light && (inprocess_cold(key, 0, &now.cold_us) != 0 ||
	    inprocess_cold(key, 1, &now.cold_checked_us) != 0))
		return -1;
	keep_best(y, &now);
	return 0;
}

/* ---- a daemon of our own ------------------------------------------------------------------- */

/* A fresh SEC 1 DER key file (RFC 5915 without the optional public key). */
static int write_key(const char *path, uint8_t d[P256_SCALAR_LEN])
{
	static const uint8_t head[] = { 0x30, 0x31, 0x02, 0x01, 0x01, 0x04, 0x20 };
	static const uint8_t tail[] = { 0xa0, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d,
		0x03, 0x01, 0x07 };
	uint8_t pub[P256_POINT_LEN];
	FILE *f;

	do {
		if (getrandom(d, P256_SCALAR_LEN, 0) != P256_SCALAR_LEN)
			return -1;
	} while (p256_public_from_private(d, pub) != 0);
	if ((f = fopen(path, "wb")) == NULL)
		return -1;
	if (fwrite(head, 1, sizeof(head), f) != sizeof(head) ||
	    fwrite(d, 1, P256_SCALAR_LEN, f) != P256_SCALAR_LEN ||
	    fwrite(tail, 1, sizeof(tail), f) != sizeof(tail)) {
		fclose(f);
		return -1;
	}
	return fclose(f) == 0 && chmod(path, 0600) == 0 ? 0 : -1;
}

static int connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -1;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Starts the daemon on dir/s.sock with one key; waits until it accepts. Returns its pid or -1. */
static pid_t start_daemon(const struct options *o, const char *dir, int verify_after_sign,
	char *sock, size_t socklen)
{
	char config[512];
	FILE *f;
	pid_t pid;

	/* No audit section: the records go to the journal where journald listens, else to stderr,
	 * and journald's own cost per record is more than a signature (docs/performance.md). */
	if (access("/run/systemd/journal/socket", F_OK) == 0)
		fprintf(stderr, "bench-load: journald listens on this machine: the daemon's audit "
		    "records go to the journal, and these figures include what that costs\n");
	snprintf(sock, socklen, "%s/s.sock", dir);
	snprintf(config, sizeof(config), "%s/p256signd.json", dir);
	if ((f = fopen(config, "w")) == NULL)
		return -1;
	fprintf(f, "{ \"socket\": \"%s\", ", sock);
	if (o->workers)
		fprintf(f, "\"workers\": %u, ", o->workers);
	if (o->busy_poll_us >= 0)
		fprintf(f, "\"busy_poll_us\": %d, ", o->busy_poll_us);
	fprintf(f, "\"keys\": [ { \"name\": \"%s\", \"file\": \"bench.der\", \"nonce\": \"%s\", "
	    "\"verify_after_sign\": %s } ] }\n", o->key, o->nonce,
	    verify_after_sign ? "true" : "false");
	if (fclose(f) != 0)
		return -1;
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		/* One log line per request: kept out of the terminal, still paid for. */
		if (freopen("/dev/null", "w", stderr) == NULL ||
		    (o->pinned && sched_setaffinity(0, sizeof(o->daemon_cpus), &o->daemon_cpus) != 0))
			_exit(127);
		execl(o->daemon, o->daemon, "--config", config, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 200; i++) {
		int fd = connect_to(sock);

		if (fd >= 0) {
			close(fd);
			return pid;
		}
		usleep(50000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

static int stop_daemon(pid_t pid)
{
	int status;

	if (kill(pid, SIGTERM) != 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* ---- the load ------------------------------------------------------------------------------ */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The CPUs the kernel lets pid (0: this thread) run on, as text such as "0,2,3". 0 or -1. */
static int cpus_text(pid_t pid, char *out, size_t cap)
{
	cpu_set_t set;
	size_t len = 0;

	out[0] = 0;
	if (sched_getaffinity(pid, sizeof(set), &set) != 0)
		return -1;
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set) && len + 12 < cap)
			len += (size_t)snprintf(out + len, cap - len, "%s%d", len ? "," : "", i);
	return 0;
}

struct load {
	const struct options *o;
	uint8_t tmpl[128];		/* a SIGN frame; the id is patched in */
	size_t tmpl_len;
	uint64_t *sent_ns;		/* by id % ID_SLOTS */
	uint32_t *lat_ns;
	size_t nlat, cap;
	uint32_t next_id;
	unsigned long errors;
	pid_t daemon;			/* 0: not ours, its CPU time is unknown */
	char daemon_cpus[64];		/* with --pin: the CPUs the kernel let it run on */
	char load_cpus[64];		/* and the load */
	struct idle *idle;		/* --idle-seconds: one per daemon started */
	size_t nidle;
};

/* Writes n new requests to c. */
static int send_requests(struct load *l, struct bconn *c, unsigned n)
{
	uint8_t buf[MAX_DEPTH * 128];
	size_t len = 0;
	uint64_t t = mono_ns();

	for (unsigned i = 0; i < n; i++) {
		uint32_t id = l->next_id++;

		memcpy(buf + len, l->tmpl, l->tmpl_len);
		buf[len + 8] = (uint8_t)(id >> 24);
		buf[len + 9] = (uint8_t)(id >> 16);
		buf[len + 10] = (uint8_t)(id >> 8);
		buf[len + 11] = (uint8_t)id;
		l->sent_ns[id % ID_SLOTS] = t;
		len += l->tmpl_len;
	}
	for (size_t off = 0; off < len;) {
		ssize_t w = write(c->fd, buf + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		off += (size_t)w;
	}
	return 0;
}

/* Takes the complete responses in c's buffer; *done = how many. */
static int take_responses(struct load *l, struct bconn *c, int counting, unsigned *done)
{
	size_t off = 0;
	uint64_t t = mono_ns();

	*done = 0;
	while (c->rlen - off >= PROTO_LEN_PREFIX) {
		struct proto_response resp;
		uint32_t n;

		if (proto_frame_length(c->rbuf + off, &n) != 0)
			return -1;
		if (c->rlen - off - PROTO_LEN_PREFIX < n)
			break;
		if (proto_decode_response(c->rbuf + off + PROTO_LEN_PREFIX, n, &resp) != 0)
			return -1;
		if (resp.h.type != (PROTO_SIGN | PROTO_RESPONSE))
			l->errors++;
		else if (counting) {
			if (l->nlat == l->cap) {
				uint32_t *p = realloc(l->lat_ns, (l->cap * 2 + 1024) * sizeof(*p));

				if (p == NULL)
					return -1;
				l->lat_ns = p;
				l->cap = l->cap * 2 + 1024;
			}
			l->lat_ns[l->nlat++] = (uint32_t)(t - l->sent_ns[resp.h.id % ID_SLOTS]);
		}
		off += PROTO_LEN_PREFIX + n;
		(*done)++;
	}
	memmove(c->rbuf, c->rbuf + off, c->rlen - off);
	c->rlen -= off;
	return 0;
}

/*
 * --interval-us: sends what each connection owes once it is due (only while counting; after
 * the deadline the debt is dropped), and sets *wait to the time until the next one is due (5 s
 * when none is owed). Returns how many connections still owe, or -1.
 */
static int send_due(struct load *l, struct bconn *c, unsigned nconns, int counting,
	unsigned long *inflight, struct timespec *wait)
{
	uint64_t now = mono_ns(), next = now + 5000000000u;
	int owing = 0;

	for (unsigned i = 0; i < nconns; i++) {
		if (c[i].owed == 0)
			continue;
		if (!counting)
			c[i].owed = 0;
		else if (c[i].due_ns <= now) {
			if (send_requests(l, &c[i], c[i].owed) != 0)
				return -1;
			*inflight += c[i].owed;
			c[i].owed = 0;
		} else {
			owing++;
			next = c[i].due_ns < next ? c[i].due_ns : next;
		}
	}
	*wait = (struct timespec){ .tv_sec = (time_t)((next - now) / 1000000000u),
		.tv_nsec = (long)((next - now) % 1000000000u) };
	return owing;
}

static int run_load(struct load *l, const char *sock, unsigned nconns, unsigned interval_us,
	struct result *res)
{
	struct bconn *c = calloc(nconns, sizeof(*c));
	struct epoll_event ev[64];
	unsigned long inflight = 0;
	struct cpu_split cpu0, cpu1;
	cpu_set_t saved;		/* the yardstick's CPUs, back after the load */
	double start, end, cpu;
	int ep = epoll_create1(EPOLL_CLOEXEC), r = -1, pinned = 0;
	unsigned i;

	l->nlat = 0;
	l->errors = 0;
	if (c == NULL || ep < 0)
		goto out;
	for (i = 0; i < nconns; i++) {
		struct epoll_event e = { .events = EPOLLIN, .data.ptr = &c[i] };

		if ((c[i].fd = connect_to(sock)) < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, c[i].fd, &e) != 0) {
			fprintf(stderr, "bench-load: %s: %s\n", sock, strerror(errno));
			nconns = i + (c[i].fd >= 0);
			goto out;
		}
	}
	if (l->o->pinned && (sched_getaffinity(0, sizeof(saved), &saved) != 0 ||
	    sched_setaffinity(0, sizeof(l->o->load_cpus), &l->o->load_cpus) != 0 ||
	    cpus_text(0, l->load_cpus, sizeof(l->load_cpus)) != 0)) {
		fprintf(stderr, "bench-load: --pin: %s\n", strerror(errno));
		goto out;
	}
	pinned = l->o->pinned;
	cpu_now(l->daemon, &cpu0);
	start = mono_s();
	end = start + l->o->seconds;
	for (i = 0; i < nconns; i++) {
		if (send_requests(l, &c[i], l->o->depth) != 0)
			goto out;
		c[i].due_ns = mono_ns() + interval_us * 1000ull;
		inflight += l->o->depth;
	}
	for (;;) {
		int counting = mono_s() < end, n, owing;
		struct timespec wait;

		if ((owing = send_due(l, c, nconns, counting, &inflight, &wait)) < 0)
			goto out;
		if (inflight == 0 && owing == 0)
			break;
		if ((n = epoll_pwait2(ep, ev, 64, &wait, NULL)) < 0 && errno == EINTR)
			continue;
		if (n < 0 || (n == 0 && owing == 0)) {
			fprintf(stderr, "bench-load: no response for 5 s\n");
			goto out;
		}
		for (int k = 0; k < n; k++) {
			struct bconn *b = ev[k].data.ptr;
			ssize_t got = read(b->fd, b->rbuf + b->rlen, sizeof(b->rbuf) - b->rlen);
			unsigned done = 0;

			if (got > 0)
				b->rlen += (size_t)got;
			if (got <= 0 || take_responses(l, b, counting, &done) != 0) {
				fprintf(stderr, "bench-load: connection lost\n");
				goto out;
			}
			inflight -= done;
			if (counting && done > 0 && interval_us > 0) {
				if (b->owed == 0)
					b->due_ns += interval_us * 1000ull;
				b->owed += done;
			} else if (counting && done > 0) {
				if (send_requests(l, b, done) != 0)
					goto out;
				inflight += done;
			}
		}
	}
	qsort(l->lat_ns, l->nlat, sizeof(*l->lat_ns), cmp_u32);
	res->conns = nconns;
	res->interval_us = interval_us;
	res->depth = l->o->depth;
	res->seconds = l->o->seconds;
	res->rate = (double)l->nlat / l->o->seconds;
	/* Includes the drain after the deadline: a slight overestimate of the CPU per signature. */
	cpu_now(l->daemon, &cpu1);
	if (l->nlat > 0) {
		res->us_per_sign.parent = (cpu1.parent - cpu0.parent) * 1e6 / (double)l->nlat;
		res->us_per_sign.workers = (cpu1.workers - cpu0.workers) * 1e6 / (double)l->nlat;
		res->us_per_sign.self = (cpu1.self - cpu0.self) * 1e6 / (double)l->nlat;
	}
	cpu = cpu1.parent + cpu1.workers + cpu1.self - cpu0.parent - cpu0.workers - cpu0.self;
	res->per_cpu_s = l->daemon && cpu > 0 ? (double)l->nlat / cpu : 0;
	res->p50_us = l->nlat ? l->lat_ns[l->nlat / 2] / 1e3 : 0;
	res->p99_us = l->nlat ? l->lat_ns[l->nlat * 99 / 100] / 1e3 : 0;
	res->errors = l->errors;
	r = 0;
out:
	if (pinned && sched_setaffinity(0, sizeof(saved), &saved) != 0) {
		fprintf(stderr, "bench-load: cannot undo --pin: %s\n", strerror(errno));
		r = -1;
	}
	for (i = 0; c != NULL && i < nconns; i++)
		close(c[i].fd);
	free(c);
	if (ep >= 0)
		close(ep);
	return r;
}

/* ---- main ---------------------------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f, "usage: bench-load [--socket PATH | --daemon PATH] [--connections 1,4,16,64]\n"
	    "                  [--depth N] [--seconds S] [--runs N] [--workers N] [--busy-poll US]\n"
	    "                  [--key NAME] [--nonce hedged|deterministic|precomputed]\n"
	    "                  [--interval-us N] [--pin DAEMON_CPUS:LOAD_CPUS] [--light]\n"
	    "                  [--idle-seconds S] [--json]\n");
}

/* "0,1": a set of CPU numbers; -1 when s is not such a list. */
static int parse_cpus(const char *s, cpu_set_t *set)
{
	char *end;

	CPU_ZERO(set);
	do {
		long cpu = strtol(s, &end, 10);

		if (end == s || cpu < 0 || cpu >= CPU_SETSIZE)
			return -1;
		CPU_SET((int)cpu, set);
		s = end + 1;
	} while (*end == ',');
	return *end == 0 ? 0 : -1;
}

/* --pin DAEMON_CPUS:LOAD_CPUS */
static int parse_pin(const char *s, struct options *o)
{
	char d[256];
	const char *colon = strchr(s, ':');

	if (colon == NULL || (size_t)(colon - s) >= sizeof(d))
		return -1;
	memcpy(d, s, (size_t)(colon - s));
	d[colon - s] = 0;
	o->pinned = 1;
	return parse_cpus(d, &o->daemon_cpus) == 0 && parse_cpus(colon + 1, &o->load_cpus) == 0 ?
	    0 : -1;
}

static int parse_list(const char *s, struct options *o)
{
	char *end;

	o->nconns = 0;
	do {
		unsigned long v = strtoul(s, &end, 10);

		if (end == s || v == 0 || v > MAX_CONNS || o->nconns == 16)
			return -1;
		o->conns[o->nconns++] = (unsigned)v;
		s = end + (*end == ',');
	} while (*end == ',');
	return *end == '\0' ? 0 : -1;
}

/* A count of 1 to max given on the command line. */
static int parse_count(const char *s, unsigned max, unsigned *out)
{
	unsigned long v = strtoul(s, NULL, 10);

	if (v == 0 || v > max)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static int parse_args(int argc, char **argv, struct options *o)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' }, { "daemon", required_argument, NULL, 'd' },
		{ "connections", required_argument, NULL, 'c' },
		{ "depth", required_argument, NULL, 'p' }, { "seconds", required_argument, NULL, 't' },
		{ "workers", required_argument, NULL, 'w' }, { "key", required_argument, NULL, 'k' },
		{ "busy-poll", required_argument, NULL, 'b' }, { "runs", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' }, { "help", no_argument, NULL, 'h' },
		{ "nonce", required_argument, NULL, 'n' },
		{ "interval-us", required_argument, NULL, 'i' },
		{ "pin", required_argument, NULL, 'P' },
		{ "light", no_argument, NULL, 'l' },
		{ "idle-seconds", required_argument, NULL, 'I' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	*o = (struct options){ .daemon = P256SIGND_PATH, .key = "bench", .nonce = "hedged",
		.conns = { 1, 4, 16, 64 },
		.nconns = 4, .depth = 1, .seconds = 3, .runs = 1, .busy_poll_us = -1 };
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case 's': o->socket = optarg; break;
		case 'd': o->daemon = optarg; break;
		case 'k': o->key = optarg; break;
		case 'j': o->json = 1; break;
		case 'n':
			if (strcmp(optarg, "hedged") != 0 && strcmp(optarg, "deterministic") != 0 &&
			    strcmp(optarg, "precomputed") != 0)
				return -1;
			o->nonce = optarg;
			break;
		case 'i':
			if (parse_count(optarg, 1000000, &o->interval_us) != 0)
				return -1;
			break;
		case 'c':
			if (parse_list(optarg, o) != 0)
				return -1;
			break;
		case 'p':
			if (parse_count(optarg, MAX_DEPTH, &o->depth) != 0)
				return -1;
			break;
		case 't':
			o->seconds = strtod(optarg, NULL);
			if (!(o->seconds > 0 && o->seconds <= 3600))
				return -1;
			break;
		case 'w':
			if (parse_count(optarg, 256, &o->workers) != 0)
				return -1;
			break;
		case 'r':
			if (parse_count(optarg, MAX_RUNS, &o->runs) != 0)
				return -1;
			break;
		case 'b':
			o->busy_poll_us = (int)strtol(optarg, NULL, 10);
			if (o->busy_poll_us < 0 || o->busy_poll_us > 1000)
				return -1;
			break;
		case 'P':
			if (parse_pin(optarg, o) != 0)
				return -1;
			break;
		case 'l': o->light = 1; break;
		case 'I':
			o->idle_s = strtod(optarg, NULL);
			if (!(o->idle_s > 0 && o->idle_s <= 600))
				return -1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return -1;
		}
	}
	/* An external daemon's CPUs are its own business. */
	return optind == argc && !(o->pinned && o->socket != NULL) ? 0 : -1;
}

static int make_template(struct load *l)
{
	struct proto_request req = { .h = { .version = PROTO_VERSION, .type = PROTO_SIGN },
		.key = { .kind = PROTO_KEY_NAME }, .format = PROTO_FORMAT_RAW };

	if (strlen(l->o->key) > PROTO_NAME_MAX)
		return -1;
	req.key.name_len = (uint8_t)strlen(l->o->key);
	memcpy(req.key.name, l->o->key, req.key.name_len + 1);
	memset(req.digest, 0x5a, sizeof(req.digest));
	return proto_encode_request(&req, l->tmpl, sizeof(l->tmpl), &l->tmpl_len);
}

/* Runs every connection count against sock, and with --light the light-load row, appending to
 * res. */
static int run_all(struct load *l, const char *sock, int vas, struct result *res, size_t *n)
{
	for (size_t i = 0; i < l->o->nconns + (l->o->light != 0); i++) {
		struct result *r = &res[(*n)++];
		int light = i == l->o->nconns;

		r->verify_after_sign = vas;
		r->light = light;
		if (run_load(l, sock, light ? 1 : l->o->conns[i],
			light ? LIGHT_INTERVAL_US : l->o->interval_us, r) != 0)
			return -1;
		if (!l->o->json)
			printf("%-17s %5u %5u %12.0f %10.0f %9.1f %9.1f %7lu %9u\n",
			    vas < 0 ? "-" : vas ? "on" : "off", r->conns, r->depth, r->rate,
			    r->per_cpu_s, r->p50_us, r->p99_us, r->errors, r->interval_us);
		fflush(stdout);
	}
	return 0;
}

/*
 * One request answered before the load: the daemon accepts connections before its signers have
 * passed their self-tests, and a first request that waits for them (hundreds of milliseconds
 * under the sanitizers) is not what a run measures.
 */
static int warm_up(struct load *l, const char *sock)
{
	struct bconn *c = calloc(1, sizeof(*c));
	unsigned done = 0;
	int r = -1;

	if (c == NULL || (c->fd = connect_to(sock)) < 0 || send_requests(l, c, 1) != 0)
		goto out;
	while (done == 0) {
		ssize_t got = read(c->fd, c->rbuf + c->rlen, sizeof(c->rbuf) - c->rlen);

		if (got <= 0)
			goto out;
		c->rlen += (size_t)got;
		if (take_responses(l, c, 0, &done) != 0)
			goto out;
	}
	r = 0;
out:
	if (c != NULL && c->fd >= 0)
		close(c->fd);
	free(c);
	return r;
}

/*
 * --idle-seconds: the daemon's processes (parent, key-holder, its signers) with no client, their
 * context switches counted over o->idle_s once two seconds have passed since the warm-up request
 * (what that request left due, its timeout's check a second later or a ping, is not the idle
 * daemon's). Appended
 * to l->idle; 0, or -1 when the processes are not found.
 */
static int count_idle(struct load *l, pid_t daemon, int vas)
{
	const struct options *o = l->o;
	struct idle *out = &l->idle[l->nidle];
	pid_t kh = 0, signers[MAX_SIGNERS];
	unsigned long before[2 + MAX_SIGNERS];
	size_t ns;

	*out = (struct idle){ .verify_after_sign = vas };
	sleep(2);
	if (proc_children(daemon, &kh, 1) != 1 ||
	    (ns = proc_children(kh, signers, MAX_SIGNERS)) == 0)
		return -1;
	before[0] = proc_switches(daemon);
	before[1] = proc_switches(kh);
	for (size_t i = 0; i < ns; i++)
		before[2 + i] = proc_switches(signers[i]);
	usleep((useconds_t)(o->idle_s * 1e6));
	out->parent = (double)(proc_switches(daemon) - before[0]) / o->idle_s;
	out->keyholder = (double)(proc_switches(kh) - before[1]) / o->idle_s;
	for (size_t i = 0; i < ns; i++)
		out->signers[i] = (double)(proc_switches(signers[i]) - before[2 + i]) / o->idle_s;
	out->nsigners = ns;
	l->nidle++;
	return 0;
}

static int own_daemon(struct load *l, int vas, struct result *res, size_t *n)
{
	char dir[] = "/tmp/bench-load.XXXXXX", key[64], sock[128];
	uint8_t d[P256_SCALAR_LEN];
	pid_t pid;
	int r = -1;

	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(key, sizeof(key), "%s/bench.der", dir);
	if (write_key(key, d) != 0 || (pid = start_daemon(l->o, dir, vas, sock, sizeof(sock))) < 0) {
		fprintf(stderr, "bench-load: cannot start %s\n", l->o->daemon);
		goto out;
	}
	l->daemon = pid;
	if ((r = warm_up(l, sock)) != 0)
		fprintf(stderr, "bench-load: no answer from %s\n", l->o->daemon);
	else if (l->o->idle_s > 0 && (r = count_idle(l, pid, vas)) != 0)
		fprintf(stderr, "bench-load: cannot find the daemon's processes\n");
	else if (l->o->pinned && (r = cpus_text(pid, l->daemon_cpus, sizeof(l->daemon_cpus))) != 0)
		fprintf(stderr, "bench-load: the daemon's CPUs: %s\n", strerror(errno));
	else
		r = run_all(l, sock, vas, res, n);
	l->daemon = 0;
	if (stop_daemon(pid) != 0) {
		fprintf(stderr, "bench-load: the daemon did not stop cleanly\n");
		r = -1;
	}
out:
	explicit_bzero(d, sizeof(d));
	unlink(key);
	snprintf(key, sizeof(key), "%s/p256signd.json", dir);
	unlink(key);
	rmdir(dir);
	return r;
}

/* A figure over the runs: median, least and greatest; n = 0: not measured. */
struct spread {
	double median, min, max;
	size_t n;
};

/* The spread of the n values in v (sorted in place). */
static struct spread spread_of(double *v, size_t n)
{
	struct spread sp = { .n = n };

	if (n == 0)
		return sp;
	qsort(v, n, sizeof(*v), cmp_double);
	sp.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	sp.min = v[0];
	sp.max = v[n - 1];
	return sp;
}

/*
 * The targets of docs/performance.md, each judged on the median over the runs of the figure
 * against that run's own yardstick: for the runs without verify_after_sign, the rate and the
 * latency ones, where the CPU time of a signature goes at 64 connections, and the daemon's CPU
 * per signature against sign_us; for those with it, that CPU against sign_checked_us. The light
 * rows: the daemon's CPU per signature less sign_us, or sign_checked_us.
 */
struct targets {
	struct spread ratio64, cpu_ratio64, extra1_us;
	struct spread parent_us, workers_us, self_us;
	struct spread daemon64, daemon64_verify;
	struct spread light_over, light_over_verify;
	struct spread light_cold, light_cold_verify;	/* the same less the cold signature */
};

static void judge(const struct result *res, size_t n, struct targets *t)
{
	double ratio[MAX_RUNS], cpu_ratio[MAX_RUNS], extra[MAX_RUNS];
	double parent[MAX_RUNS], workers[MAX_RUNS], self[MAX_RUNS];
	double daemon[MAX_RUNS], daemon_verify[MAX_RUNS], light[2][MAX_RUNS], cold[2][MAX_RUNS];
	size_t nr = 0, ne = 0, nd = 0, ndv = 0, nl[2] = { 0, 0 };

	for (size_t i = 0; i < n; i++) {
		int own = res[i].verify_after_sign >= 0;	/* a daemon of ours: its CPU is known */
		int v = res[i].verify_after_sign == 1;

		if (res[i].light) {
			if (own && nl[v] < MAX_RUNS) {
				cold[v][nl[v]] = res[i].daemon_over_cold_us;
				light[v][nl[v]++] = res[i].daemon_over_sign_us;
			}
			continue;
		}
		if (res[i].depth != 1)
			continue;
		if (res[i].verify_after_sign == 1) {
			if (res[i].conns == 64 && ndv < MAX_RUNS)
				daemon_verify[ndv++] = res[i].daemon_cpu_ratio;
			continue;
		}
		if (res[i].conns == 64 && nr < MAX_RUNS) {
			ratio[nr] = res[i].ratio;
			cpu_ratio[nr] = res[i].cpu_ratio;
			parent[nr] = res[i].us_per_sign.parent;
			workers[nr] = res[i].us_per_sign.workers;
			self[nr++] = res[i].us_per_sign.self;
			if (own)
				daemon[nd++] = res[i].daemon_cpu_ratio;
		}
		if (res[i].conns == 1 && ne < MAX_RUNS)
			extra[ne++] = res[i].p50_us - res[i].sign_us;
	}
	t->ratio64 = spread_of(ratio, nr);
	t->cpu_ratio64 = spread_of(cpu_ratio, nr);
	t->parent_us = spread_of(parent, nr);
	t->workers_us = spread_of(workers, nr);
	t->self_us = spread_of(self, nr);
	t->extra1_us = spread_of(extra, ne);
	t->daemon64 = spread_of(daemon, nd);
	t->daemon64_verify = spread_of(daemon_verify, ndv);
	t->light_over = spread_of(light[0], nl[0]);
	t->light_over_verify = spread_of(light[1], nl[1]);
	t->light_cold = spread_of(cold[0], nl[0]);
	t->light_cold_verify = spread_of(cold[1], nl[1]);
}

static void print_spread(const char *name, const struct spread *sp, const char *sep)
{
	if (sp->n == 0)
		printf("\"%s\": null%s", name, sep);
	else
		printf("\"%s\": {\"median\": %.3f, \"min\": %.3f, \"max\": %.3f, \"runs\": %zu}%s", name,
		    sp->median, sp->min, sp->max, sp->n, sep);
}

static void print_json(const struct options *o, const struct load *pin, long cores,
	const struct yardstick *y, const struct result *res, size_t n, const struct targets *t)
{
	printf("{\"inprocess\": {\"threads\": %ld, \"signs_per_s\": %.0f, \"signs_per_cpu_s\": %.0f, "
	    "\"sign_us\": %.1f, \"sign_checked_us\": %.1f, \"sign_cold_us\": %.1f, "
	    "\"sign_checked_cold_us\": %.1f},\n \"nonce\": \"%s\", \"interval_us\": %u,\n ",
	    cores, y->rate_all, y->per_cpu_s, 1e6 / y->rate1, 1e6 / y->rate1_checked, y->cold_us,
	    y->cold_checked_us, o->nonce, o->interval_us);
	if (o->pinned)
		printf("\"pinned\": {\"daemon\": \"%s\", \"load\": \"%s\"},\n ", pin->daemon_cpus,
		    pin->load_cpus);
	else
		printf("\"pinned\": null,\n ");
	printf("\"runs\": [");
	for (size_t i = 0; i < n; i++)
		printf("%s\n  {\"run\": %u, \"verify_after_sign\": %s, \"connections\": %u, "
		    "\"depth\": %u, \"seconds\": %.1f, \"signs_per_s\": %.0f, \"signs_per_cpu_s\": %.0f, "
		    "\"p50_us\": %.1f, \"p99_us\": %.1f, \"errors\": %lu, \"sign_us\": %.2f, "
		    "\"sign_checked_us\": %.2f, \"ratio\": %.3f, \"cpu_ratio\": %.3f, "
		    "\"daemon_cpu_ratio\": %.3f, \"interval_us\": %u, \"sign_cpu_us\": %.2f, "
		    "\"sign_checked_cpu_us\": %.2f, \"daemon_over_sign_us\": %.2f, "
		    "\"cold_us\": %.2f, \"daemon_over_cold_us\": %.2f, "
		    "\"cpu_us_per_sign\": {\"parent\": %.2f, "
		    "\"workers\": %.2f, \"bench_load\": %.2f}}", i ? "," : "", res[i].run,
		    res[i].verify_after_sign < 0 ? "null" : res[i].verify_after_sign ? "true" : "false",
		    res[i].conns, res[i].depth, res[i].seconds, res[i].rate, res[i].per_cpu_s,
		    res[i].p50_us, res[i].p99_us, res[i].errors, res[i].sign_us,
		    res[i].sign_checked_us, res[i].ratio, res[i].cpu_ratio, res[i].daemon_cpu_ratio,
		    res[i].interval_us, res[i].sign_cpu_us, res[i].sign_checked_cpu_us,
		    res[i].daemon_over_sign_us, res[i].cold_us, res[i].daemon_over_cold_us,
		    res[i].us_per_sign.parent,
		    res[i].us_per_sign.workers, res[i].us_per_sign.self);
	printf("],\n \"targets\": {");
	print_spread("ratio_64", &t->ratio64, ", ");
	print_spread("cpu_ratio_64", &t->cpu_ratio64, ", ");
	print_spread("daemon_cpu_ratio_64", &t->daemon64, ", ");
	print_spread("daemon_cpu_ratio_64_verify", &t->daemon64_verify, ", ");
	print_spread("p50_minus_sign_us_1", &t->extra1_us, ", ");
	print_spread("light_daemon_over_sign_us", &t->light_over, ", ");
	print_spread("light_daemon_over_sign_checked_us", &t->light_over_verify, ", ");
	print_spread("light_daemon_over_sign_cold_us", &t->light_cold, ", ");
	print_spread("light_daemon_over_sign_checked_cold_us", &t->light_cold_verify, "},\n");
	printf(" \"idle\": [");
	for (size_t i = 0; i < pin->nidle; i++) {
		const struct idle *d = &pin->idle[i];

		printf("%s\n  {\"run\": %u, \"verify_after_sign\": %s, \"seconds\": %.1f, "
		    "\"wakeups_per_s\": {\"parent\": %.2f, \"keyholder\": %.2f, \"signers\": [",
		    i ? "," : "", d->run, d->verify_after_sign ? "true" : "false", o->idle_s,
		    d->parent, d->keyholder);
		for (size_t k = 0; k < d->nsigners; k++)
			printf("%s%.2f", k ? ", " : "", d->signers[k]);
		printf("]}}");
	}
	printf("]}\n");
}

/* Ends a target's line with the range over the runs, if there were several. */
static void print_runs(const struct spread *sp, int decimals)
{
	if (sp->n > 1)
		printf("; median of %zu runs, %.*f to %.*f", sp->n, decimals, sp->min, decimals,
		    sp->max);
	printf("\n");
}

static void print_targets(const struct yardstick *y, long cores, const struct targets *t)
{
	printf("in-process p256_sign (best over all runs): %.1f us per signature; "
	    "%.0f signs/s on %ld threads; %.0f signs per CPU-second; p256_sign_checked %.1f us\n",
	    1e6 / y->rate1, y->rate_all, cores, y->per_cpu_s, 1e6 / y->rate1_checked);
	if (t->ratio64.n > 0) {
		printf("64 connections: %.3f x the in-process rate (target >= 0.7)",
		    t->ratio64.median);
		if (t->cpu_ratio64.median > 0)
			printf("; per CPU-second (daemon and bench-load): %.3f x",
			    t->cpu_ratio64.median);
		print_runs(&t->ratio64, 3);
		if (t->workers_us.median > 0)
			printf("64 connections, CPU time per signature: workers %.1f us, parent %.1f us, "
			    "bench-load %.1f us\n", t->workers_us.median, t->parent_us.median,
			    t->self_us.median);
	}
	if (t->daemon64.n > 0) {
		printf("64 connections: the daemon's CPU per signature is %.3f x sign_us (target "
		    "<= 1.2)", t->daemon64.median);
		print_runs(&t->daemon64, 3);
	}
	if (t->daemon64_verify.n > 0) {
		printf("64 connections, verify_after_sign: %.3f x sign_checked_us (target <= 1.15)",
		    t->daemon64_verify.median);
		print_runs(&t->daemon64_verify, 3);
	}
	if (t->extra1_us.n > 0) {
		printf("1 connection, 1 request at a time: p50 = sign time + %.1f us (target <= 40)",
		    t->extra1_us.median);
		print_runs(&t->extra1_us, 1);
	}
	if (t->light_over.n > 0) {
		printf("1 connection, a request every %u us: the daemon's CPU per signature is "
		    "sign_us (its CPU time) + %.1f us (target <= 60)", LIGHT_INTERVAL_US,
		    t->light_over.median);
		print_runs(&t->light_over, 1);
	}
	if (t->light_over_verify.n > 0) {
		printf("the same, verify_after_sign: sign_checked_us + %.1f us (target <= 60)",
		    t->light_over_verify.median);
		print_runs(&t->light_over_verify, 1);
	}
	if (t->light_cold.n > 0) {
		printf("the same against a signature made after %u us asleep (%.1f us, checked %.1f "
		    "us): + %.1f us, verify_after_sign + %.1f us\n", LIGHT_INTERVAL_US, y->cold_us,
		    y->cold_checked_us, t->light_cold.median, t->light_cold_verify.median);
	}
}

/* --idle-seconds without --json: each daemon's wake-ups per second. */
static void print_idle(const struct load *l)
{
	for (size_t i = 0; i < l->nidle; i++) {
		const struct idle *d = &l->idle[i];

		printf("idle, run %u, verify_after_sign %s: wake-ups per second: parent %.2f, "
		    "key-holder %.2f, signers", d->run, d->verify_after_sign ? "on" : "off",
		    d->parent, d->keyholder);
		for (size_t k = 0; k < d->nsigners; k++)
			printf(" %.2f", d->signers[k]);
		printf(" (target <= 1)\n");
	}
}

/*
 * One run: the yardstick, every connection count (with a daemon of our own: with
 * verify_after_sign on, then off), the yardstick again. The better of the two yardsticks is the
 * run's, so that a busy moment of the machine cannot flatter the daemon; *best keeps the best
 * over all runs.
 */
static int one_run(struct load *l, const struct p256_key *key, long cores, unsigned run,
	struct result *res, size_t *n, struct yardstick *best)
{
	struct yardstick y = { 0 };
	size_t first = *n, first_idle = l->nidle;

	if (measure_yardstick(key, cores, l->o->light, &y) != 0)
		return -1;
	if (l->o->socket != NULL) {
		if (run_all(l, l->o->socket, -1, res, n) != 0)
			return -1;
	} else if (own_daemon(l, 1, res, n) != 0 || own_daemon(l, 0, res, n) != 0)
		return -1;
	if (measure_yardstick(key, cores, l->o->light, &y) != 0)
		return -1;
	for (size_t i = first; i < *n; i++) {
		res[i].run = run;
		res[i].ratio = res[i].rate / y.rate_all;
		res[i].cpu_ratio = res[i].per_cpu_s / y.per_cpu_s;
		res[i].sign_us = 1e6 / y.rate1;
		res[i].sign_checked_us = 1e6 / y.rate1_checked;
		double daemon = res[i].us_per_sign.parent + res[i].us_per_sign.workers;
		int v = res[i].verify_after_sign == 1;

		res[i].sign_cpu_us = y.per_cpu_s1 > 0 ? 1e6 / y.per_cpu_s1 : 0;
		res[i].sign_checked_cpu_us = y.per_cpu_s1_checked > 0 ? 1e6 / y.per_cpu_s1_checked : 0;
		res[i].daemon_cpu_ratio = daemon / (v ? res[i].sign_checked_us : res[i].sign_us);
		res[i].daemon_over_sign_us = daemon -
		    (v ? res[i].sign_checked_cpu_us : res[i].sign_cpu_us);
		if (res[i].light) {
			res[i].cold_us = v ? y.cold_checked_us : y.cold_us;
			res[i].daemon_over_cold_us = daemon - res[i].cold_us;
		}
	}
	for (size_t i = first_idle; i < l->nidle; i++)
		l->idle[i].run = run;
	keep_best(best, &y);
	return 0;
}

int main(int argc, char **argv)
{
	struct options o;
	struct load l = { .o = &o };
	struct result *res = NULL;
	struct yardstick y = { 0 };
	struct targets t;
	size_t n = 0;
	struct p256_key key = { 0 };
	uint8_t d[P256_SCALAR_LEN];
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int r = 1;

	if (parse_args(argc, argv, &o) != 0) {
		usage(stderr);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	/* Two daemons (verify_after_sign on and off) per run, each with its rows and its count of
	 * idle wake-ups. */
	if ((res = calloc((size_t)o.runs * 2 * (o.nconns + 1), sizeof(*res))) == NULL ||
	    (l.idle = calloc((size_t)o.runs * 2, sizeof(*l.idle))) == NULL ||
	    (l.sent_ns = calloc(ID_SLOTS, sizeof(*l.sent_ns))) == NULL || make_template(&l) != 0)
		goto out;
	do {
		if (getrandom(d, sizeof(d), 0) != sizeof(d))
			goto out;
	} while (p256_key_init(&key, d) != 0);
	for (unsigned run = 1; run <= o.runs; run++) {
		if (!o.json) {
			if (o.runs > 1)
				printf("run %u of %u\n", run, o.runs);
			printf("verify_after_sign  conns depth      signs/s  per-CPU-s   p50(us)   "
			    "p99(us)  errors every(us)\n");
		}
		if (one_run(&l, &key, cores, run, res, &n, &y) != 0)
			goto out;
	}
	judge(res, n, &t);
	if (o.json)
		print_json(&o, &l, cores, &y, res, n, &t);
	else {
		print_targets(&y, cores, &t);
		print_idle(&l);
	}
	r = 0;
	for (size_t i = 0; i < n; i++)
		if (res[i].errors != 0)
			r = 1;
out:
	explicit_bzero(d, sizeof(d));
	p256_key_clear(&key);
	free(res);
	free(l.idle);
	free(l.sent_ns);
	free(l.lat_ns);
	if (r != 0 && n == 0)
		fprintf(stderr, "bench-load: failed\n");
	return r;
}
