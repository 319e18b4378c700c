/* SPDX-License-Identifier: ISC */
#ifndef P256_POINT_SUM_H
#define P256_POINT_SUM_H

#include <stddef.h>
#include <stdint.h>

/* The most points point_sum_equals takes: a batch's (p256.h, P256_BATCH_MAX). */
#define POINT_SUM_MAX 64
/* The signed binary digits of each multiplier: c = sum of d_i 2^i, i < POINT_SUM_BITS. */
#define POINT_SUM_BITS 96

/*
 * 1 when c_0 P_0 + ... + c_{m-1} P_{m-1} equals the point whose Jacobian coordinates are X, Y, Z
 * (32 big-endian bytes each, below p, as ec_jacobian_bytes gives them), else 0; never equal
 * when either side is the point at infinity (Z = 0). P_j is the affine x||y in xy[j], each below
 * p, on the curve (not checked: a point off it makes some wrong sum, so a comparison that
 * fails); c_j is given by its digits d[j][i], each -1, 0 or 1, least significant first;
 * 1 <= m <= POINT_SUM_MAX (else 0). For public values only: variable time (an addition of
 * +-P_j in affine coordinates for every nonzero digit, one doubling per digit position for all
 * the points together; lib/field.c's arithmetic), so sparse digits make it cheap.
 */
int point_sum_equals(const uint8_t (*xy)[64], const int8_t (*d)[POINT_SUM_BITS], size_t m,
	const uint8_t X[32], const uint8_t Y[32], const uint8_t Z[32]);

#endif
