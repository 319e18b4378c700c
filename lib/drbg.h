/* SPDX-License-Identifier: ISC */
#ifndef P256_DRBG_H
#define P256_DRBG_H

#include <stddef.h>
#include <stdint.h>

/*
 * RFC 6979 section 3.2 nonce generation for P-256 and SHA-256: HMAC-DRBG over HMAC-SHA-256, with
 * the section 3.6 additional data appended to the seeding input. K and V are secret; the state is
 * wiped by drbg_free. HMAC runs on OpenSSL's SHA-256 with the key's inner and outer states
 * computed once per key K.
 */
struct drbg;

/*
 * Seeds the DRBG from the private scalar x (32 bytes), the digest already reduced mod n (32 bytes)
 * and additional data (may be empty). Returns 0 or P256_ERR_INTERNAL; *out is NULL on error.
 */
int drbg_new(struct drbg **out, const uint8_t x[32], const uint8_t h1[32], const uint8_t *extra,
	size_t extra_len);

/*
 * The next candidate T (32 bytes) of step h. The first call returns the first candidate; each later
 * call first applies the step h.3 update (K = HMAC_K(V || 0x00), V = HMAC_K(V)), as RFC 6979 asks
 * when a candidate is out of range or gives r = 0 or s = 0.
 */
int drbg_next(struct drbg *d, uint8_t t[32]);

/* Wipes and frees; NULL is allowed. */
void drbg_free(struct drbg *d);

#endif
