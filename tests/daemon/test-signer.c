/* SPDX-License-Identifier: ISC */
/*
 * Unit test of a signer process (daemon/signer.c) on its own: forked with a key table built here
 * and driven over a SOCK_SEQPACKET socketpair, which keeps the boundary of every write, so the
 * test sees how the signer groups its answers. A batch of requests is answered in order, with
 * the right signatures, in writes of IPC_ANSWERS_PER_WRITE answers and a last one with the rest;
 * a message the table refuses ends it with status 1; it exits 0 when the parent's end closes. The
 * requests alternate between two keys, one of them verified after signing, and a key index the
 * table does not have: the SIGN requests of a write are signed as one batch, item by item.
 * With key 0 in precomputed mode the same requests are answered with signatures that verify,
 * from its pool or on demand, and once its pool is refilled in idle time an answer says it came
 * from the pool (from_pool), which no answer of a deterministic key or an error ever says; and
 * the idle step (signer_refill_idle) refills a pool only while nothing waits to be read, one
 * batch at a time, until it is full.
 */
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "clock.h"
#include "ipc.h"
#include "keyset.h"
#include "signer.h"
#include "signer-pools.h"

/* RFC 6979 A.2.5's private key and a second one (verify_after_sign); the signatures are checked
 * against p256_sign in this process. */
static const char *D = "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721";
static const char *D2 = "0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0";
#define NKEYS 2
/* Request id's key: mostly key 0, every third key 1, every 29th one the table does not have. */
#define KEY_OF(id) ((id) % 29 == 0 ? NKEYS : (id) % 3 == 0 ? 1u : 0u)

#define REQ_LEN (sizeof(struct ipc_header) + sizeof(struct ipc_sign))
#define ANSWER_LEN IPC_SIGNER_MSG_MAX

static void digest_of(uint64_t id, uint8_t digest[P256_DIGEST_LEN])
{
	memset(digest, (int)(id & 0xff), P256_DIGEST_LEN);
	digest[0] = 0x5a;
}

/* Sends n SIGN requests with ids first.. in one write. */
static void send_batch(int fd, uint64_t first, size_t n)
{
	uint8_t buf[IPC_BATCH * REQ_LEN];
	struct ipc_sign req;
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		req.key = KEY_OF(first + i);
		digest_of(first + i, req.digest);
		CHECK_INT(ipc_put(buf, sizeof(buf), &len, IPC_SIGN, first + i, &req, sizeof(req)), 0);
	}
	CHECK_INT(write(fd, buf, len), len);
}

/* Reads one write of the signer's (waiting at most 10 s); returns its length, 0 on failure. */
static size_t read_record(int fd, uint8_t *buf, size_t cap)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	if (poll(&p, 1, 10000) != 1) {
		CHECK(!"the signer answered within 10 s");
		return 0;
	}
	n = recv(fd, buf, cap, 0);
	CHECK(n > 0);
	return n > 0 ? (size_t)n : 0;
}

/*
 * Reads the answers to ids first.. (n of them), expecting them in writes of `per` answers and a
 * last one with the rest, each signature equal to RFC 6979's for its digest (a precomputed key
 * 0's: one that verifies); returns how many say they came from a pool, which only key 0's may
 * when precomputed.
 */
static size_t expect_answers(int fd, uint8_t d[NKEYS][P256_SCALAR_LEN], uint64_t first,
	size_t n, size_t per, enum p256_nonce mode0)
{
	uint8_t buf[IPC_BATCH * ANSWER_LEN], digest[P256_DIGEST_LEN], want[P256_SIG_LEN];
	uint64_t id = first;
	size_t pooled = 0;

	while (id < first + n) {
		size_t left = (size_t)(first + n - id), expect = left < per ? left : per;
		size_t len = read_record(fd, buf, sizeof(buf)), off = 0, used;
		struct ipc_header h;
		const uint8_t *body;
		struct ipc_signature s;

		if (len == 0)
			return pooled;
		CHECK_INT(len, expect * ANSWER_LEN);
		while (off < len && ipc_next(buf + off, len - off, PROC_SIGNER, PROC_PARENT, &h, &body,
			    &used) == 0) {
			memcpy(&s, body, sizeof(s));
			CHECK_INT(h.type, IPC_SIGNATURE);
			CHECK_INT(h.id, id);
			digest_of(id, digest);
			if (KEY_OF(id) == 0 && mode0 == P256_NONCE_PRECOMPUTED)
				CHECK(s.from_pool <= 1);
			else
				CHECK_INT(s.from_pool, 0);
			pooled += s.from_pool;
			if (KEY_OF(id) == NKEYS) {
				CHECK_INT(s.result, P256_ERR_INTERNAL);
				CHECK(all_zero(s.sig, P256_SIG_LEN));
			} else if (KEY_OF(id) == 0 && mode0 == P256_NONCE_PRECOMPUTED) {
				uint8_t point[P256_POINT_LEN];

				CHECK_INT(s.result, 0);
				CHECK_INT(p256_public_from_private(d[0], point), 0);
				CHECK_INT(p256_verify(point, sizeof(point), digest, s.sig, 0), 0);
			} else {
				CHECK_INT(s.result, 0);
				CHECK_INT(p256_sign(d[KEY_OF(id)], digest, P256_NONCE_DETERMINISTIC,
					NULL, 0, want), 0);
				CHECK_MEM(s.sig, want, P256_SIG_LEN);
			}
			off += used;
			id++;
		}
		CHECK_INT(off, len);
	}
	return pooled;
}

/* Forks a signer with the two keys (key 0 in mode0, key 1 deterministic and verified after
 * signing, with its table) on a new SOCK_SEQPACKET pair; returns its pid and the test's end in
 * *fd. */
static pid_t start_signer(uint8_t d[NKEYS][P256_SCALAR_LEN], enum p256_nonce mode0, int *fd)
{
	uint8_t point[NKEYS][P256_POINT_LEN];
	int sv[2];
	pid_t pid;

	if (p256_public_from_private(d[0], point[0]) != 0 ||
	    p256_public_from_private(d[1], point[1]) != 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		test_fatal("set-up");
	if ((pid = fork()) < 0)
		test_fatal("fork");
	if (pid == 0) {
		struct keyset ks;

		const struct config_key ck[NKEYS] = {
			{ .name = "rfc6979", .nonce = mode0, .purpose = POLICY_PURPOSE_ANY },
			{ .name = "checked", .nonce = P256_NONCE_DETERMINISTIC, .verify_after_sign = 1,
			  .purpose = POLICY_PURPOSE_ANY },
		};

		if (keyset_alloc(&ks, NKEYS) != 0 ||
		    keytab_set_public(&ks.pub[0], &ck[0], point[0]) != 0 ||
		    keytab_set_public(&ks.pub[1], &ck[1], point[1]) != 0 ||
		    p256_key_init_untabled(&ks.priv[0], d[0]) != 0 ||
		    p256_key_init(&ks.priv[1], d[1]) != 0)
			_exit(3);
		close(sv[0]);
		signer_main(sv[1], &ks, 0);
	}
	close(sv[1]);
	*fd = sv[0];
	return pid;
}

static int exit_status(pid_t pid)
{
	int status;

	CHECK_INT(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * Key 0 precomputed: once the signer had idle time to refill its pool, a request for key 0 is
 * answered from it. One request every 10 ms until an answer says so, for at most 10 s.
 */
static void expect_pooled_answer(int fd, uint8_t d[NKEYS][P256_SCALAR_LEN], uint64_t first)
{
	uint64_t deadline = clock_now_us() + 10 * 1000 * 1000;
	size_t pooled = 0;

	for (uint64_t id = first; pooled == 0 && clock_now_us() < deadline; id++) {
		if (KEY_OF(id) != 0)
			continue;
		send_batch(fd, id, 1);
		pooled = expect_answers(fd, d, id, 1, IPC_ANSWERS_PER_WRITE, P256_NONCE_PRECOMPUTED);
		usleep(10000);
	}
	CHECK(pooled == 1);
}

static uint64_t pool_made(struct p256_pool *pool)
{
	struct p256_pool_counts c;

	p256_pool_counts(pool, &c);
	return c.made;
}

/* The idle step refills only while nothing waits on the channel, a batch per call. */
static void test_refill_idle(uint8_t d[P256_SCALAR_LEN])
{
	enum { CAP = 3 * SIGNER_POOL_REFILL + 2 };
	struct p256_pool *pools[3] = { NULL };
	struct p256_key key;
	uint8_t byte = 0, sig[P256_SIG_LEN], digest[P256_DIGEST_LEN] = { 9 };
	int sv[2];

	test_case = "refill in idle time";
	if (p256_key_init_untabled(&key, d) != 0 || p256_pool_new(&pools[1], &key, CAP) != 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		test_fatal("set-up");
	CHECK_INT(write(sv[0], &byte, 1), 1);		/* a request waits */
	CHECK_INT(signer_refill_idle(sv[1], pools, 3, 0), 0);
	CHECK_INT(pool_made(pools[1]), 0);
	CHECK_INT(recv(sv[1], &byte, 1, 0), 1);		/* read: nothing waits now */
	/* Answers just written: it waits (yields) rather than refill. */
	CHECK_INT(signer_refill_idle(sv[1], pools, 3, clock_now_us()), 1);
	CHECK_INT(pool_made(pools[1]), 0);
	for (uint64_t made = SIGNER_POOL_REFILL; made < CAP; made += SIGNER_POOL_REFILL) {
		CHECK_INT(signer_refill_idle(sv[1], pools, 3, 0), 1);
		CHECK_INT(pool_made(pools[1]), made);
	}
	CHECK_INT(signer_refill_idle(sv[1], pools, 3, 0), 1);	/* the last 2 */
	CHECK_INT(pool_made(pools[1]), CAP);
	CHECK_INT(signer_refill_idle(sv[1], pools, 3, 0), 0);	/* full */
	CHECK_INT(p256_pool_sign(pools[1], digest, 0, sig), 0);
	CHECK_INT(write(sv[0], &byte, 1), 1);		/* one used, but a request waits */
	CHECK_INT(signer_refill_idle(sv[1], pools, 3, 0), 0);
	CHECK_INT(pool_made(pools[1]), CAP);
	CHECK_INT(recv(sv[1], &byte, 1, 0), 1);
	close(sv[0]);					/* the channel's end waits too */
	CHECK_INT(signer_refill_idle(sv[1], pools, 3, 0), 0);
	CHECK_INT(pool_made(pools[1]), CAP);
	close(sv[1]);
	p256_pool_free(pools[1]);
	p256_key_clear(&key);
}

int main(void)
{
	uint8_t d[NKEYS][P256_SCALAR_LEN], buf[ANSWER_LEN];
	struct ipc_header h;
	const uint8_t *body;
	size_t used, len = 0;
	int fd;
	pid_t pid;

	hex_exact(D, d[0], sizeof(d[0]));
	hex_exact(D2, d[1], sizeof(d[1]));
	pid = start_signer(d, P256_NONCE_DETERMINISTIC, &fd);

	/* 40 requests in one read: answered in writes of 16, 16 and 8. */
	test_case = "40 requests";
	send_batch(fd, 1, 40);
	expect_answers(fd, d, 1, 40, IPC_ANSWERS_PER_WRITE, P256_NONCE_DETERMINISTIC);

	/* Exactly two writes' worth: no empty write after the second. */
	test_case = "2 x IPC_ANSWERS_PER_WRITE requests";
	send_batch(fd, 100, 2 * IPC_ANSWERS_PER_WRITE);
	expect_answers(fd, d, 100, 2 * IPC_ANSWERS_PER_WRITE, IPC_ANSWERS_PER_WRITE,
	    P256_NONCE_DETERMINISTIC);
	CHECK_INT(ipc_put(buf, sizeof(buf), &len, IPC_PING, 500, NULL, 0), 0);
	CHECK_INT(write(fd, buf, len), len);
	len = read_record(fd, buf, sizeof(buf));
	CHECK_INT(len, sizeof(struct ipc_header));
	CHECK_INT(ipc_next(buf, len, PROC_SIGNER, PROC_PARENT, &h, &body, &used), 0);
	CHECK(h.type == IPC_PONG && h.id == 500);

	/* A small batch: one write. */
	test_case = "5 requests";
	send_batch(fd, 600, 5);
	expect_answers(fd, d, 600, 5, IPC_ANSWERS_PER_WRITE, P256_NONCE_DETERMINISTIC);

	/* The parent's end closes: the signer exits 0. */
	test_case = "close";
	close(fd);
	CHECK_INT(exit_status(pid), 0);

	/* A message only the key-holder may send (IPC_RELOAD is parent -> key-holder): refused by
	 * the table, and the signer ends with status 1 without answering. */
	test_case = "refused message";
	pid = start_signer(d, P256_NONCE_DETERMINISTIC, &fd);
	len = 0;
	CHECK_INT(ipc_put(buf, sizeof(buf), &len, IPC_RELOAD, 1, NULL, 0), 0);
	CHECK_INT(write(fd, buf, len), len);
	CHECK_INT(exit_status(pid), 1);
	close(fd);

	/*
	 * Key 0 precomputed: 40 requests at once (its pool still filling or empty: on demand), then
	 * after 50 ms of idle time (the pool refilled) 40 more, then one at a time.
	 */
	test_case = "precomputed";
	pid = start_signer(d, P256_NONCE_PRECOMPUTED, &fd);
	send_batch(fd, 1000, 40);
	expect_answers(fd, d, 1000, 40, IPC_ANSWERS_PER_WRITE, P256_NONCE_PRECOMPUTED);
	usleep(50000);
	send_batch(fd, 2000, 40);
	expect_answers(fd, d, 2000, 40, IPC_ANSWERS_PER_WRITE, P256_NONCE_PRECOMPUTED);
	for (uint64_t id = 3000; id < 3010; id++) {
		send_batch(fd, id, 1);
		expect_answers(fd, d, id, 1, IPC_ANSWERS_PER_WRITE, P256_NONCE_PRECOMPUTED);
	}
	test_case = "precomputed: an answer from the pool";
	expect_pooled_answer(fd, d, 4000);
	close(fd);
	CHECK_INT(exit_status(pid), 0);

	test_refill_idle(d[0]);
	explicit_bzero(d, sizeof(d));
	return test_done("signer");
}
