/* SPDX-License-Identifier: ISC */
#ifndef P256SIGN_PROVIDER_SIGN_INPUT_H
#define P256SIGN_PROVIDER_SIGN_INPUT_H

#include <stdint.h>

#include "p256sign.h"

/* What to sign: a 32-byte digest (SIGN), or (tls not NULL) a TLS handshake's parts (SIGN_TLS). */
struct sign_input {
	const uint8_t *digest;
	const struct p256sign_tls *tls;
};

#endif
