/* SPDX-License-Identifier: ISC */
/*
 * Batch signing (p256.h): the items' nonces are drawn and their points kG computed one by one,
 * then all the k^-1 come from one inversion (Montgomery's trick), and the hedges of the whole
 * batch from one getrandom call. Anything unusual in an item (a bad argument, a rejected RFC 6979
 * candidate, r or s zero) sends that item alone down the single path, sign_with_hedge, which
 * gives the same bytes as p256_sign for the same hedge.
 */
#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "sign-internal.h"

/* One item's state between its nonce point and its s. */
struct pending {
	scalar k_mont;		/* k * R */
	scalar prefix;		/* (k_0 ... k_i) * R over the pending items up to this one */
	scalar rs;
	scalar u;		/* e + r*d */
};

/* The hedges of the batch, 32 bytes per item, in one call (a short read only on a signal). */
static int draw_hedges(uint8_t *hedges, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = getrandom(hedges + got, len - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return P256_ERR_RANDOM;
		got += (size_t)n;
	}
	return 0;
}

/* The first candidate of item i, its point and u; 1 when the item must take the single path. */
static int start_item(const struct p256_batch_item *it, const uint8_t *hedge, struct pending *p)
{
	struct signing st;
	scalar k;
	int r;

	if ((r = signing_start(&st, it->key->d, it->digest, it->mode, it->extra, it->extra_len,
		    hedge)) != 0 ||
	    (r = signing_candidate(&st, &k)) != 0 || (r = signing_commit(&st, &k, &p->rs, &p->u)) != 0)
		r = 1;
	else
		scalar_to_mont(&p->k_mont, &k);
	signing_end(&st);
	scalar_wipe(&k);
	return r;
}

/*
 * kinv[j] = k_j^-1 * R for the m pending items from one inversion: with the prefix products
 * c_j = k_0 ... k_j (all in Montgomery form), t = c_{m-1}^-1, then for j = m-1 down to 1
 * k_j^-1 = t * c_{j-1} and t = t * k_j (now c_{j-1}^-1); k_0^-1 is the last t. 3(m-1)
 * products; m is public and nothing else steers the loops.
 */
static void invert_all(struct pending *p, size_t m, scalar *kinv)
{
	scalar t;

	p[0].prefix = p[0].k_mont;
	for (size_t j = 1; j < m; j++)
		scalar_mont_mul(&p[j].prefix, &p[j - 1].prefix, &p[j].k_mont);
	scalar_inv(&t, &p[m - 1].prefix);	/* (c R)^-1 = c^-1 R^-1 */
	scalar_to_mont(&t, &t);
	scalar_to_mont(&t, &t);			/* c^-1 R */
	for (size_t j = m - 1; j > 0; j--) {
		scalar_mont_mul(&kinv[j], &t, &p[j - 1].prefix);
		scalar_mont_mul(&t, &t, &p[j].k_mont);
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

void sign_batch_with_hedges(struct p256_batch_item *items, size_t n, const uint8_t *hedges)
{
	struct pending p[P256_BATCH_MAX];
	scalar kinv[P256_BATCH_MAX];
	size_t at[P256_BATCH_MAX];	/* the item of each pending entry */
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		struct p256_batch_item *it = &items[i];

		memset(it->sig, 0, sizeof(it->sig));
		it->result = 1;		/* not done: the single path takes it */
		if (it->mode == P256_NONCE_HEDGED && hedges == NULL)
			it->result = P256_ERR_RANDOM;
		else if (start_item(it, hedge_of(hedges, i), &p[m]) == 0)
			at[m++] = i;
	}
	if (m > 0)
		invert_all(p, m, kinv);
	for (size_t j = 0; j < m; j++) {
		struct p256_batch_item *it = &items[at[j]];

		it->result = signing_finish(&p[j].rs, &p[j].u, &kinv[j], it->sig);
	}
	for (size_t i = 0; i < n; i++) {
		struct p256_batch_item *it = &items[i];

		if (it->result == 1)
			it->result = sign_with_hedge(it->key->d, it->digest, it->mode, it->extra,
			    it->extra_len, hedge_of(hedges, i), it->sig);
		if (it->result == 0 && it->checked)
			it->result = sign_verify_own(it->key, it->digest, it->sig);
	}
	explicit_bzero(p, sizeof(p));
	explicit_bzero(kinv, sizeof(kinv));
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
		hedged |= items[i].mode == P256_NONCE_HEDGED;
	if (hedged)
		r = draw_hedges(hedges, SIGN_HEDGE_LEN * n);
	sign_batch_with_hedges(items, n, hedged && r == 0 ? hedges : NULL);
	explicit_bzero(hedges, sizeof(hedges));
	return 0;
}
