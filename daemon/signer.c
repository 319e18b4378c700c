/* SPDX-License-Identifier: ISC */
/* The signer role (signer.h). */
#include "signer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "busypoll.h"
#include "clock.h"
#include "ipc.h"
#include "log.h"
#include "proc.h"
#include "selftest.h"
#include "signer-pools.h"
#include "tls.h"

_Static_assert(IPC_ANSWERS_PER_WRITE <= P256_BATCH_MAX, "a chunk's SIGN requests fit one batch");

/* The requests of one write's worth of answers, taken by ipc_dispatch. */
struct chunk {
	struct ipc_header h[IPC_ANSWERS_PER_WRITE];
	const uint8_t *body[IPC_ANSWERS_PER_WRITE];
	uint8_t digest[IPC_ANSWERS_PER_WRITE][P256_DIGEST_LEN];
	struct ipc_signature signed_[IPC_ANSWERS_PER_WRITE];	/* the SIGN and SIGN_TLS answers */
	size_t n;
};

/*
 * The signer's one handler, for every request the parent may send it: the request joins the
 * chunk, which is answered whole once taken (SIGN and SIGN_TLS signed together: sign_chunk).
 * ipc_dispatch stops at a full chunk.
 */
static int take_request(void *ctx, struct ipc_msg *m)
{
	struct chunk *c = ctx;

	c->h[c->n] = m->h;
	c->body[c->n] = m->body;
	c->n++;
	return 0;
}

static const ipc_handler request_handlers[IPC_TYPE_MAX] = {
	[IPC_SIGN] = take_request,
	[IPC_SIGN_TLS] = take_request,
	[IPC_SELFTEST] = take_request,
	[IPC_PING] = take_request,
};

/* Answers request j of c into out; -1 when the answer finds no room. */
static int answer(const struct keyset *ks, const struct chunk *c, size_t j, uint8_t *out,
	size_t cap, size_t *len)
{
	struct ipc_signature s;
	size_t body = sizeof(s);

	memset(&s, 0, sizeof(s));
	switch (c->h[j].type) {
	case IPC_SIGN:
	case IPC_SIGN_TLS:
		s = c->signed_[j];
		break;
	case IPC_SELFTEST:
		s.result = selftest_run(ks, s.sig);
		break;
	default:		/* IPC_PING: its IPC_PONG has no body */
		body = 0;
		break;
	}
	return ipc_put(out, cap, len, ipc_reply_type(c->h[j].type), c->h[j].id, &s, body);
}

/*
 * The digest request j of c asks for, and the key: a SIGN's digest, or SHA-256 of the content a
 * SIGN_TLS handshake signs, built here from its parts. The key's purpose must allow it (the
 * parent checks too; this holds even if the parent is not ours). 1 when j is no signing request;
 * else 0 with *key set, or P256_ERR_INTERNAL (logged when the purpose refuses it).
 */
static int request_digest(const struct keyset *ks, struct chunk *c, size_t j, uint32_t *key)
{
	struct ipc_sign sign;
	struct ipc_sign_tls tls;
	enum policy_op op;

	if (c->h[j].type == IPC_SIGN) {
		memcpy(&sign, c->body[j], sizeof(sign));	/* the table fixed its length */
		memcpy(c->digest[j], sign.digest, sizeof(c->digest[j]));
		*key = sign.key;
		op = POLICY_SIGN;
	} else if (c->h[j].type == IPC_SIGN_TLS) {
		memcpy(&tls, c->body[j], sizeof(tls));
		if (proto_tls_digest(&tls.tls, c->digest[j]) != 0)
			return P256_ERR_INTERNAL;
		*key = tls.key;
		op = tls.tls.side == PROTO_TLS_CLIENT ? POLICY_SIGN_TLS_CLIENT :
		    POLICY_SIGN_TLS_SERVER;
	} else
		return 1;
	if (*key >= ks->n)
		return P256_ERR_INTERNAL;
	if (!policy_purpose_allows(ks->pub[*key].purpose, op)) {
		log_error("signer %d: key %s may not sign this (purpose %s)", (int)getpid(),
		    ks->pub[*key].name, policy_purpose_name(ks->pub[*key].purpose));
		return P256_ERR_INTERNAL;
	}
	return 0;
}

/*
 * Signs the chunk's SIGN and SIGN_TLS requests: a key with a pool of precomputed nonces takes
 * its next entry (the answer's from_pool says so); the others, and a key whose pool is empty,
 * are signed as one batch (p256_sign_batch), each in its key's nonce mode (precomputed: as
 * hedged) and, for a key with verify_after_sign, verified as p256_sign_checked does.
 */
static void sign_chunk(const struct keyset *ks, struct p256_pool *const *pools, struct chunk *c)
{
	struct p256_batch_item items[IPC_ANSWERS_PER_WRITE];
	size_t at[IPC_ANSWERS_PER_WRITE], n = 0;

	for (size_t j = 0; j < c->n; j++) {
		uint32_t key = 0;
		int r;

		memset(&c->signed_[j], 0, sizeof(c->signed_[j]));
		if ((r = request_digest(ks, c, j, &key)) > 0)
			continue;
		if (r != 0) {
			c->signed_[j].result = r;
			continue;
		}
		if (pools[key] != NULL && (r = p256_pool_sign(pools[key], c->digest[j],
			ks->pub[key].verify_after_sign, c->signed_[j].sig)) != 1) {
			c->signed_[j].result = r;
			c->signed_[j].from_pool = r == 0;	/* the parent counts these apart */
			continue;
		}
		items[n] = (struct p256_batch_item){
			.key = &ks->priv[key],
			.digest = c->digest[j],
			.mode = ks->pub[key].nonce,
			.checked = ks->pub[key].verify_after_sign,
		};
		at[n++] = j;
	}
	p256_sign_batch(items, n);	/* cannot refuse n (the assertion above): see each result */
	for (size_t i = 0; i < n; i++) {
		c->signed_[at[i]].result = items[i].result;
		memcpy(c->signed_[at[i]].sig, items[i].sig, P256_SIG_LEN);
	}
	explicit_bzero(items, sizeof(items));
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

/*
 * Answers the requests in in[0, have), chunk by chunk (a chunk ends where a write is due, every
 * IPC_ANSWERS_PER_WRITE answers, counted in *answered), each chunk's SIGN requests signed as one
 * batch; the answers of the last chunk stay in out. Returns 0 with *off the bytes taken (a
 * partial request is left), or -1 (logged).
 */
static int answer_read(int fd, const struct keyset *ks, struct p256_pool **pools,
	const uint8_t *in, size_t have, size_t *off, uint8_t *out, size_t cap, size_t *len)
{
	struct chunk c;
	struct ipc_peer peer;
	size_t answered = 0, max, used;
	int r;

	ipc_peer_init(&peer, PROC_PARENT, PROC_SIGNER, request_handlers, &c);
	*off = 0;
	do {
		max = IPC_ANSWERS_PER_WRITE - answered % IPC_ANSWERS_PER_WRITE;
		c.n = 0;
		r = ipc_dispatch(&peer, in + *off, have - *off, max, NULL, &used);
		*off += used;
		sign_chunk(ks, pools, &c);
		for (size_t j = 0; j < c.n; j++) {
			if (answer(ks, &c, j, out, cap, len) != 0) {
				log_error("signer %d: cannot answer a %s message", (int)getpid(),
				    ipc_type_name(c.h[j].type));
				r = -1;
			}
		}
		if (r == 0 && c.n > 0 && (answered += c.n) % IPC_ANSWERS_PER_WRITE == 0 &&
		    send_answers(fd, out, len) != 0)
			r = -1;
	} while (r == 0 && c.n == max);
	explicit_bzero(&c, sizeof(c));
	if (r < -1)
		log_error("signer %d: the parent %s", (int)getpid(), ipc_err_text(r));
	return r == 0 ? 0 : -1;
}

/* Reads, answers and writes batches until the parent closes the channel: 0 then, else -1. */
static int serve(int fd, const struct keyset *ks, struct p256_pool **pools, unsigned poll_us)
{
	/* Every request is at least a header long, which bounds the answers to one read. */
	uint8_t in[IPC_BATCH * (sizeof(struct ipc_header) + sizeof(struct ipc_sign))];
	uint8_t out[sizeof(in) / sizeof(struct ipc_header) * IPC_SIGNER_MSG_MAX];
	size_t have = 0;
	uint64_t answered_us = 0;	/* the last answers' write: refills wait until it is old */
	struct busypoll bp;

	busypoll_init(&bp, poll_us);

	for (;;) {
		size_t off, len = 0;
		ssize_t n;

		while (signer_refill_idle(fd, pools, ks->n, answered_us) == 1)
			;
		n = busypoll_read(fd, in + have, sizeof(in) - have, &bp);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			return 0;
		if (n < 0) {
			log_error("signer %d: read: %s", (int)getpid(), strerror(errno));
			return -1;
		}
		have += (size_t)n;
		if (answer_read(fd, ks, pools, in, have, &off, out, sizeof(out), &len) != 0)
			return -1;
		memmove(in, in + off, have - off);
		have -= off;
		if (send_answers(fd, out, &len) != 0)
			return -1;
		answered_us = clock_now_us();
		busypoll_idle(&bp, answered_us);
	}
}

void signer_main(int fd, struct keyset *ks, unsigned poll_us)
{
	const struct proc_user same = { 0 };
	struct p256_pool **pools = NULL;
	uint8_t kat[P256_SIG_LEN];
	int r = -1;

	/* First, while nothing is forbidden yet: OpenSSL loads its configuration, algorithms and
	 * tables on first use, which opens files. */
	if ((r = selftest_run(ks, kat)) != 0) {
		log_error("signer %d: self-test failed: %s", (int)getpid(), p256_err_tag(r));
		r = -1;
		goto out;
	}
	if (keyset_lock(ks) != 0) {
		log_error("signer %d: cannot lock the keys in memory: %s", (int)getpid(),
		    strerror(errno));
		r = -1;
		goto out;
	}
	/* Mapped, advised and locked before the sandbox, which allows none of it later. */
	if ((r = signer_pools_new(ks, &pools)) != 0)
		goto out;
	if ((r = proc_drop(PROC_SIGNER, &same, NULL)) != 0)
		goto out;
	r = serve(fd, ks, pools, poll_us);
out:
	signer_pools_free(ks, pools);
	keyset_free(ks);
	exit(r == 0 ? 0 : 1);
}
