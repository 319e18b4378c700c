/* SPDX-License-Identifier: ISC */
#ifndef P256_VERIFY_INTERNAL_H
#define P256_VERIFY_INTERNAL_H

#include <openssl/ec.h>

#include "p256.h"

/* What verify.c, verify-key.c and sign.c share about public keys; internal to lib/. */

/* A public key prepared for verification (p256.h): P-256 with the point as generator and
 * OpenSSL's precomputed table of its multiples (ec_table_new). */
struct p256_verify_key {
	EC_GROUP *table;
};

/* 1 when flags ask for low s and sig, r and s in range, has s > n/2; else 0. */
int verify_low_s_refused(const uint8_t sig[P256_SIG_LEN], unsigned flags);

#endif
