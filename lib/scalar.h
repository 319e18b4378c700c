/* SPDX-License-Identifier: ISC */
#ifndef P256_SCALAR_H
#define P256_SCALAR_H

#include <stdint.h>

/*
 * Constant-time arithmetic modulo the P-256 group order n on four 64-bit limbs (least significant
 * first). No branch, memory index or early exit depends on a value; secrets are loaded by byte
 * position. Montgomery form uses R = 2^256. Inputs must be below n unless a function says otherwise.
 */
typedef struct {
	uint64_t v[4];
} scalar;

/* Loads 32 big-endian bytes as they are (may be >= n). */
void scalar_from_bytes(scalar *a, const uint8_t in[32]);

/* Stores 32 big-endian bytes. */
void scalar_to_bytes(uint8_t out[32], const scalar *a);

/* An all-ones mask when 1 <= a < n, else 0. */
uint64_t scalar_in_range(const scalar *a);

/* r = a mod n for any a < 2^256 (one conditional subtraction, since 2^256 < 2n). */
void scalar_reduce(scalar *r, const scalar *a);

/* r = a + b mod n. */
void scalar_add(scalar *r, const scalar *a, const scalar *b);

/* r = a - b mod n, for a and b below n. */
void scalar_sub(scalar *r, const scalar *a, const scalar *b);

/* r = a * b / R mod n (Montgomery product). */
void scalar_mont_mul(scalar *r, const scalar *a, const scalar *b);

/* r = a * R mod n (into Montgomery form). */
void scalar_to_mont(scalar *r, const scalar *a);

/* r = a^-1 mod n (not in Montgomery form), for a < n; a = 0 gives 0. Constant time (safegcd
 * divsteps, lib/modinv.c). */
void scalar_inv(scalar *r, const scalar *a);

/* out = a + n as 33 big-endian bytes (a < n): a fixed-length encoding whose top byte is not zero
 * except with probability about 2^-32, for handing a secret scalar to OpenSSL's BIGNUM. */
void scalar_plus_n_bytes(uint8_t out[33], const scalar *a);

/* Wipes a. */
void scalar_wipe(scalar *a);

#endif
