/* SPDX-License-Identifier: ISC */
/* The worker's main loop (worker.h). */
#include "worker.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "busypoll.h"
#include "ipc.h"
#include "log.h"
#include "selftest.h"

#define WORKER_FD 3

/* Leaves only stderr and the socketpair (moved to fd 3) open; returns the socketpair's fd. */
static int isolate(int fd)
{
	if (fd != WORKER_FD && dup2(fd, WORKER_FD) < 0)
		return -1;
	if (close_range(WORKER_FD + 1, ~0U, 0) != 0)
		return -1;
	close(STDIN_FILENO);
	close(STDOUT_FILENO);
	return WORKER_FD;
}

static void sign_one(const struct keytab *kt, const struct ipc_header *h, const uint8_t *body,
	struct ipc_signature *out)
{
	struct ipc_sign req;
	const struct key_public *kp;

	memcpy(&req, body, sizeof(req));
	memset(out, 0, sizeof(*out));
	if (h->key >= kt->n) {
		out->result = P256_ERR_INTERNAL;
		return;
	}
	kp = &kt->pub[h->key];
	if (kp->verify_after_sign)
		out->result = p256_sign_checked(&kt->priv[h->key], req.digest, kp->nonce, NULL, 0,
		    out->sig);
	else
		out->result = p256_sign(kt->priv[h->key].d, req.digest, kp->nonce, NULL, 0,
		    out->sig);
}

/* Answers one request into out; -1 when the message cannot be answered. */
static int answer(const struct keytab *kt, const struct ipc_header *h, const uint8_t *body,
	uint8_t *out, size_t cap, size_t *len)
{
	struct ipc_signature s;

	switch (h->type) {
	case IPC_SIGN:
		sign_one(kt, h, body, &s);
		return ipc_put(out, cap, len, IPC_SIGNATURE, h->key, h->id, &s);
	case IPC_SELFTEST:
		memset(&s, 0, sizeof(s));
		s.result = selftest_run(kt, s.sig);
		return ipc_put(out, cap, len, IPC_SELFTEST_RESULT, 0, h->id, &s);
	case IPC_PING:
		return ipc_put(out, cap, len, IPC_PONG, 0, h->id, NULL);
	default:
		return -1;
	}
}

/* Writes the *len bytes of answers gathered in out and empties it; -1 (logged) on failure. */
static int send_answers(int fd, const uint8_t *out, size_t *len)
{
	const uint8_t *p = out;
	size_t n = *len;

	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			log_error("worker %d: write: %s", (int)getpid(),
			    w < 0 ? strerror(errno) : "nothing written");
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	*len = 0;
	return 0;
}

/* Reads, answers and writes batches until the parent closes the socketpair (worker.h). */
static int serve(int fd, const struct keytab *kt, unsigned poll_us)
{
	/* Every message is at least a header long, which bounds the answers to one read. */
	uint8_t in[IPC_BATCH * (sizeof(struct ipc_header) + sizeof(struct ipc_sign))];
	uint8_t out[sizeof(in) / sizeof(struct ipc_header) * IPC_MSG_MAX];
	size_t have = 0;

	for (;;) {
		struct ipc_header h;
		const uint8_t *body;
		size_t off = 0, used, len = 0, answered = 0;
		ssize_t n = busypoll_read(fd, in + have, sizeof(in) - have, poll_us);
		int r;

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			return 0;
		if (n < 0) {
			log_error("worker %d: read: %s", (int)getpid(), strerror(errno));
			return -1;
		}
		have += (size_t)n;
		while ((r = ipc_next(in + off, have - off, IPC_TO_WORKER, &h, &body, &used)) == 0) {
			if (answer(kt, &h, body, out, sizeof(out), &len) != 0) {
				log_error("worker %d: cannot answer message type %u", (int)getpid(),
				    h.type);
				return -1;
			}
			off += used;
			if (++answered % IPC_ANSWERS_PER_WRITE == 0 && send_answers(fd, out, &len) != 0)
				return -1;
		}
		if (r < 0) {
			log_error("worker %d: malformed message from the parent", (int)getpid());
			return -1;
		}
		memmove(in, in + off, have - off);
		have -= off;
		if (send_answers(fd, out, &len) != 0)
			return -1;
	}
}

void worker_main(int fd, struct keytab *kt, unsigned poll_us)
{
	int r = -1;

	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	/* No core dumps or ptrace by the same user of a process holding keys; die with the parent. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 || prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 ||
	    (fd = isolate(fd)) < 0) {
		log_error("worker %d: set-up failed: %s", (int)getpid(), strerror(errno));
		goto out;
	}
	r = serve(fd, kt, poll_us);
out:
	keys_free(kt);
	exit(r == 0 ? 0 : 1);
}
