/* SPDX-License-Identifier: ISC */
#ifndef P256_FIELD_H
#define P256_FIELD_H

#include <stddef.h>
#include <stdint.h>

/*
 * Arithmetic modulo the P-256 field prime p, only what the conversion of a Jacobian point to
 * affine coordinates and its comparison in a verification need. Values are 32 big-endian bytes
 * below p.
 */

/*
 * x = X / Z^2 and, if y is not NULL, y = Y / Z^3 mod p: the affine coordinates of the Jacobian
 * point (X, Y, Z), with Z inverted by the safegcd code (lib/modinv.c). Z = 0 gives x = y = 0.
 * No branch or memory index depends on the values. Y is unused when y is NULL.
 */
void field_affine(uint8_t x[32], uint8_t *y, const uint8_t X[32], const uint8_t *Y,
	const uint8_t Z[32]);

/*
 * x[j] = X[j] / Z[j]^2 and, if y is not NULL, y[j] = Y[j] / Z[j]^3 mod p for j < m
 * (1 <= m <= FIELD_BATCH_MAX): the affine coordinates of m Jacobian points, with one inversion
 * for all the Z (Montgomery's trick: 3(m-1) products more). Every Z must be nonzero (no point at
 * infinity; a zero Z would make every coordinate zero). Constant time; m is public. x and y may
 * not overlap X, Y or Z; Y is unused when y is NULL.
 */
#define FIELD_BATCH_MAX 64
void field_affine_batch(uint8_t (*x)[32], uint8_t (*y)[32], const uint8_t (*X)[32],
	const uint8_t (*Y)[32], const uint8_t (*Z)[32], size_t m);

/*
 * 1 when the affine x of the Jacobian point (X, Y, Z) reduced mod n equals r < n, else 0 (also
 * for Z = 0, the point at infinity): X = c Z^2 for c = r or c = r + n < p, compared without
 * inverting Z. For the public values of a verification only (variable time).
 */
int field_x_mod_n_is(const uint8_t X[32], const uint8_t Z[32], const uint8_t r[32]);

/*
 * Field elements in Montgomery form (a R mod p, R = 2^256, four limbs, least significant first),
 * for the point arithmetic of lib/point-sum.c, on public values only: constant time like
 * everything above, but they leave their scratch on the stack unwiped.
 */
typedef struct {
	uint64_t v[4];
} fe;

/* r = a R mod p for 32 big-endian bytes a < p. */
void fe_from_bytes(fe *r, const uint8_t a[32]);

/* out = a / R mod p as 32 big-endian bytes. */
void fe_to_bytes(uint8_t out[32], const fe *a);

/* r = a b / R mod p; r may alias a or b. */
void fe_mul(fe *r, const fe *a, const fe *b);

/* r = a + b and r = a - b mod p; r may alias a or b. */
void fe_add(fe *r, const fe *a, const fe *b);
void fe_sub(fe *r, const fe *a, const fe *b);

/* 1 when a = 0 mod p, else 0 (every fe is kept below p). */
int fe_is_zero(const fe *a);

#endif
