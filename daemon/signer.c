/* SPDX-License-Identifier: ISC */
/* The signer role (signer.h). */
#include "signer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "busypoll.h"
#include "ipc.h"
#include "log.h"
#include "proc.h"
#include "selftest.h"
#include "tls.h"

/* What a signer answers, from whom: its only peer is the parent. */
typedef int (*signer_handler)(const struct keytab *kt, const uint8_t *body,
	struct ipc_signature *out);

/* Signs digest with key `key` if its purpose allows op, verified when the key says so. */
static int sign_digest(const struct keytab *kt, uint32_t key, const uint8_t *digest,
	enum policy_op op, struct ipc_signature *out)
{
	const struct key_public *kp = &kt->pub[key];

	if (!policy_purpose_allows(kp->purpose, op)) {
		log_error("signer %d: key %s may not sign this (purpose %s)", (int)getpid(), kp->name,
		    policy_purpose_name(kp->purpose));
		out->result = P256_ERR_INTERNAL;
		return 0;
	}
	if (kp->verify_after_sign)
		out->result = p256_sign_checked(&kt->priv[key], digest, kp->nonce, NULL, 0, out->sig);
	else
		out->result = p256_sign(kt->priv[key].d, digest, kp->nonce, NULL, 0, out->sig);
	return 0;
}

static int answer_sign(const struct keytab *kt, const uint8_t *body, struct ipc_signature *out)
{
	struct ipc_sign req;

	memcpy(&req, body, sizeof(req));	/* the table fixed its length */
	if (req.key >= kt->n) {
		out->result = P256_ERR_INTERNAL;
		return 0;
	}
	return sign_digest(kt, req.key, req.digest, POLICY_SIGN, out);
}

/* A handshake signature: the content is built here, from its parts, and must be the kind the
 * key's purpose allows (the parent checks both too; this holds even if the parent is not ours). */
static int answer_sign_tls(const struct keytab *kt, const uint8_t *body,
	struct ipc_signature *out)
{
	struct ipc_sign_tls req;
	uint8_t digest[P256_DIGEST_LEN];

	memcpy(&req, body, sizeof(req));
	if (req.key >= kt->n || proto_tls_digest(&req.tls, digest) != 0) {
		out->result = P256_ERR_INTERNAL;
		return 0;
	}
	return sign_digest(kt, req.key, digest,
	    req.tls.side == PROTO_TLS_CLIENT ? POLICY_SIGN_TLS_CLIENT : POLICY_SIGN_TLS_SERVER, out);
}

static int answer_selftest(const struct keytab *kt, const uint8_t *body,
	struct ipc_signature *out)
{
	out->result = selftest_run(kt, out->sig);
	return 0;
}

static int answer_ping(const struct keytab *kt, const uint8_t *body, struct ipc_signature *out)
{
	return 0;
}

static const struct {
	uint16_t type;
	signer_handler fn;
	size_t reply_len;	/* the reply's body: an ipc_signature, or nothing */
} handlers[] = {
	{ IPC_SIGN, answer_sign, sizeof(struct ipc_signature) },
	{ IPC_SIGN_TLS, answer_sign_tls, sizeof(struct ipc_signature) },
	{ IPC_SELFTEST, answer_selftest, sizeof(struct ipc_signature) },
	{ IPC_PING, answer_ping, 0 },
};

/* Answers one request into out; -1 when the message has no handler or the answer no room. */
static int answer(const struct keytab *kt, const struct ipc_header *h, const uint8_t *body,
	uint8_t *out, size_t cap, size_t *len)
{
	struct ipc_signature s;

	for (size_t i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++) {
		if (handlers[i].type != h->type)
			continue;
		memset(&s, 0, sizeof(s));
		if (handlers[i].fn(kt, body, &s) != 0)
			return -1;
		return ipc_put(out, cap, len, ipc_reply_type(h->type), h->id, &s,
		    handlers[i].reply_len);
	}
	return -1;
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
			log_error("signer %d: write: %s", (int)getpid(),
			    w < 0 ? strerror(errno) : "nothing written");
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	*len = 0;
	return 0;
}

/* Reads, answers and writes batches until the parent closes the channel. */
static int serve(int fd, const struct keytab *kt, unsigned poll_us)
{
	/* Every request is at least a header long, which bounds the answers to one read. */
	uint8_t in[IPC_BATCH * (sizeof(struct ipc_header) + sizeof(struct ipc_sign))];
	uint8_t out[sizeof(in) / sizeof(struct ipc_header) * IPC_SIGNER_MSG_MAX];
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
			log_error("signer %d: read: %s", (int)getpid(), strerror(errno));
			return -1;
		}
		have += (size_t)n;
		while ((r = ipc_next(in + off, have - off, PROC_PARENT, PROC_SIGNER, &h, &body,
			    &used)) == 0) {
			if (answer(kt, &h, body, out, sizeof(out), &len) != 0) {
				log_error("signer %d: cannot answer a %s message", (int)getpid(),
				    ipc_type_name(h.type));
				return -1;
			}
			off += used;
			if (++answered % IPC_ANSWERS_PER_WRITE == 0 && send_answers(fd, out, &len) != 0)
				return -1;
		}
		if (r < 0) {
			log_error("signer %d: a message the table refuses (%d)", (int)getpid(), r);
			return -1;
		}
		memmove(in, in + off, have - off);
		have -= off;
		if (send_answers(fd, out, &len) != 0)
			return -1;
	}
}

void signer_main(int fd, struct keytab *kt, unsigned poll_us)
{
	const struct proc_user same = { 0 };
	uint8_t kat[P256_SIG_LEN];
	int r = -1;

	/* First, while nothing is forbidden yet: OpenSSL loads its configuration, algorithms and
	 * tables on first use, which opens files. */
	if ((r = selftest_run(kt, kat)) != 0) {
		log_error("signer %d: self-test failed: %s", (int)getpid(), p256_err_tag(r));
		r = -1;
		goto out;
	}
	if (keys_lock(kt) != 0) {
		log_error("signer %d: cannot lock the keys in memory: %s", (int)getpid(),
		    strerror(errno));
		r = -1;
		goto out;
	}
	if ((r = proc_drop(PROC_SIGNER, &same, NULL)) != 0)
		goto out;
	r = serve(fd, kt, poll_us);
out:
	keys_free(kt);
	exit(r == 0 ? 0 : 1);
}
