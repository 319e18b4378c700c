/* SPDX-License-Identifier: ISC */
#ifndef P256_POINT_SUM_H
#define P256_POINT_SUM_H

#include <stddef.h>
#include <stdint.h>

/* The most points point_sum_equals takes: a batch's (p256.h, P256_BATCH_MAX). */
#define POINT_SUM_MAX 64

/*
 * 1 when a_0 P_0 + ... + a_{m-1} P_{m-1} equals the point whose Jacobian coordinates are X, Y, Z
 * (32 big-endian bytes each, below p, as ec_jacobian_bytes gives them), else 0; never equal
 * when either side is the point at infinity (Z = 0). P_j is the affine x||y in xy[j], each below
 * p, on the curve (not checked: a point off it makes some wrong sum, so a comparison that
 * fails); a_j are 64-bit multipliers; 1 <= m <= POINT_SUM_MAX (else 0). For public values
 * only: variable time (width-4 NAF over Jacobian coordinates, lib/field.c's arithmetic).
 */
int point_sum_equals(const uint8_t (*xy)[64], const uint64_t *a, size_t m, const uint8_t X[32],
	const uint8_t Y[32], const uint8_t Z[32]);

#endif
