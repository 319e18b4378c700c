/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_REQUEST_H
#define P256SIGND_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "server.h"

/*
 * Requests: the one function every frame passes through (request_handle; the place for access
 * control and audit), the answers the parent gives from public data (PING, PUBKEY, VERIFY,
 * LIST_KEYS, STATUS) and the hand-off of SIGN and SIGN_MESSAGE to a signer.
 */

/* Decodes one frame (len bytes after the length prefix) from c and answers it, now or when a
 * signer replies. start_us is when the frame was taken. */
void request_handle(struct server *s, struct conn *c, const uint8_t *frame, size_t len,
	uint64_t start_us);

/* The signers' signed_cb: a signer's answer (or a failure) for a request of request_handle. */
void request_signed(void *ctx, uint16_t error, const uint8_t sig[P256_SIG_LEN], int from_pool);


#endif
