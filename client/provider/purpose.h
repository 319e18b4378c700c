/* SPDX-License-Identifier: ISC */
#ifndef P256SIGN_PROVIDER_PURPOSE_H
#define P256SIGN_PROVIDER_PURPOSE_H

/* A key's purpose (docs/config.md), read at key load, and what it allows (purpose.c). */
#include <stdint.h>

#include "p256sign.h"

#define PURPOSE_MAX 15	/* the longest purpose name a key may report */

/*
 * The purpose of the key with this id in the daemon's key list (LIST_KEYS) into purpose ("" when
 * the list does not say). 0 or a P256SIGN_E_* code.
 */
int purpose_fetch(struct p256sign *h, const uint8_t id[P256SIGN_KEY_ID_LEN],
	char purpose[PURPOSE_MAX + 1]);

/*
 * Why a key of this purpose may not sign the input, tls (SIGN_TLS) or a digest of the caller's
 * choosing (tls NULL, SIGN): a sentence for the error, or NULL when the provider sends it.
 */
const char *purpose_refusal(const char *purpose, const struct p256sign_tls *tls);

#endif
