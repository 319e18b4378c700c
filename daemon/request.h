/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_REQUEST_H
#define P256SIGND_REQUEST_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "audit.h"
#include "config.h"
#include "keytab.h"
#include "p256.h"
#include "signers.h"
#include "reply.h"
#include "server.h"

/*
 * Requests: the one function every frame passes through (request_handle: decoding, access
 * control, the rate limits), the answers the parent gives from public data (PING, PUBKEY,
 * VERIFY, LIST_KEYS, STATUS), the hand-off of SIGN, SIGN_MESSAGE and SIGN_TLS to a signer, and
 * the request timeouts. Every answer goes through the audit gate (reply.h).
 */

struct event_base;
struct requests;

/* What the request layer works with; everything outlives it. kt and usage are the parent's key
 * set in use: their content changes on reload. */
struct requests_deps {
	const struct config *cfg;
	const struct keytab *kt;
	struct key_usage *usage;
	struct signers *signers;
	struct audit *audit;
	struct replies *replies;
};

/* The request layer on base (its timeout timer armed). NULL (logged) when it cannot be set up. */
struct requests *requests_new(struct event_base *base, const struct requests_deps *deps);

/* Attaches the transport, and the uid that may use the keys with no "allow" (the parent's own,
 * after the privilege drop): before the first frame. */
void requests_start(struct requests *rq, struct server *srv, uid_t daemon_uid);

void requests_free(struct requests *rq);

/* The server's frame callback: decodes one frame (len bytes after the length prefix) from c and
 * answers it, now or when a signer replies. start_us is when the frame was taken. arg: rq. */
void request_handle(void *arg, struct conn *c, const uint8_t *frame, size_t len,
	uint64_t start_us);

/* The server's frame_fault callback: answers a frame that cannot be taken with code. */
void request_frame_fault(void *arg, struct conn *c, uint16_t code, uint64_t start_us);

/* The server's refused callback: a connection refused at accept is counted as answered. */
void request_refused(void *arg);

/* The server's before_write callback: the audit gate's (replies_before_write). */
void request_before_write(void *arg);

/* The signer set's signed_cb: a signer's answer (or a failure) for a request of request_handle. */
void request_signed(void *ctx, uint16_t error, const uint8_t sig[P256_SIG_LEN], int from_pool);

#endif
