/* SPDX-License-Identifier: ISC */
#ifndef P256_SIGN_INTERNAL_H
#define P256_SIGN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "drbg.h"
#include "p256.h"
#include "scalar.h"

/*
 * The steps of one ECDSA signature, shared by the single path (sign.c) and the batch
 * (sign-batch.c) so that both give the same bytes; internal to lib/ and its tests.
 */

#define SIGN_HEDGE_LEN 32

/* Whether mode draws a hedge: P256_NONCE_PRECOMPUTED signs on demand exactly as hedged does. */
static inline int sign_mode_hedged(enum p256_nonce mode)
{
	return mode == P256_NONCE_HEDGED || mode == P256_NONCE_PRECOMPUTED;
}

/* Loads d and checks 1 <= d < n; the one-bit outcome is public (keys are checked at load). */
int sign_load_private(scalar *ds, const uint8_t d[32]);

/* One signature in progress: the key in Montgomery form, the reduced digest, the nonce DRBG. */
struct signing {
	scalar d_mont;
	scalar e;
	struct drbg *drbg;
};

/*
 * Checks d and the arguments and seeds the DRBG with extra || hedge as RFC 6979 section 3.6
 * additional data (hedge is used only in P256_NONCE_HEDGED). Errors as p256_sign's, but never
 * P256_ERR_RANDOM: the caller drew the hedge. signing_end must follow whatever the result.
 */
int signing_start(struct signing *s, const uint8_t d[32], const uint8_t digest[32],
	enum p256_nonce mode, const uint8_t *extra, size_t extra_len,
	const uint8_t hedge[SIGN_HEDGE_LEN]);

/* The DRBG's next candidate as k: 0 when 1 <= k < n, 1 when it is rejected, or an error. */
int signing_candidate(struct signing *s, scalar *k);

/* rs = x(kG) mod n and u = e + rs*d, the part of s that does not need k^-1. */
int signing_commit(const struct signing *s, const scalar *k, scalar *rs, scalar *u);

/* signing_commit with x, the affine x of kG (secret until the signature), already computed. */
void signing_commit_x(const struct signing *s, const uint8_t x[32], scalar *rs, scalar *u);

/* s = u * k^-1 from kinv_mont = k^-1 * R; writes r||s (public). 1 when r or s is zero, else 0. */
int signing_finish(const scalar *rs, const scalar *u, const scalar *kinv_mont, uint8_t sig[64]);

/* Wipes s and frees its DRBG; safe after a failed signing_start. */
void signing_end(struct signing *s);

/* p256_sign with the hedge given instead of drawn: p256_sign is getrandom and this. */
int sign_with_hedge(const uint8_t d[32], const uint8_t digest[32], enum p256_nonce mode,
	const uint8_t *extra, size_t extra_len, const uint8_t hedge[SIGN_HEDGE_LEN],
	uint8_t sig[64]);

/*
 * p256_sign_checked's verification of sig under key; wipes sig on failure (P256_ERR_FAULT). w is
 * s^-1 * R (ec_sig_inverse) when the caller has it, else NULL.
 */
int sign_verify_own(const struct p256_key *key, const uint8_t digest[32], uint8_t sig[64],
	const scalar *w);

/* len bytes of getrandom, in one call unless a signal cuts it short. 0 or P256_ERR_RANDOM. */
int sign_draw_random(uint8_t *buf, size_t len);

/*
 * kinv[j] = k_j^-1 * R for j < m (1 <= m) from the k_j * R in k_mont, with one inversion and
 * 3(m-1) products (Montgomery's trick); prefix is m scalars of scratch, left secret for the
 * caller to wipe. k_mont and kinv may not overlap.
 */
void sign_invert_all(const scalar *k_mont, scalar *prefix, scalar *kinv, size_t m);

/*
 * The nonce points R = kG of a batch's items as affine x||y: known[i] is nonzero when item i's
 * is in xy[i] (the batch path computed it; the single path keeps none). Secret until the item's
 * signature is released; sign_check_batch declassifies them then.
 */
struct sign_nonce_points {
	uint8_t xy[P256_BATCH_MAX][64];
	uint8_t known[P256_BATCH_MAX];
};

/*
 * The verification of p256_sign_checked for each item of a signed batch whose result is 0 and
 * that is checked: a failing item gets P256_ERR_FAULT and a wiped signature, alone. With nonces
 * (not NULL), the items whose nonce point it knows are checked together by one randomised
 * equation (sign-batch-check.c says how and what it guarantees), the others one by one, all
 * with their s^-1 from one inversion.
 */
void sign_check_batch(struct p256_batch_item *items, size_t n,
	const struct sign_nonce_points *nonces);

/*
 * The equation of sign-batch-check.c for the m items at[0..m-1] of items (1 <= m <=
 * P256_BATCH_MAX), each with its nonce point in nonces, r and s in [1, n), and w[j] = s^-1 * R of
 * item at[j] (ec_sig_inverse): 1 when it holds, so that every one of them verifies (but with
 * probability at most 2^-63 over the multipliers it draws), 0 when it does not or cannot be
 * computed (no randomness, OpenSSL failing).
 */
int sign_batch_equation(const struct p256_batch_item *items, const size_t *at, const scalar *w,
	const struct sign_nonce_points *nonces, size_t m);

/*
 * The signing of sign_batch_with_hedges without its verification: nonces gets the nonce point of
 * every item the batch path signed, for sign_check_batch.
 */
void sign_batch_unchecked(struct p256_batch_item *items, size_t n, const uint8_t *hedges,
	struct sign_nonce_points *nonces);

/*
 * p256_sign_batch with the hedges given: item i uses hedges[32*i .. 32*i+31] when it is hedged;
 * hedges NULL makes every hedged item fail with P256_ERR_RANDOM. n <= P256_BATCH_MAX.
 */
void sign_batch_with_hedges(struct p256_batch_item *items, size_t n, const uint8_t *hedges);

/* The fresh random bytes of one precomputed nonce (nonce-pool.c). */
#define POOL_SEED_LEN 32

/*
 * p256_pool_refill with the entries' random bytes given (POOL_SEED_LEN per entry it makes,
 * in order) instead of drawn: NULL draws them. Entry number c (counting from 0 over the
 * pool's life) made from seed S has the nonce of p256_sign in P256_NONCE_DETERMINISTIC mode for
 * the digest c (32 bytes big-endian) with S as extra bytes.
 */
int pool_refill_with_seeds(struct p256_pool *pool, size_t max, const uint8_t *seeds);

#endif
