/* SPDX-License-Identifier: ISC */
/*
 * The verification of a signed batch (sign-internal.h, sign_check_batch).
 *
 * Each checked item's signature (r, s) on digest e verifies when R' = (e/s)G + (r/s)Q has
 * x(R') mod n = r. The batch signed it, so it knows the nonce point R = kG whose x gave r: a
 * signature made right has R' = R, and R' = R with r = x(R) mod n means it verifies (one with
 * R' = -R would verify too, but the batch never makes one: it does not normalise s, and such
 * an item would merely be verified alone, below). For the m items that have their R,
 * the check draws multipliers a_j after the signing, each uniform (within a factor 1 + 2^-9)
 * over a set of over 2^64.8 values that are nonzero and distinct mod n (MULT_WEIGHT below), and
 * tests one equation,
 *
 *	a_0 R_0 + ... + a_{m-1} R_{m-1} = (sum a_j e_j / s_j) G + sum over keys (sum a_j r_j / s_j) Q,
 *
 * the right side with OpenSSL's tables (one multiplication of G and one per key, whatever m), the
 * left with lib/point-sum.c's short multipliers, plus r_j = x(R_j) mod n for each item. The
 * difference of the sides is sum a_j (R_j - R'_j). One wrong item makes it a_j times a nonzero
 * point, never zero since a_j is not 0 mod n: a single fault is always caught. Several wrong
 * items cancel only if one wrong item's a_j falls on the one value mod n that the others
 * determine, which for a_j drawn after the faults happens with probability at most 2^-64. When
 * the equation fails, or the multipliers cannot be drawn, every item is verified alone as
 * p256_sign_checked does, so a wrong item fails by itself and the right ones are released. An
 * item whose R is not known (the single path signed it) or whose s is out of range is verified
 * alone too.
 */
#include <string.h>

#include "ct.h"
#include "ec.h"
#include "point-sum.h"
#include "sign-internal.h"
#include "verify-internal.h"

_Static_assert(POINT_SUM_MAX >= P256_BATCH_MAX, "a batch's points fit one sum");

/*
 * Each multiplier has MULT_WEIGHT nonzero signed binary digits among POINT_SUM_BITS: there are
 * C(96, 13) 2^13 > 2^64.8 of them, every one a distinct nonzero value below n/2 in absolute
 * value (the highest digit outweighs the others), so distinct mod n. The point sum then costs
 * 13 additions a point and 96 doublings shared by the batch (a 64-bit multiplier in width-4 NAF:
 * about 13 additions of Jacobian points, 16 products each against 11, plus a table of 3P, 5P, 7P).
 */
#define MULT_WEIGHT 13
#define MULT_RANDOM (2 * MULT_WEIGHT + 2)	/* two bytes a place, two for the signs */
_Static_assert(POINT_SUM_BITS <= 128 && MULT_WEIGHT <= 16, "a multiplier fits draw_multiplier");

/*
 * The fewest items the equation is for. Its cost is mostly per batch (the right side's two
 * multiplications, the 96 doublings), so with fewer items verifying each alone is cheaper: the
 * check took 28.1, 20.4, 16.6 and 14.2 us an item at 2, 3, 4 and 5 items, 18.3 for one item
 * alone (a test program timing p256_sign_batch with and without checked items, best of five).
 */
#define EQUATION_MIN 4

/* The terms of the equation's right side: a G multiplier, and one Q multiplier per key. */
struct right_side {
	scalar a_g;
	const struct p256_key *key[P256_BATCH_MAX];
	scalar b_q[P256_BATCH_MAX];
	size_t nkeys;
};

/* Adds a e/s to the G term and a r/s to item's key's Q term (w = s^-1 R, a_mont = a R). */
static void add_terms(struct right_side *rs, const struct p256_batch_item *it, const scalar *w,
	const scalar *a_mont)
{
	scalar e, r, t;
	size_t k = 0;

	scalar_from_bytes(&e, it->digest);
	scalar_reduce(&e, &e);
	scalar_mont_mul(&e, &e, w);		/* e/s */
	scalar_mont_mul(&e, &e, a_mont);	/* a e/s */
	scalar_add(&rs->a_g, &rs->a_g, &e);
	scalar_from_bytes(&r, it->sig);
	scalar_mont_mul(&r, &r, w);		/* r/s */
	scalar_mont_mul(&t, &r, a_mont);	/* a r/s */
	while (k < rs->nkeys && rs->key[k] != it->key)
		k++;
	if (k == rs->nkeys)
		rs->key[rs->nkeys++] = it->key;	/* its b_q[k] starts at zero */
	scalar_add(&rs->b_q[k], &rs->b_q[k], &t);
}

/* 1 when r = x mod n, for the signature's r and its nonce point's affine x. */
static int r_is_x(const uint8_t r[32], const uint8_t x[32])
{
	uint8_t xn[32];
	scalar v;

	scalar_from_bytes(&v, x);
	scalar_reduce(&v, &v);
	scalar_to_bytes(xn, &v);
	return memcmp(xn, r, 32) == 0;
}

static BIGNUM *scalar_bn(const scalar *a, BIGNUM *b)
{
	uint8_t buf[32];

	scalar_to_bytes(buf, a);
	return BN_bin2bn(buf, 32, b);
}

/* The right side's Jacobian coordinates; 0, or -1 when OpenSSL fails. */
static int right_point(const struct right_side *rs, uint8_t X[32], uint8_t Y[32], uint8_t Z[32])
{
	const EC_GROUP *g = ec_group();
	BN_CTX *ctx = NULL;
	EC_POINT *acc = NULL, *t = NULL, *q = NULL;
	BIGNUM *a, *b;
	int r = -1;

	if (g == NULL || (ctx = BN_CTX_new()) == NULL)
		goto out;
	BN_CTX_start(ctx);
	a = BN_CTX_get(ctx);
	b = BN_CTX_get(ctx);
	if (b == NULL || (acc = EC_POINT_new(g)) == NULL || (t = EC_POINT_new(g)) == NULL ||
	    scalar_bn(&rs->a_g, a) == NULL)
		goto out;
	for (size_t k = 0; k < rs->nkeys; k++) {
		const struct p256_key *key = rs->key[k];
		const EC_GROUP *table = key->verifier != NULL ? key->verifier->table : NULL;

		EC_POINT_free(q);
		q = NULL;
		if (scalar_bn(&rs->b_q[k], b) == NULL ||
		    (table == NULL && ec_point_decode(key->pub, P256_POINT_LEN, &q, ctx) != 0) ||
		    ec_mul_pair(k == 0 ? acc : t, k == 0 ? a : NULL, q, table, b, ctx) != 0 ||
		    (k > 0 && EC_POINT_add(g, acc, acc, t, ctx) != 1))
			goto out;
	}
	r = ec_jacobian_bytes(g, acc, X, Y, Z, ctx) == 0 ? 0 : -1;
out:
	EC_POINT_free(q);
	EC_POINT_free(t);
	EC_POINT_free(acc);
	if (ctx != NULL)
		BN_CTX_end(ctx);
	BN_CTX_free(ctx);
	return r;
}

/*
 * Draws a multiplier from rnd: its signed binary digits d (MULT_WEIGHT of them nonzero, at
 * places taken by a partial Fisher-Yates shuffle of 0 .. POINT_SUM_BITS - 1, each place from two
 * bytes as r k / 2^16 for the k places left, so uniform within a factor 1 + 2^-9 since k <= 96)
 * and the signs from the last two bytes; *a_mont = its value mod n, times R.
 */
static void draw_multiplier(const uint8_t rnd[MULT_RANDOM], int8_t d[POINT_SUM_BITS],
	scalar *a_mont)
{
	uint8_t place[POINT_SUM_BITS];
	uint64_t plus[2] = { 0, 0 }, minus[2] = { 0, 0 };
	unsigned signs = rnd[2 * MULT_WEIGHT] | (unsigned)rnd[2 * MULT_WEIGHT + 1] << 8;
	scalar p, q;

	for (size_t i = 0; i < POINT_SUM_BITS; i++)
		place[i] = (uint8_t)i;
	memset(d, 0, POINT_SUM_BITS);
	for (size_t i = 0; i < MULT_WEIGHT; i++) {
		unsigned r = rnd[2 * i] | (unsigned)rnd[2 * i + 1] << 8;
		size_t k = i + ((r * (POINT_SUM_BITS - i)) >> 16);
		uint8_t b = place[k];
		int negative = signs >> i & 1;

		place[k] = place[i];
		place[i] = b;
		d[b] = negative ? -1 : 1;
		(negative ? minus : plus)[b / 64] |= (uint64_t)1 << (b % 64);
	}
	p = (scalar){ { plus[0], plus[1], 0, 0 } };
	q = (scalar){ { minus[0], minus[1], 0, 0 } };
	scalar_sub(a_mont, &p, &q);
	scalar_to_mont(a_mont, a_mont);
}

int sign_batch_equation(const struct p256_batch_item *items, const size_t *at, const scalar *w,
	const struct sign_nonce_points *nonces, size_t m)
{
	struct right_side rs = { .nkeys = 0 };	/* every term zero */
	uint8_t xy[P256_BATCH_MAX][64], X[32], Y[32], Z[32];
	uint8_t rnd[P256_BATCH_MAX][MULT_RANDOM];
	int8_t d[P256_BATCH_MAX][POINT_SUM_BITS];

	if (m == 0 || m > P256_BATCH_MAX || sign_draw_random(rnd[0], m * MULT_RANDOM) != 0)
		return 0;
	for (size_t j = 0; j < m; j++) {
		const struct p256_batch_item *it = &items[at[j]];
		scalar a_mont;

		draw_multiplier(rnd[j], d[j], &a_mont);
		memcpy(xy[j], nonces->xy[at[j]], 64);
		ct_declassify(xy[j], 64);	/* R is public with its signature: x gave r */
		if (!r_is_x(it->sig, xy[j]))
			return 0;
		add_terms(&rs, it, &w[j], &a_mont);
	}
	return right_point(&rs, X, Y, Z) == 0 && point_sum_equals((const uint8_t (*)[64])xy,
	    (const int8_t (*)[POINT_SUM_BITS])d, m, X, Y, Z);
}

/*
 * An s out of [1, n) cannot join the product of the batch's inversion, since a zero would make
 * every inverse zero: its item is verified alone, and fails.
 */
void sign_check_batch(struct p256_batch_item *items, size_t n,
	const struct sign_nonce_points *nonces)
{
	scalar s_mont[P256_BATCH_MAX], prefix[P256_BATCH_MAX], w[P256_BATCH_MAX];
	scalar w_known[P256_BATCH_MAX];
	size_t at[P256_BATCH_MAX], at_known[P256_BATCH_MAX], m = 0, mk = 0;
	uint8_t passed[P256_BATCH_MAX] = { 0 };		/* by item */

	for (size_t i = 0; i < n; i++) {
		struct p256_batch_item *it = &items[i];

		if (it->result != 0 || !it->checked)
			continue;
		if (!ec_in_range(it->sig + 32)) {
			it->result = sign_verify_own(it->key, it->digest, it->sig, NULL);
			continue;
		}
		scalar_from_bytes(&s_mont[m], it->sig + 32);
		scalar_to_mont(&s_mont[m], &s_mont[m]);
		at[m++] = i;
	}
	if (m == 0)
		return;
	sign_invert_all(s_mont, prefix, w, m);
	for (size_t j = 0; j < m; j++)
		if (nonces != NULL && nonces->known[at[j]]) {
			w_known[mk] = w[j];
			at_known[mk++] = at[j];
		}
	if (mk >= EQUATION_MIN && sign_batch_equation(items, at_known, w_known, nonces, mk))
		for (size_t j = 0; j < mk; j++)
			passed[at_known[j]] = 1;
	for (size_t j = 0; j < m; j++) {
		struct p256_batch_item *it = &items[at[j]];

		if (!passed[at[j]])
			it->result = sign_verify_own(it->key, it->digest, it->sig, &w[j]);
	}
}
