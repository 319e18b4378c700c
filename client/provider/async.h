/* SPDX-License-Identifier: ISC */
#ifndef P256SIGN_PROVIDER_ASYNC_H
#define P256SIGN_PROVIDER_ASYNC_H

#include <stddef.h>
#include <stdint.h>

#include "p256sign.h"
#include "sign-input.h"

/*
 * async.c: signs `in` from inside an OpenSSL ASYNC job, pausing the job while the daemon works,
 * its request on the lane the thread's jobs share (lane.h); DER signature into sig. 0, a
 * P256SIGN_E_* code, or ASYNC_NOT_HERE when the caller must sign the blocking way (no job or
 * wait context, or no lane could be started).
 */
#define ASYNC_NOT_HERE 1
int async_sign(const char *path, int timeout_ms, const struct p256sign_key *sel,
	const struct sign_input *in, uint8_t *sig, size_t cap, size_t *len);

#endif
