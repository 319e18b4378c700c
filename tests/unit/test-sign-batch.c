/* SPDX-License-Identifier: ISC */
/*
 * Batch signing: every signature of p256_sign_batch is bit-identical to the single path's for the
 * same inputs, in deterministic mode across batch sizes 1 to 64 with mixed keys, extra bytes and
 * checked items, and in hedged mode given the same hedge bytes (sign_batch_with_hedges against
 * sign_with_hedge, the function p256_sign is made of); each failing item (bad key, bad argument,
 * fault, no randomness) fails alone. The batch's randomised check (sign_batch_equation) holds
 * for right signatures under tabled and untabled keys together, and not when one s, one r or
 * one nonce point is wrong, nor for two signatures whose nonces were swapped (their errors
 * cancel in an unweighted sum); sign_check_batch then fails the wrong items alone and releases
 * the others, also when only the nonce point was wrong.
 */
#include "ec.h"
#include "sign-internal.h"
#include "test-bn.h"
#include "testutil.h"

#define NKEYS 4
#define NMAX P256_BATCH_MAX

static struct p256_key keys[NKEYS];
static uint8_t digests[NMAX][32];
static uint8_t extras[NMAX][P256_BATCH_MAX];

/* Item i of a batch of n: a key, digest, extra length and checking that vary with i and n. */
static void fill(struct p256_batch_item *it, size_t i, size_t n, enum p256_nonce mode)
{
	memset(it, 0, sizeof(*it));
	it->key = &keys[(i * 3 + n) % NKEYS];
	it->digest = digests[i];
	it->mode = mode;
	it->checked = (i + n) % 3 == 0;
	it->extra_len = (i * 5 + n) % 4 == 0 ? (i + n) % 65 : 0;
	it->extra = it->extra_len > 0 ? extras[i] : NULL;
}

/* The single path's answer for an item, with the given hedge. */
static int single(const struct p256_batch_item *it, const uint8_t hedge[32], uint8_t sig[64])
{
	int r = sign_with_hedge(it->key->d, it->digest, it->mode, it->extra, it->extra_len, hedge,
		sig);

	if (r == 0 && it->checked)
		r = sign_verify_own(it->key, it->digest, sig, NULL);
	return r;
}

/* Deterministic mode: the public API against p256_sign and p256_sign_checked, sizes 1..64. */
static void check_deterministic(void)
{
	struct p256_batch_item items[NMAX];
	uint8_t sig[64];

	for (size_t n = 1; n <= NMAX; n++) {
		for (size_t i = 0; i < n; i++)
			fill(&items[i], i, n, P256_NONCE_DETERMINISTIC);
		CHECK_INT(p256_sign_batch(items, n), 0);
		for (size_t i = 0; i < n; i++) {
			const struct p256_batch_item *it = &items[i];

			CHECK_INT(it->result, 0);
			if (it->checked)
				CHECK_INT(p256_sign_checked(it->key, it->digest, it->mode, it->extra,
					it->extra_len, sig), 0);
			else
				CHECK_INT(p256_sign(it->key->d, it->digest, it->mode, it->extra,
					it->extra_len, sig), 0);
			CHECK_MEM(it->sig, sig, 64);
		}
	}
}

/* Hedged (and mixed) mode with known hedges: each item against the single path with its hedge. */
static void check_hedged(struct prng *g)
{
	static const size_t sizes[] = { 1, 2, 3, 7, 16, 33, 64 };
	struct p256_batch_item items[NMAX];
	uint8_t hedges[NMAX * 32], sig[64];

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t n = sizes[s];

		prng_bytes(g, hedges, sizeof(hedges));
		for (size_t i = 0; i < n; i++)
			fill(&items[i], i, n, i % 4 == 1 ? P256_NONCE_DETERMINISTIC : P256_NONCE_HEDGED);
		sign_batch_with_hedges(items, n, hedges);
		for (size_t i = 0; i < n; i++) {
			CHECK_INT(items[i].result, 0);
			CHECK_INT(single(&items[i], hedges + 32 * i, sig), 0);
			CHECK_MEM(items[i].sig, sig, 64);
			CHECK_INT(p256_verify(items[i].key->pub, 65, items[i].digest, items[i].sig, 0), 0);
		}
	}
}

/* The public hedged batch: valid signatures, and the same inputs twice give different ones. */
static void check_hedged_random(void)
{
	struct p256_batch_item a[16], b[16];

	for (size_t i = 0; i < 16; i++) {
		fill(&a[i], 0, 16, P256_NONCE_HEDGED);	/* the same key and digest for all */
		fill(&b[i], 0, 16, P256_NONCE_HEDGED);
	}
	CHECK_INT(p256_sign_batch(a, 16), 0);
	CHECK_INT(p256_sign_batch(b, 16), 0);
	for (size_t i = 0; i < 16; i++) {
		CHECK_INT(a[i].result, 0);
		CHECK_INT(p256_verify(a[i].key->pub, 65, a[i].digest, a[i].sig, 0), 0);
		CHECK(memcmp(a[i].sig, b[i].sig, 64) != 0);
		if (i > 0)
			CHECK(memcmp(a[i].sig, a[i - 1].sig, 64) != 0);
	}
}

/* Failing items fail alone, with the single path's code and a wiped signature. */
static void check_failures(void)
{
	struct p256_batch_item items[8];
	struct p256_key zero = { 0 }, faulty = keys[1];
	uint8_t sig[64];

	for (size_t i = 0; i < 8; i++)
		fill(&items[i], i, 8, P256_NONCE_DETERMINISTIC);
	items[1].key = &zero;				/* d = 0 */
	items[2].extra_len = 65;			/* too much extra */
	items[3].mode = (enum p256_nonce)3;		/* no such mode */
	faulty.d[31] ^= 0x01;				/* d no longer matches pub */
	items[5].key = &faulty;
	items[5].checked = 1;
	items[6].key = &faulty;				/* unchecked: signs with the wrong d */
	items[6].checked = 0;
	CHECK_INT(p256_sign_batch(items, 8), 0);
	CHECK_INT(items[1].result, P256_ERR_SCALAR_RANGE);
	CHECK_INT(items[2].result, P256_ERR_LENGTH);
	CHECK_INT(items[3].result, P256_ERR_LENGTH);
	CHECK_INT(items[5].result, P256_ERR_FAULT);
	for (size_t i = 1; i <= 5; i++)
		if (i != 4)
			CHECK(all_zero(items[i].sig, 64));
	for (size_t i = 0; i < 8; i++) {
		if (i >= 1 && i <= 5 && i != 4)
			continue;
		CHECK_INT(items[i].result, 0);
		CHECK_INT(single(&items[i], NULL, sig), 0);
		CHECK_MEM(items[i].sig, sig, 64);
	}

	/* no randomness: the hedged items fail, the deterministic ones are signed */
	for (size_t i = 0; i < 8; i++)
		fill(&items[i], i, 8, i % 2 ? P256_NONCE_HEDGED : P256_NONCE_DETERMINISTIC);
	sign_batch_with_hedges(items, 8, NULL);
	for (size_t i = 0; i < 8; i++) {
		CHECK_INT(items[i].result, i % 2 ? P256_ERR_RANDOM : 0);
		if (i % 2)
			CHECK(all_zero(items[i].sig, 64));
		else
			CHECK_INT(p256_verify(items[i].key->pub, 65, items[i].digest, items[i].sig, 0), 0);
	}

	/* too many, and none */
	struct p256_batch_item many[NMAX + 1];

	for (size_t i = 0; i <= NMAX; i++)
		fill(&many[i], i % NMAX, NMAX, P256_NONCE_DETERMINISTIC);
	CHECK_INT(p256_sign_batch(many, NMAX + 1), P256_ERR_LENGTH);
	CHECK_INT(many[0].result, P256_ERR_LENGTH);
	CHECK_INT(p256_sign_batch(many, 0), 0);
}

/* n, the group order */
static const uint8_t ORDER[32] = {
	0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51
};

/*
 * The shared verification of a batch whose signatures were corrupted after signing (as a fault
 * would): each corrupted item fails alone with a wiped signature, the others keep theirs. s = 0
 * or s = n must not join the batch's product of s values, or every item's inverse would be wrong.
 */
static void check_corrupted(void)
{
	struct p256_batch_item items[6];
	uint8_t good[6][64];

	for (size_t i = 0; i < 6; i++) {
		fill(&items[i], i, 6, P256_NONCE_DETERMINISTIC);
		items[i].checked = 1;
	}
	CHECK_INT(p256_sign_batch(items, 6), 0);
	for (size_t i = 0; i < 6; i++) {
		CHECK_INT(items[i].result, 0);
		memcpy(good[i], items[i].sig, 64);
	}
	memset(items[1].sig + 32, 0, 32);		/* s = 0 */
	memcpy(items[3].sig + 32, ORDER, 32);		/* s = n */
	items[4].sig[5] ^= 0x10;			/* r changed: in range, invalid */
	sign_check_batch(items, 6, NULL);
	for (size_t i = 0; i < 6; i++) {
		if (i == 1 || i == 3 || i == 4) {
			CHECK_INT(items[i].result, P256_ERR_FAULT);
			CHECK(all_zero(items[i].sig, 64));
		} else {
			CHECK_INT(items[i].result, 0);
			CHECK_MEM(items[i].sig, good[i], 64);
		}
	}
}

/* w[j] = s^-1 R of item j, the inverses sign_check_batch gives the equation */
static void inverses(const struct p256_batch_item *items, size_t n, size_t *at, scalar *w)
{
	for (size_t j = 0; j < n; j++) {
		at[j] = j;
		ec_sig_inverse(items[j].sig + 32, &w[j]);
	}
}

/* e + r d mod n for the item's digest, r and key, and n; the caller frees both. */
static BIGNUM *e_plus_rd(const struct p256_batch_item *it, BIGNUM **n, BN_CTX *bctx)
{
	BIGNUM *r = test_bn(it->sig), *d = test_bn(it->key->d), *e = test_bn(it->digest);

	*n = test_bn(TEST_N);
	if (BN_nnmod(e, e, *n, bctx) != 1 || BN_mod_mul(r, r, d, *n, bctx) != 1 ||
	    BN_mod_add(e, e, r, *n, bctx) != 1)
		test_fatal("e_plus_rd");
	BN_free(r);
	BN_free(d);
	return e;
}

/*
 * out = x^-1 (e + r d) for the item's digest, r and key: with x = s the nonce of a right
 * signature, with x = k the s of a signature made with nonce k. out may be x.
 */
static void inverse_times_u(const struct p256_batch_item *it, const uint8_t x[32], uint8_t out[32])
{
	BN_CTX *bctx = BN_CTX_new();
	BIGNUM *n, *u = e_plus_rd(it, &n, bctx), *v = test_bn(x);

	if (bctx == NULL || BN_mod_inverse(v, v, n, bctx) == NULL || BN_mod_mul(v, v, u, n, bctx) != 1)
		test_fatal("inverse_times_u");
	test_bn_put(out, v);
	BN_free(n);
	BN_free(u);
	BN_free(v);
	BN_CTX_free(bctx);
}

static void nonce_of(const struct p256_batch_item *it, uint8_t k[32])
{
	inverse_times_u(it, it->sig + 32, k);
}

/* s made with nonce k and the item's r as it is now */
static void make_s(struct p256_batch_item *it, const uint8_t k[32])
{
	inverse_times_u(it, k, it->sig + 32);
}

/*
 * The s of items a and b re-made with each other's nonce, as a fault mixing up a batch's nonces
 * would. Both are wrong, and in an unweighted sum of the check their errors cancel
 * (R'_a = R_b, R'_b = R_a).
 */
static void swap_nonces(struct p256_batch_item *items, size_t a, size_t b)
{
	uint8_t ka[32], kb[32];

	nonce_of(&items[a], ka);
	nonce_of(&items[b], kb);
	make_s(&items[a], kb);
	make_s(&items[b], ka);
}

/* y = p - y */
static void negate_y(uint8_t y[32])
{
	BIGNUM *p = test_bn(TEST_P), *v = test_bn(y);

	if (BN_sub(v, p, v) != 1)
		test_fatal("BN_sub");
	test_bn_put(y, v);
	BN_free(p);
	BN_free(v);
}

/* Signs 16 checked items under keys 0 (tabled) and 1 (untabled), digests distinct. */
static void sign_sixteen(struct p256_batch_item *items, struct sign_nonce_points *nonces)
{
	for (size_t i = 0; i < 16; i++) {
		fill(&items[i], i, 16, P256_NONCE_DETERMINISTIC);
		items[i].key = &keys[i % 2];
		items[i].checked = 1;
	}
	sign_batch_unchecked(items, 16, NULL, nonces);
	for (size_t i = 0; i < 16; i++) {
		CHECK_INT(items[i].result, 0);
		CHECK_INT(nonces->known[i], 1);
	}
}

/* After sign_check_batch: the items in wrong[] failed, wiped; the others kept their good sig. */
static void check_outcome(const struct p256_batch_item *items, uint8_t good[16][64],
	const int *wrong)
{
	for (size_t i = 0; i < 16; i++) {
		if (wrong[i]) {
			CHECK_INT(items[i].result, P256_ERR_FAULT);
			CHECK(all_zero(items[i].sig, 64));
		} else {
			CHECK_INT(items[i].result, 0);
			CHECK_MEM(items[i].sig, good[i], 64);
		}
	}
}

/*
 * After a corruption of the signed items: the equation over all 16 does not hold, and
 * sign_check_batch fails exactly the items listed in bad (up to 4; none when only a nonce point
 * was corrupted) and releases the others.
 */
static void expect_caught(struct p256_batch_item *items, const struct sign_nonce_points *nonces,
	uint8_t good[16][64], const size_t *bad, size_t nbad)
{
	int wrong[16] = { 0 };
	size_t at[16];
	scalar w[16];

	for (size_t i = 0; i < nbad; i++)
		wrong[bad[i]] = 1;
	inverses(items, 16, at, w);
	CHECK_INT(sign_batch_equation(items, at, w, nonces, 16), 0);
	sign_check_batch(items, 16, nonces);
	check_outcome(items, good, wrong);
}

static void check_equation(void)
{
	struct p256_batch_item items[16];
	struct sign_nonce_points nonces;
	uint8_t good[16][64], k[32];
	size_t at[16];
	scalar w[16];

	sign_sixteen(items, &nonces);
	for (size_t i = 0; i < 16; i++)
		memcpy(good[i], items[i].sig, 64);
	inverses(items, 16, at, w);
	for (size_t m = 1; m <= 16; m++)
		CHECK_INT(sign_batch_equation(items, at, w, &nonces, m), 1);
	CHECK_INT(sign_batch_equation(items, at + 5, w + 5, &nonces, 3), 1);
	CHECK_INT(sign_batch_equation(items, at, w, &nonces, 0), 0);

	/* one s wrong (still in range); also alone */
	items[6].sig[40] ^= 0x04;
	inverses(items, 16, at, w);
	CHECK_INT(sign_batch_equation(items, at + 6, w + 6, &nonces, 1), 0);
	expect_caught(items, &nonces, good, (const size_t[]){ 6 }, 1);

	/* one r wrong: not x(R) mod n */
	sign_sixteen(items, &nonces);
	items[9].sig[20] ^= 0x01;
	expect_caught(items, &nonces, good, (const size_t[]){ 9 }, 1);

	/* r wrong and s made with it and the right nonce: R' = R, but r is not x(R) mod n */
	sign_sixteen(items, &nonces);
	nonce_of(&items[12], k);
	items[12].sig[31] ^= 0x02;
	make_s(&items[12], k);
	expect_caught(items, &nonces, good, (const size_t[]){ 12 }, 1);

	/* two nonces swapped: items 2 and 4 (key 0), 3 and 11 (key 1); also 2, 3, 4 alone */
	sign_sixteen(items, &nonces);
	swap_nonces(items, 2, 4);
	swap_nonces(items, 3, 11);
	inverses(items, 16, at, w);
	CHECK_INT(sign_batch_equation(items, at + 2, w + 2, &nonces, 3), 0);
	expect_caught(items, &nonces, good, (const size_t[]){ 2, 3, 4, 11 }, 4);

	/* a nonce point wrong (-R: its y negated), every signature right: all released */
	sign_sixteen(items, &nonces);
	negate_y(nonces.xy[7] + 32);
	expect_caught(items, &nonces, good, NULL, 0);

	/* points not known for some (0, 15, both wrong): those verified alone, the rest together */
	sign_sixteen(items, &nonces);
	nonces.known[0] = nonces.known[15] = 0;
	items[0].sig[50] ^= 0x80;
	items[15].sig[50] ^= 0x80;
	sign_check_batch(items, 16, &nonces);
	check_outcome(items, good, (const int[16]){ [0] = 1, [15] = 1 });
}

int main(void)
{
	struct prng g = { 0x6261746368ULL };
	uint8_t d[32];

	for (size_t k = 0; k < NKEYS; k++) {
		prng_bytes(&g, d, sizeof(d));
		d[0] &= 0x7f;		/* below n */
		CHECK_INT(k % 2 ? p256_key_init_untabled(&keys[k], d) : p256_key_init(&keys[k], d), 0);
	}
	prng_bytes(&g, (uint8_t *)digests, sizeof(digests));
	prng_bytes(&g, (uint8_t *)extras, sizeof(extras));
	check_deterministic();
	check_hedged(&g);
	check_hedged_random();
	check_failures();
	check_corrupted();
	check_equation();
	for (size_t k = 0; k < NKEYS; k++)
		p256_key_clear(&keys[k]);
	return test_done("test-sign-batch");
}
