/* SPDX-License-Identifier: ISC */
/*
 * Unit test of a worker process (daemon/worker.c) on its own: forked with a key table built here
 * and driven over a SOCK_SEQPACKET socketpair, which keeps the boundary of every write, so the
 * test sees how the worker groups its answers. A batch of requests is answered in order, with the
 * right signatures, in writes of IPC_ANSWERS_PER_WRITE answers and a last one with the rest; the
 * worker exits 0 when the parent's end closes.
 */
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "ipc.h"
#include "keys.h"
#include "worker.h"

/* RFC 6979 A.2.5's private key; the signatures are checked against p256_sign in this process. */
static const char *D = "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721";

#define REQ_LEN (sizeof(struct ipc_header) + sizeof(struct ipc_sign))
#define ANSWER_LEN IPC_MSG_MAX

static void digest_of(uint64_t id, uint8_t digest[P256_DIGEST_LEN])
{
	memset(digest, (int)(id & 0xff), P256_DIGEST_LEN);
	digest[0] = 0x5a;
}

/* Sends n SIGN requests with ids first.. in one write. */
static void send_batch(int fd, uint64_t first, size_t n)
{
	uint8_t buf[IPC_BATCH * REQ_LEN], digest[P256_DIGEST_LEN];
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		digest_of(first + i, digest);
		CHECK_INT(ipc_put(buf, sizeof(buf), &len, IPC_SIGN, 0, first + i, digest), 0);
	}
	CHECK_INT(write(fd, buf, len), len);
}

/* Reads one write of the worker's (waiting at most 10 s); returns its length, 0 on failure. */
static size_t read_record(int fd, uint8_t *buf, size_t cap)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	if (poll(&p, 1, 10000) != 1) {
		CHECK(!"the worker answered within 10 s");
		return 0;
	}
	n = recv(fd, buf, cap, 0);
	CHECK(n > 0);
	return n > 0 ? (size_t)n : 0;
}

/*
 * Reads the answers to ids first.. (n of them), expecting them in writes of `per` answers and a
 * last one with the rest, each signature equal to RFC 6979's for its digest.
 */
static void expect_answers(int fd, const uint8_t d[P256_SCALAR_LEN], uint64_t first, size_t n,
	size_t per)
{
	uint8_t buf[IPC_BATCH * ANSWER_LEN], digest[P256_DIGEST_LEN], want[P256_SIG_LEN];
	uint64_t id = first;

	while (id < first + n) {
		size_t left = (size_t)(first + n - id), expect = left < per ? left : per;
		size_t len = read_record(fd, buf, sizeof(buf)), off = 0, used;
		struct ipc_header h;
		const uint8_t *body;
		struct ipc_signature s;

		if (len == 0)
			return;
		CHECK_INT(len, expect * ANSWER_LEN);
		while (off < len && ipc_next(buf + off, len - off, IPC_TO_PARENT, &h, &body, &used) == 0) {
			memcpy(&s, body, sizeof(s));
			CHECK_INT(h.type, IPC_SIGNATURE);
			CHECK_INT(h.id, id);
			CHECK_INT(s.result, 0);
			digest_of(id, digest);
			CHECK_INT(p256_sign(d, digest, P256_NONCE_DETERMINISTIC, NULL, 0, want), 0);
			CHECK_MEM(s.sig, want, P256_SIG_LEN);
			off += used;
			id++;
		}
		CHECK_INT(off, len);
	}
}

int main(void)
{
	struct key_public pub;
	struct p256_key priv;
	uint8_t d[P256_SCALAR_LEN], buf[ANSWER_LEN];
	int sv[2], status;
	struct ipc_header h;
	const uint8_t *body;
	size_t used;
	pid_t pid;

	hex_exact(D, d, sizeof(d));
	memset(&pub, 0, sizeof(pub));
	pub.nonce = P256_NONCE_DETERMINISTIC;
	pub.verify_after_sign = 0;
	if (p256_key_init_untabled(&priv, d) != 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		test_fatal("set-up");
	if ((pid = fork()) < 0)
		test_fatal("fork");
	if (pid == 0) {
		/* keys_free in the worker must not free this test's stack: give it heap copies. */
		struct keytab own = { .n = 1, .pub = malloc(sizeof(pub)), .priv = malloc(sizeof(priv)) };

		if (own.pub == NULL || own.priv == NULL)
			_exit(3);
		memcpy(own.pub, &pub, sizeof(pub));
		memcpy(own.priv, &priv, sizeof(priv));
		close(sv[0]);
		worker_main(sv[1], &own, 0);
	}
	close(sv[1]);
	p256_key_clear(&priv);

	/* 40 requests in one read: answered in writes of 16, 16 and 8. */
	test_case = "40 requests";
	send_batch(sv[0], 1, 40);
	expect_answers(sv[0], d, 1, 40, IPC_ANSWERS_PER_WRITE);

	/* Exactly two writes' worth: no empty write after the second. */
	test_case = "2 x IPC_ANSWERS_PER_WRITE requests";
	send_batch(sv[0], 100, 2 * IPC_ANSWERS_PER_WRITE);
	expect_answers(sv[0], d, 100, 2 * IPC_ANSWERS_PER_WRITE, IPC_ANSWERS_PER_WRITE);
	size_t len = 0;
	CHECK_INT(ipc_put(buf, sizeof(buf), &len, IPC_PING, 0, 500, NULL), 0);
	CHECK_INT(write(sv[0], buf, len), len);
	len = read_record(sv[0], buf, sizeof(buf));
	CHECK_INT(len, sizeof(struct ipc_header));
	CHECK_INT(ipc_next(buf, len, IPC_TO_PARENT, &h, &body, &used), 0);
	CHECK(h.type == IPC_PONG && h.id == 500);

	/* A small batch: one write. */
	test_case = "5 requests";
	send_batch(sv[0], 600, 5);
	expect_answers(sv[0], d, 600, 5, IPC_ANSWERS_PER_WRITE);

	/* The parent's end closes: the worker exits 0. */
	test_case = "close";
	close(sv[0]);
	CHECK_INT(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	explicit_bzero(d, sizeof(d));
	return test_done("test-worker");
}
