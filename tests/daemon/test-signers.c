/* SPDX-License-Identifier: ISC */
/*
 * Unit test of the parent's set of signers (daemon/signers.c) over socketpairs: the test plays
 * the key-holder (it hands over channels, reports exits, restarts what it is asked to) and the
 * signers (fake ones, on the other end of each pair, that answer, stay silent, die, answer out
 * of order or with the wrong reply). Every request must be answered exactly once, with the
 * signature of its own digest:
 * - start-up: ready only once every signer of the generation has passed its self-test; a signer
 *   with a wrong known answer is failed and replaced;
 * - idle: with nothing outstanding no answer is due and the tick is not armed again;
 * - a signer that dies with requests: they are sent again to the other one (resent counted), no
 *   restart asked (the key-holder reaps it); its replacement takes requests;
 * - a signer that answers out of order, with a reply type its request does not expect, or with a
 *   field out of range: failed, restart asked, its requests answered by the other;
 * - a hung signer (silent with requests, a short worker timeout): dropped (hung counted),
 *   restart asked, its requests answered by the other; no timing is asserted, only outcomes;
 * - both signers stopped at once: once under suspicion their requests are sent again, never to
 *   either of them, and the first signer that answers takes them; late answers are dropped;
 * - a reload: requests go to the new generation only once it is switched to; a draining signer
 *   of the old one finishes its requests and is closed; one that dies while draining has its
 *   requests remapped to the new key set (remap_cb), or failed when the key has gone;
 * - requests that wait with no signer time out (signers_expire), a late answer is dropped, the
 *   in-flight limit answers overloaded, signers_cancel answers the rest; signers that keep dying
 *   before their self-test end the daemon (fatal_cb).
 */
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "testutil.h"
#include "clock.h"
#include "ipc.h"
#include "keyset.h"
#include "proto.h"
#include "selftest.h"
#include "signers.h"

#define MAX_INFLIGHT 64
#define TIMEOUT_MS 60000	/* worker_timeout_ms: no signer is suspected by accident */
#define HUNG_TIMEOUT_MS 200	/* the hung case's own set: its signer goes quickly */
#define NFAKES 24
#define REMAPPED_KEY 99		/* what remap_cb answers (the test's keys are 0, 1, 2) */
#define NREQ 48

/* How a fake signer treats what it reads. */
enum mode {
	ANSWER,			/* every request in order, at once */
	SILENT,			/* reads, never answers (stopped or hung) */
	REVERSED,		/* once two requests wait: answers the second first */
	WRONG_TYPE,		/* answers a SIGN with a PONG */
	BAD_FIELD,		/* answers a SIGN with from_pool 2 */
	BAD_SELFTEST,		/* answers its self-test with a wrong known answer */
};

struct fake {
	int fd;			/* -1: closed or never used */
	uint32_t id;
	enum mode mode;
	struct ipc_header h[MAX_INFLIGHT + 2];	/* requests read, not yet answered */
	uint32_t key[MAX_INFLIGHT + 2];
	uint8_t digest[MAX_INFLIGHT + 2][P256_DIGEST_LEN];
	size_t n;
	unsigned signs;		/* SIGN requests it has read */
	unsigned remapped;	/* of those, for REMAPPED_KEY */
	int eof;		/* the set closed its end */
	uint8_t in[8192];
	size_t have;
};

/* One request of the test's, the ctx of signers_sign. */
struct req {
	uint8_t digest[P256_DIGEST_LEN];
	unsigned answers;
	uint16_t error;
	uint8_t sig[P256_SIG_LEN];
};

static struct {
	struct event_base *base;
	struct signers set;
	struct fake fakes[NFAKES];
	uint32_t ready_gen;
	unsigned restarts;
	uint32_t restarted[32];
	unsigned fatal;
	unsigned remaps;
	int remap_to;		/* key index remap_cb answers; -1: the key has gone */
	unsigned late;		/* signed_cb calls for a request answered already */
} t;

static void signed_cb(void *ctx, uint16_t error, const uint8_t sig[P256_SIG_LEN], int from_pool)
{
	struct req *r = ctx;

	if (r->answers++ > 0)
		t.late++;
	r->error = error;
	if (error == 0)
		memcpy(r->sig, sig, P256_SIG_LEN);
	CHECK(from_pool == 0);
}

static void ready_cb(void *arg, uint32_t gen)
{
	t.ready_gen = gen;
}

static void changed_cb(void *arg)
{
}

static void restart_cb(void *arg, uint32_t id)
{
	if (t.restarts < sizeof(t.restarted) / sizeof(t.restarted[0]))
		t.restarted[t.restarts] = id;
	t.restarts++;
}

static void fatal_cb(void *arg, const char *why)
{
	t.fatal++;
}

static int remap_cb(void *arg, uint32_t from, uint32_t key, uint32_t to)
{
	t.remaps++;
	CHECK(from + 1 == to);
	return t.remap_to;
}

static const struct signers_callbacks cbs = { signed_cb, ready_cb, changed_cb, restart_cb,
	fatal_cb, remap_cb };

/* The key-holder's part: a new signer `id` of generation gen behaving as mode. */
static struct fake *add(uint32_t gen, uint32_t id, enum mode mode)
{
	struct fake *f = &t.fakes[id];
	int sv[2];

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->id = id;
	f->mode = mode;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		CHECK(!"socketpair");
		return f;
	}
	CHECK(fcntl(sv[1], F_SETFL, O_NONBLOCK) == 0);
	f->fd = sv[1];
	CHECK_INT(signers_add(&t.set, gen, id, (pid_t)(1000 + id), sv[0]), 0);
	return f;
}

/* The signer dies: its end closes, and the key-holder reports it. */
static void die(struct fake *f, int report)
{
	close(f->fd);
	f->fd = -1;
	if (report)
		signers_exited(&t.set, f->id, 9);	/* "killed by signal 9" as a wait status */
}

static void reply(struct fake *f, size_t i, uint16_t type, const struct ipc_signature *s)
{
	uint8_t buf[IPC_SIGNER_MSG_MAX];
	size_t len = 0;

	CHECK_INT(ipc_put(buf, sizeof(buf), &len, type, f->h[i].id, s, s != NULL ? sizeof(*s) : 0),
	    0);
	CHECK_INT(write(f->fd, buf, len), len);
}

/* The answer a well-behaved signer gives to request i: the "signature" is its digest twice,
 * which the test then finds in the right request's answer. */
static void answer(struct fake *f, size_t i)
{
	static const struct keyset none = { 0 };
	struct ipc_signature s = { 0 };

	switch (f->h[i].type) {
	case IPC_SELFTEST:
		CHECK_INT(selftest_run(&none, s.sig), 0);
		if (f->mode == BAD_SELFTEST)
			s.sig[0] ^= 1;
		reply(f, i, IPC_SELFTEST_RESULT, &s);
		return;
	case IPC_PING:
		reply(f, i, IPC_PONG, NULL);
		return;
	}
	memcpy(s.sig, f->digest[i], P256_DIGEST_LEN);
	memcpy(s.sig + P256_DIGEST_LEN, f->digest[i], P256_DIGEST_LEN);
	if (f->mode == WRONG_TYPE) {
		reply(f, i, IPC_PONG, NULL);
		return;
	}
	if (f->mode == BAD_FIELD)
		s.from_pool = 2;
	reply(f, i, IPC_SIGNATURE, &s);
}

/* Reads what the set sent f and answers as f's mode says. */
static void serve(struct fake *f)
{
	ssize_t n;
	size_t off = 0, used;
	struct ipc_header h;
	const uint8_t *body;

	if (f->fd < 0 || f->eof)
		return;
	n = read(f->fd, f->in + f->have, sizeof(f->in) - f->have);
	if (n == 0)
		f->eof = 1;
	if (n <= 0)
		return;
	f->have += (size_t)n;
	while (ipc_next(f->in + off, f->have - off, PROC_PARENT, PROC_SIGNER, &h, &body, &used) == 0) {
		f->h[f->n] = h;
		f->key[f->n] = 0;
		if (h.type == IPC_SIGN) {
			struct ipc_sign s;

			memcpy(&s, body, sizeof(s));
			f->key[f->n] = s.key;
			memcpy(f->digest[f->n], s.digest, P256_DIGEST_LEN);
			f->signs++;
			f->remapped += s.key == REMAPPED_KEY;
		}
		f->n++;
		off += used;
	}
	memmove(f->in, f->in + off, f->have - off);
	f->have -= off;
	if (f->mode == SILENT)
		return;
	if (f->mode == REVERSED) {
		for (size_t i = 0; i < f->n; i++)
			if (f->h[i].type != IPC_SIGN) {
				answer(f, i);	/* the self-test and pings in order */
				memmove(&f->h[i], &f->h[i + 1], (f->n - i - 1) * sizeof(f->h[0]));
				memmove(&f->digest[i], &f->digest[i + 1], (f->n - i - 1) * P256_DIGEST_LEN);
				f->n--;
				i--;
			}
		if (f->n >= 2) {
			answer(f, 1);
			answer(f, 0);
			f->n = 0;
		}
		return;
	}
	for (size_t i = 0; i < f->n; i++)
		if (f->mode != BAD_SELFTEST || f->h[i].type == IPC_SELFTEST)
			answer(f, i);
	f->n = 0;
}

/* One turn of the parent's event loop, then of every fake signer. */
static void turn(void)
{
	CHECK(event_base_loop(t.base, EVLOOP_NONBLOCK) >= 0);
	for (size_t i = 0; i < NFAKES; i++)
		serve(&t.fakes[i]);
	usleep(500);
}

/* Turns until cond holds; 10 s without it is a failure (a guard, not a timing check). */
#define UNTIL(cond) do { \
	uint64_t until_end_ = clock_now_us() + 10 * 1000 * 1000; \
	while (!(cond) && clock_now_us() < until_end_) \
		turn(); \
	CHECK(cond); \
} while (0)

static void submit(struct req *r, size_t n, uint8_t tag)
{
	memset(r, 0, n * sizeof(*r));
	for (size_t i = 0; i < n; i++) {
		memset(r[i].digest, tag, P256_DIGEST_LEN);
		r[i].digest[0] = (uint8_t)i;
		CHECK_INT(signers_sign(&t.set, (uint32_t)(i % 3), r[i].digest, &r[i]), 0);
	}
}

/* 1 when every request of r has its answer; with want_ok, each once and with its own digest. */
static int all_answered(const struct req *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (r[i].answers == 0)
			return 0;
	return 1;
}

static void check_signed(const struct req *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		CHECK_INT(r[i].answers, 1);
		CHECK_INT(r[i].error, 0);
		CHECK_MEM(r[i].sig, r[i].digest, P256_DIGEST_LEN);
		CHECK_MEM(r[i].sig + P256_DIGEST_LEN, r[i].digest, P256_DIGEST_LEN);
	}
}

static int restarted(uint32_t id)
{
	for (unsigned i = 0; i < t.restarts && i < 32; i++)
		if (t.restarted[i] == id)
			return 1;
	return 0;
}

/* A fault of one signer's (mode) under load: it is failed and restarted, and the other one
 * answers every request. Returns with the faulty one closed and replaced by `next`. */
static void faulty(enum mode mode, uint32_t bad, uint32_t good, uint32_t next)
{
	static struct req r[NREQ];
	unsigned restarts = t.restarts;
	uint64_t resent = t.set.stats.resent;

	t.fakes[bad].mode = mode;
	t.fakes[bad].signs = t.fakes[good].signs = 0;
	submit(r, NREQ, (uint8_t)(0x40 + mode));
	UNTIL(all_answered(r, NREQ) && t.restarts == restarts + 1);
	check_signed(r, NREQ);
	CHECK(restarted(bad));
	CHECK(t.fakes[bad].signs > 0);	/* it did get requests, which then went elsewhere */
	CHECK(t.fakes[good].signs > 0);
	CHECK(t.set.stats.resent > resent);
	UNTIL(t.fakes[bad].eof);	/* the set closed its channel */
	die(&t.fakes[bad], 1);		/* the key-holder kills it and reports */
	CHECK_INT(t.set.alive, 1);
	add(1, next, ANSWER);
	UNTIL(t.set.alive == 2 && signers_healthy(&t.set));
}

int main(void)
{
	static struct req r[MAX_INFLIGHT];
	uint64_t before;

	/* As in the daemon (main.c): a write to a channel whose signer has gone is an error, not
	 * the end of the process. */
	CHECK(signal(SIGPIPE, SIG_IGN) != SIG_ERR);
	CHECK((t.base = event_base_new()) != NULL);
	CHECK_INT(signers_init(&t.set, t.base, 2, MAX_INFLIGHT, TIMEOUT_MS, &cbs, NULL), 0);

	/* Start-up: generation 1 is ready once both signers passed; a wrong known answer fails
	 * its signer, which the key-holder replaces. */
	test_case = "start";
	signers_expect(&t.set, 1);
	add(1, 1, ANSWER);
	add(1, 2, BAD_SELFTEST);
	UNTIL(restarted(2));
	CHECK_INT(t.ready_gen, 0);
	die(&t.fakes[2], 1);
	add(1, 3, ANSWER);
	UNTIL(t.ready_gen == 1);
	signers_switch(&t.set, 1);
	CHECK_INT(t.set.alive, 2);

	/* Saturated only with more than 4 requests out per signer: with 8 over 2 signers the
	 * parent may still poll for their answers; one more, and it does not. */
	test_case = "saturated";
	submit(r, 8, 0x22);
	CHECK(!signers_saturated(&t.set));
	CHECK_INT(signers_sign(&t.set, 0, r[0].digest, &r[8]), 0);
	CHECK(signers_saturated(&t.set));
	UNTIL(all_answered(r, 9));
	CHECK(!signers_saturated(&t.set));

	/* Requests in flight over both, answered in order. */
	test_case = "sign";
	submit(r, NREQ, 0x11);
	CHECK(signers_answer_due_us(&t.set, clock_now_us()) != UINT64_MAX);	/* answers due */
	CHECK(signers_saturated(&t.set));	/* NREQ requests out, 2 signers */
	UNTIL(all_answered(r, NREQ));
	check_signed(r, NREQ);
	CHECK(t.fakes[1].signs > 0 && t.fakes[3].signs > 0);

	/* Idle: nothing is due and the tick, once it has seen that, is not armed again (no
	 * wake-up while nothing happens). */
	test_case = "idle";
	UNTIL(!evtimer_pending(t.set.tick_ev, NULL));
	CHECK(signers_answer_due_us(&t.set, clock_now_us()) == UINT64_MAX);
	CHECK(!signers_saturated(&t.set));
	for (int i = 0; i < 20; i++)
		turn();
	CHECK(!evtimer_pending(t.set.tick_ev, NULL));

	/* Signer 1 dies with requests: they are resent to 3; no restart is asked for (the
	 * key-holder reaps it and starts the replacement itself). */
	test_case = "death";
	before = t.set.stats.resent;
	t.fakes[1].mode = SILENT;
	t.fakes[1].signs = 0;
	submit(r, NREQ, 0x22);
	UNTIL(t.fakes[1].signs > 0);
	{
		unsigned restarts = t.restarts;

		die(&t.fakes[1], 0);
		UNTIL(all_answered(r, NREQ));
		check_signed(r, NREQ);
		CHECK(t.set.stats.resent > before);
		CHECK_INT(t.restarts, restarts);
	}
	signers_exited(&t.set, 1, 9);	/* reported after its channel ended: nothing more */
	CHECK_INT(t.set.alive, 1);
	before = t.set.stats.replaced;
	add(1, 4, ANSWER);
	UNTIL(t.set.alive == 2 && signers_healthy(&t.set));
	CHECK_INT(t.set.stats.replaced, before + 1);
	t.fakes[4].signs = 0;
	submit(r, NREQ, 0x33);
	UNTIL(all_answered(r, NREQ));
	check_signed(r, NREQ);
	CHECK(t.fakes[4].signs > 0);	/* the replacement takes requests */

	/* Faults of a signer's answers: out of order, the wrong reply type, a field out of range;
	 * and one that stops answering (hung, after TIMEOUT_MS). */
	test_case = "out of order";
	faulty(REVERSED, 3, 4, 5);
	test_case = "wrong reply type";
	faulty(WRONG_TYPE, 4, 5, 6);
	test_case = "field out of range";
	faulty(BAD_FIELD, 5, 6, 7);
	/* A reload: generation 2 starts beside 1 (6 and 7), requests go on to generation 1 until
	 * the switch, then to 2 only; a draining signer with requests finishes them and is closed;
	 * one that dies while draining has its requests remapped to the new key set. */
	test_case = "reload";
	t.fakes[6].mode = SILENT;	/* will hold requests of generation 1 */
	t.fakes[6].signs = t.fakes[7].signs = 0;
	submit(r, NREQ / 2, 0x44);
	t.fakes[7].mode = SILENT;
	UNTIL(t.fakes[6].signs > 0 && t.fakes[7].signs > 0);
	signers_expect(&t.set, 2);
	add(2, 9, ANSWER);
	add(2, 10, ANSWER);
	UNTIL(t.ready_gen == 2);
	CHECK_INT(t.fakes[9].signs + t.fakes[10].signs, 0);
	signers_switch(&t.set, 2);
	CHECK_INT(t.set.generation, 2);
	CHECK_INT(t.set.alive, 2);
	CHECK(!t.fakes[6].eof && !t.fakes[7].eof);	/* both still owe requests */
	t.fakes[7].mode = ANSWER;	/* 7 answers them: then it is closed */
	for (size_t i = 0; i < t.fakes[7].n; i++)
		answer(&t.fakes[7], i);
	t.fakes[7].n = 0;
	UNTIL(t.fakes[7].eof);
	CHECK(!t.fakes[6].eof);
	before = t.fakes[6].signs;
	submit(r + NREQ / 2, NREQ / 2, 0x55);
	UNTIL(all_answered(r + NREQ / 2, NREQ / 2));
	check_signed(r + NREQ / 2, NREQ / 2);
	CHECK_INT(t.fakes[6].signs, before);	/* new requests go to generation 2 only */
	CHECK_INT(t.fakes[9].remapped + t.fakes[10].remapped, 0);
	t.remap_to = REMAPPED_KEY;
	die(&t.fakes[6], 0);		/* dies while draining: its requests are remapped */
	UNTIL(all_answered(r, NREQ / 2));
	check_signed(r, NREQ);
	CHECK(t.remaps > 0);
	CHECK_INT(t.fakes[9].remapped + t.fakes[10].remapped, t.fakes[6].signs);
	die(&t.fakes[7], 1);
	signers_exited(&t.set, 6, 9);

	/* A key that has gone in the new set: its remapped requests fail (internal), once. */
	test_case = "remap gone";
	t.fakes[9].mode = t.fakes[10].mode = SILENT;
	t.fakes[9].signs = t.fakes[10].signs = 0;
	signers_expect(&t.set, 3);
	add(3, 11, ANSWER);
	add(3, 12, ANSWER);
	submit(r, 8, 0x66);
	UNTIL(t.fakes[9].signs + t.fakes[10].signs == 8);
	UNTIL(t.ready_gen == 3);
	signers_switch(&t.set, 3);
	t.remap_to = -1;
	die(&t.fakes[9], 1);
	die(&t.fakes[10], 1);
	UNTIL(all_answered(r, 8));
	for (size_t i = 0; i < 8; i++) {
		CHECK_INT(r[i].answers, 1);
		CHECK_INT(r[i].error, PROTO_E_INTERNAL);
	}

	/* No signer: requests wait, time out (once), and a late answer is dropped; the in-flight
	 * limit answers overloaded; cancel answers the rest. */
	test_case = "expire, overload, cancel";
	t.fakes[11].mode = t.fakes[12].mode = SILENT;
	t.fakes[11].signs = t.fakes[12].signs = 0;
	submit(r, MAX_INFLIGHT, 0x77);
	{
		struct req extra = { .digest = { 1 } };

		CHECK_INT(signers_sign(&t.set, 0, extra.digest, &extra), -PROTO_E_OVERLOADED);
	}
	UNTIL(t.fakes[11].signs + t.fakes[12].signs == MAX_INFLIGHT);
	usleep(2000);
	signers_expire(&t.set, 1);	/* every request is older than 1 ms */
	for (size_t i = 0; i < MAX_INFLIGHT; i++) {
		CHECK_INT(r[i].answers, 1);
		CHECK_INT(r[i].error, PROTO_E_TIMEOUT);
	}
	t.fakes[11].mode = ANSWER;
	serve(&t.fakes[11]);		/* answers late: dropped, not a second answer */
	for (size_t i = 0; i < t.fakes[11].n; i++)
		answer(&t.fakes[11], i);
	t.fakes[11].n = 0;
	UNTIL(t.set.inflight < MAX_INFLIGHT);
	CHECK_INT(t.late, 0);
	t.fakes[11].mode = SILENT;
	submit(r, 4, 0x78);
	signers_cancel(&t.set, PROTO_E_SHUTTING_DOWN);
	for (size_t i = 0; i < 4; i++) {
		CHECK_INT(r[i].answers, 1);
		CHECK_INT(r[i].error, PROTO_E_SHUTTING_DOWN);
	}
	CHECK_INT(t.late, 0);

	/* With no signer alive, requests wait; they time out there too, and the signer that
	 * comes back drops them rather than sign them. */
	test_case = "expire waiting";
	die(&t.fakes[11], 1);
	die(&t.fakes[12], 1);
	CHECK_INT(t.set.alive, 0);
	CHECK(!signers_healthy(&t.set));
	submit(r, 4, 0x79);
	usleep(2000);
	signers_expire(&t.set, 1);
	for (size_t i = 0; i < 4; i++) {
		CHECK_INT(r[i].answers, 1);
		CHECK_INT(r[i].error, PROTO_E_TIMEOUT);
	}
	add(3, 22, ANSWER);
	UNTIL(signers_healthy(&t.set) && t.set.inflight == 0);
	CHECK_INT(t.fakes[22].signs, 0);
	CHECK_INT(t.late, 0);

	/* Signers that keep dying before their self-test end the daemon: the fifth in a row. */
	test_case = "failed starts";
	CHECK_INT(t.set.failed_starts, 0);
	for (uint32_t id = 13; id < 18; id++) {
		unsigned failed = t.set.failed_starts;

		CHECK_INT(t.fatal, 0);
		add(3, id, SILENT);
		die(&t.fakes[id], 0);
		UNTIL(t.set.failed_starts > failed);
	}
	CHECK_INT(t.fatal, 1);

	/* A hung signer, in a set of its own with a short timeout: silent with requests for
	 * HUNG_TIMEOUT_MS, it is dropped and restarted, and the other one answers. */
	test_case = "hung";
	signers_close(&t.set);
	CHECK_INT(signers_init(&t.set, t.base, 2, MAX_INFLIGHT, HUNG_TIMEOUT_MS, &cbs, NULL), 0);
	signers_expect(&t.set, 1);
	add(1, 19, ANSWER);
	add(1, 20, ANSWER);
	UNTIL(t.ready_gen == 1);
	signers_switch(&t.set, 1);
	faulty(SILENT, 19, 20, 21);
	CHECK_INT(t.set.stats.hung, 1);

	/* Both signers stopped at once, with requests: under suspicion, neither is fresh, so
	 * their requests go to neither of them again but wait for the first signer that answers:
	 * a new one (23), which takes them all, each answered once. */
	test_case = "both stopped";
	t.fakes[20].mode = t.fakes[21].mode = SILENT;
	t.fakes[20].signs = t.fakes[21].signs = 0;
	before = t.set.stats.resent;
	submit(r, NREQ, 0x88);
	UNTIL(t.fakes[20].signs + t.fakes[21].signs == NREQ);
	UNTIL(t.set.stats.resent >= before + NREQ);	/* both suspected: all sent again */
	CHECK_INT(t.set.stats.resent, before + NREQ);
	add(1, 23, ANSWER);
	UNTIL(all_answered(r, NREQ));
	check_signed(r, NREQ);
	CHECK_INT(t.fakes[23].signs, NREQ);
	CHECK_INT(t.fakes[20].signs + t.fakes[21].signs, NREQ);	/* never sent to them again */
	/* Their late answers are dropped. */
	for (uint32_t id = 20; id <= 21; id++) {
		if (t.fakes[id].fd < 0 || t.fakes[id].eof)
			continue;
		for (size_t i = 0; i < t.fakes[id].n; i++)
			answer(&t.fakes[id], i);
		t.fakes[id].n = 0;
	}
	for (int k = 0; k < 20; k++)
		turn();
	CHECK_INT(t.late, 0);

	signers_close(&t.set);
	for (size_t i = 0; i < NFAKES; i++)
		if (t.fakes[i].fd >= 0)
			close(t.fakes[i].fd);
	event_base_free(t.base);
	CHECK_INT(t.late, 0);
	return test_done("signers");
}
