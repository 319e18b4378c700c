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
 * x[j] = X[j] / Z[j]^2 mod p for j < m (1 <= m <= FIELD_BATCH_MAX), the affine x of m Jacobian
 * points, with one inversion for all the Z (Montgomery's trick: 3(m-1) products more). Every Z
 * must be nonzero (no point at infinity; a zero Z would make every x zero). Constant time; m
 * is public. x may not overlap X or Z.
 */
#define FIELD_BATCH_MAX 64
void field_affine_x_batch(uint8_t (*x)[32], const uint8_t (*X)[32], const uint8_t (*Z)[32],
	size_t m);

/*
 * 1 when the affine x of the Jacobian point (X, Y, Z) reduced mod n equals r < n, else 0 (also
 * for Z = 0, the point at infinity): X = c Z^2 for c = r or c = r + n < p, compared without
 * inverting Z. For the public values of a verification only (variable time).
 */
int field_x_mod_n_is(const uint8_t X[32], const uint8_t Z[32], const uint8_t r[32]);

#endif
