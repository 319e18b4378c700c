/* SPDX-License-Identifier: ISC */
/*
 * Batch signing (p256.h): the items' nonces are drawn and their points kG computed one by one,
 * then the affine x of all the points come from one inversion mod p and all the k^-1 from one
 * inversion mod n (Montgomery's trick), and the hedges of the whole batch from one getrandom
 * call; the checked items are verified together (sign-batch-check.c). Anything
 * unusual in an item (a bad argument, a rejected RFC 6979 candidate, r or s zero) sends that
 * item alone down the single path, sign_with_hedge, which gives the same bytes as p256_sign for
 * the same hedge.
 */
#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "ec.h"
#include "field.h"
#include "sign-internal.h"

_Static_assert(FIELD_BATCH_MAX >= P256_BATCH_MAX, "a batch's points fit one conversion");

/* One item's state between its nonce point and its s. */
struct pending {
	struct signing st;	/* until its r and u are computed */
	scalar rs;
	scalar u;		/* e + r*d */
};

/* The Jacobian coordinates of the pending items' points, and their affine ones. */
struct points {
	uint8_t X[P256_BATCH_MAX][32], Y[P256_BATCH_MAX][32], Z[P256_BATCH_MAX][32];
	uint8_t x[P256_BATCH_MAX][32], y[P256_BATCH_MAX][32];
};

int sign_draw_random(uint8_t *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = getrandom(buf + got, len - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return P256_ERR_RANDOM;
		got += (size_t)n;
	}
	return 0;
}

/*
 * The first candidate of item i and its point kG in Jacobian coordinates (X, Y, Z); 1 when the
 * item must take the single path. On success p->st stays open for commit_items.
 */
static int start_item(const struct p256_batch_item *it, const uint8_t *hedge, struct pending *p,
	scalar *k_mont, uint8_t X[32], uint8_t Y[32], uint8_t Z[32])
{
	scalar k;
	int r;

	if ((r = signing_start(&p->st, it->key->d, it->digest, it->mode, it->extra, it->extra_len,
		    hedge)) != 0 ||
	    (r = signing_candidate(&p->st, &k)) != 0 || (r = ec_base_mul_jacobian(&k, X, Y, Z)) != 0) {
		signing_end(&p->st);
		r = 1;
	} else
		scalar_to_mont(k_mont, &k);
	scalar_wipe(&k);
	return r;
}

/*
 * r and u of the m pending items, from one conversion of all their points to affine
 * coordinates (y too when an item is checked: its verification needs the whole point).
 */
static void commit_items(struct pending *p, struct points *pt, size_t m, int checked)
{
	field_affine_batch(pt->x, checked ? pt->y : NULL, (const uint8_t (*)[32])pt->X,
	    (const uint8_t (*)[32])pt->Y, (const uint8_t (*)[32])pt->Z, m);
	for (size_t j = 0; j < m; j++) {
		signing_commit_x(&p[j].st, pt->x[j], &p[j].rs, &p[j].u);
		signing_end(&p[j].st);
	}
}

/*
 * With the prefix products c_j = k_0 ... k_j (all in Montgomery form), t = c_{m-1}^-1, then for
 * j = m-1 down to 1 k_j^-1 = t * c_{j-1} and t = t * k_j (now c_{j-1}^-1); k_0^-1 is the last
 * t. 3(m-1) products; m is public and nothing else steers the loops.
 */
void sign_invert_all(const scalar *k_mont, scalar *prefix, scalar *kinv, size_t m)
{
	scalar t;

	prefix[0] = k_mont[0];
	for (size_t j = 1; j < m; j++)
		scalar_mont_mul(&prefix[j], &prefix[j - 1], &k_mont[j]);
	scalar_inv(&t, &prefix[m - 1]);	/* (c R)^-1 = c^-1 R^-1 */
	scalar_to_mont(&t, &t);
	scalar_to_mont(&t, &t);			/* c^-1 R */
	for (size_t j = m - 1; j > 0; j--) {
		scalar_mont_mul(&kinv[j], &t, &prefix[j - 1]);
		scalar_mont_mul(&t, &t, &k_mont[j]);
	}
	kinv[0] = t;
	scalar_wipe(&t);
}

/* Item i's 32 bytes of the batch's hedges; zeros (unused: the item is not hedged) without them. */
static const uint8_t *hedge_of(const uint8_t *hedges, size_t i)
{
	static const uint8_t none[SIGN_HEDGE_LEN];

	return hedges != NULL ? hedges + SIGN_HEDGE_LEN * i : none;
}

void sign_batch_unchecked(struct p256_batch_item *items, size_t n, const uint8_t *hedges,
	struct sign_nonce_points *nonces)
{
	struct pending p[P256_BATCH_MAX];
	struct points pt;
	scalar k_mont[P256_BATCH_MAX], prefix[P256_BATCH_MAX], kinv[P256_BATCH_MAX];
	size_t at[P256_BATCH_MAX];	/* the item of each pending entry */
	size_t m = 0;
	int checked = 0;

	memset(nonces->known, 0, sizeof(nonces->known));
	for (size_t i = 0; i < n; i++) {
		struct p256_batch_item *it = &items[i];

		memset(it->sig, 0, sizeof(it->sig));
		it->result = 1;		/* not done: the single path takes it */
		if (sign_mode_hedged(it->mode) && hedges == NULL)
			it->result = P256_ERR_RANDOM;
		else if (start_item(it, hedge_of(hedges, i), &p[m], &k_mont[m], pt.X[m], pt.Y[m],
		    pt.Z[m]) == 0) {
			checked |= it->checked;
			at[m++] = i;
		}
	}
	if (m > 0) {
		commit_items(p, &pt, m, checked);
		sign_invert_all(k_mont, prefix, kinv, m);
	}
	for (size_t j = 0; j < m; j++) {
		struct p256_batch_item *it = &items[at[j]];

		it->result = signing_finish(&p[j].rs, &p[j].u, &kinv[j], it->sig);
		if (it->result == 0 && it->checked) {
			memcpy(nonces->xy[at[j]], pt.x[j], 32);
			memcpy(nonces->xy[at[j]] + 32, pt.y[j], 32);
			nonces->known[at[j]] = 1;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct p256_batch_item *it = &items[i];

		if (it->result == 1)
			it->result = sign_with_hedge(it->key->d, it->digest, it->mode, it->extra,
			    it->extra_len, hedge_of(hedges, i), it->sig);
	}
	explicit_bzero(p, sizeof(p));
	explicit_bzero(&pt, sizeof(pt));
	explicit_bzero(k_mont, sizeof(k_mont));
	explicit_bzero(prefix, sizeof(prefix));
	explicit_bzero(kinv, sizeof(kinv));
}

void sign_batch_with_hedges(struct p256_batch_item *items, size_t n, const uint8_t *hedges)
{
	struct sign_nonce_points nonces;

	sign_batch_unchecked(items, n, hedges, &nonces);
	sign_check_batch(items, n, &nonces);
	explicit_bzero(&nonces, sizeof(nonces));
}

int p256_sign_batch(struct p256_batch_item *items, size_t n)
{
	uint8_t hedges[P256_BATCH_MAX * SIGN_HEDGE_LEN];
	int hedged = 0, r = 0;

	if (n > P256_BATCH_MAX) {
		for (size_t i = 0; i < n; i++)
			items[i].result = P256_ERR_LENGTH;
		return P256_ERR_LENGTH;
	}
	for (size_t i = 0; i < n; i++)
		hedged |= sign_mode_hedged(items[i].mode);
	if (hedged)
		r = sign_draw_random(hedges, SIGN_HEDGE_LEN * n);
	sign_batch_with_hedges(items, n, hedged && r == 0 ? hedges : NULL);
	explicit_bzero(hedges, sizeof(hedges));
	return 0;
}
