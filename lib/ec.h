/* SPDX-License-Identifier: ISC */
#ifndef P256_EC_H
#define P256_EC_H

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <stdint.h>

#include "scalar.h"

/* Curve arithmetic through OpenSSL's named P-256 group (nistz256 on x86-64); internal to lib/. */

/* The shared, immutable P-256 group, created once; NULL if OpenSSL failed. */
const EC_GROUP *ec_group(void);

/*
 * x = the affine x coordinate of k*G for a secret 1 <= k < n, in constant time: k goes to OpenSSL
 * as the 33-byte encoding of k + n (see scalar_plus_n_bytes) in a BN_FLG_CONSTTIME BIGNUM, and
 * the result's Jacobian coordinates come back to our constant-time field_affine. x is public (it
 * becomes r). Optionally also y.
 */
int ec_base_mul(const scalar *k, uint8_t x[32], uint8_t y[32]);

/*
 * kG as ec_base_mul computes it, left in Jacobian coordinates: X, Y (if not NULL) and Z (secret,
 * below p), for a caller that converts many points at once (field_affine_batch).
 */
int ec_base_mul_jacobian(const scalar *k, uint8_t X[32], uint8_t *Y, uint8_t Z[32]);

/*
 * The Jacobian coordinates X, Y (if Y is not NULL), Z of p as 32-byte big-endian values, each
 * below the field prime (ec-jacobian.c says why it is a file of its own).
 */
int ec_jacobian_bytes(const EC_GROUP *g, const EC_POINT *p, uint8_t X[32], uint8_t *Y,
	uint8_t Z[32], BN_CTX *ctx);

/* Decodes 65-byte uncompressed or 64-byte x||y into a point on the curve; P256_ERR_POINT otherwise. */
int ec_point_decode(const uint8_t *in, size_t len, EC_POINT **out, BN_CTX *ctx);

/*
 * A copy of the P-256 group whose generator is the public point q, with OpenSSL's precomputed
 * table of its multiples (about 150 KiB, 25 ms to build), for ec_verify_equation; the caller
 * frees it with EC_GROUP_free. ec-table.c says why.
 */
int ec_table_new(const EC_POINT *q, EC_GROUP **out);

/* w = s^-1 * R mod n (Montgomery form, scalar.h) for a public 1 <= s < n, for ec_verify_equation. */
void ec_sig_inverse(const uint8_t s[32], scalar *w);

/*
 * rp = u1 G + u2 Q for public scalars (u1 NULL: zero), Q by q_table when it is not NULL (from
 * ec_table_new: q is then unused), else q. 0, or -1 when OpenSSL fails.
 */
int ec_mul_pair(EC_POINT *rp, const BIGNUM *u1, const EC_POINT *q, const EC_GROUP *q_table,
	const BIGNUM *u2, BN_CTX *ctx);

/*
 * The ECDSA verification equation for public inputs: R' = (e w)G + (r w)Q with w = s^-1 * R as
 * ec_sig_inverse gives it, fails with P256_ERR_SIG_INVALID when R' is infinity or R'.x mod n != r.
 * r and s must already be in [1, n). Q is q_table's generator when q_table is not NULL (from
 * ec_table_new: q is then unused), else q.
 */
int ec_verify_equation(const EC_POINT *q, const EC_GROUP *q_table, const uint8_t digest[32],
	const uint8_t r[32], const scalar *w, BN_CTX *ctx);

/*
 * r||s in [1, n) each (else P256_ERR_SIG_RANGE), then ec_verify_equation with w, or with s's
 * inverse computed here when w is NULL (a batch passes inverses it computed together).
 */
int ec_verify_sig(const EC_POINT *q, const EC_GROUP *q_table, const uint8_t digest[32],
	const uint8_t sig[64], const scalar *w, BN_CTX *ctx);

/* 1 when 1 <= v < n for a public 32-byte big-endian v, else 0. */
int ec_in_range(const uint8_t v[32]);

#endif
