/* SPDX-License-Identifier: ISC */
#ifndef P256_FIELD_H
#define P256_FIELD_H

#include <stdint.h>

/*
 * Constant-time arithmetic modulo the P-256 field prime p, only what the conversion of a
 * Jacobian point to affine coordinates needs. Values are 32 big-endian bytes below p.
 */

/*
 * x = X / Z^2 and, if y is not NULL, y = Y / Z^3 mod p: the affine coordinates of the Jacobian
 * point (X, Y, Z), with Z inverted by the safegcd code (lib/modinv.c). Z = 0 gives x = y = 0.
 * No branch or memory index depends on the values. Y is unused when y is NULL.
 */
void field_affine(uint8_t x[32], uint8_t *y, const uint8_t X[32], const uint8_t *Y,
	const uint8_t Z[32]);

#endif
