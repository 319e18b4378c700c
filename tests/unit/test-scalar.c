/* SPDX-License-Identifier: ISC */
/*
 * The constant-time mod-n arithmetic of lib/scalar.c against OpenSSL's BIGNUM: 100,000 random
 * inputs per function, drawn to hit carries and borrows (limbs of 0, all ones, n's own limbs and
 * values next to n), plus the edges 0, 1, n-1, n, n+1 and 2^256-1 wherever the domain allows.
 */
#include <openssl/bn.h>

#include "scalar.h"
#include "testutil.h"

static BN_CTX *ctx;
static BIGNUM *n, *rmod, *rinv;	/* n, R = 2^256 mod n, R^-1 mod n */

static BIGNUM *bn_of(const uint8_t b[32])
{
	BIGNUM *x = BN_bin2bn(b, 32, NULL);

	if (x == NULL)
		test_fatal("BN_bin2bn");
	return x;
}

/* Checks that the scalar equals the BIGNUM (which must be below 2^256). */
static int same(const scalar *a, const BIGNUM *want)
{
	uint8_t got[32], exp[32];

	scalar_to_bytes(got, a);
	if (BN_bn2binpad(want, exp, 32) != 32)
		return 0;
	return memcmp(got, exp, 32) == 0;
}

/* A 256-bit value biased towards the limbs where carries and borrows happen. */
static void interesting(struct prng *g, uint8_t out[32])
{
	uint64_t kind = prng_u64(g) % 8;

	prng_bytes(g, out, 32);
	if (kind == 0) {		/* n - small or n + small */
		uint64_t delta = prng_u64(g) % 4;
		BIGNUM *x = bn_of(TEST_N);

		if (prng_u64(g) & 1)
			BN_sub_word(x, delta);
		else
			BN_add_word(x, delta);
		BN_bn2binpad(x, out, 32);
		BN_free(x);
	} else if (kind == 1) {		/* each limb 0, all ones, n's limb or random */
		for (int i = 0; i < 4; i++) {
			uint64_t how = prng_u64(g) % 4;

			if (how == 0)
				memset(out + 8 * i, 0, 8);
			else if (how == 1)
				memset(out + 8 * i, 0xff, 8);
			else if (how == 2)
				memcpy(out + 8 * i, TEST_N + 8 * i, 8);
		}
	} else if (kind == 2) {		/* small */
		memset(out, 0, 24);
	}
}

/* An interesting value reduced below n (the domain of most functions). */
static void below_n(struct prng *g, uint8_t out[32], BIGNUM **bn)
{
	interesting(g, out);
	*bn = bn_of(out);
	if (BN_nnmod(*bn, *bn, n, ctx) != 1 || BN_bn2binpad(*bn, out, 32) != 32)
		test_fatal("BN_nnmod");
}

static void check_reduce_and_range(const uint8_t a[32])
{
	scalar x, r;
	BIGNUM *b = bn_of(a), *want = BN_new();

	scalar_from_bytes(&x, a);
	scalar_reduce(&r, &x);
	BN_nnmod(want, b, n, ctx);
	CHECK(same(&r, want));
	uint64_t in = scalar_in_range(&x);
	int expect = !BN_is_zero(b) && BN_cmp(b, n) < 0;
	CHECK(in == (expect ? ~(uint64_t)0 : 0));

	uint8_t back[32];
	scalar_to_bytes(back, &x);
	CHECK_MEM(back, a, 32);
	BN_free(b);
	BN_free(want);
}

/* Checks add, sub, mont_mul, to_mont, inv and plus_n for a, b < n. */
static void check_pair(const uint8_t a[32], const uint8_t b[32])
{
	scalar x, y, r;
	BIGNUM *ba = bn_of(a), *bb = bn_of(b), *want = BN_new(), *t = BN_new();
	uint8_t kn[33], wantkn[33];

	scalar_from_bytes(&x, a);
	scalar_from_bytes(&y, b);

	scalar_add(&r, &x, &y);
	BN_mod_add(want, ba, bb, n, ctx);
	CHECK(same(&r, want));

	scalar_sub(&r, &x, &y);
	BN_mod_sub(want, ba, bb, n, ctx);
	CHECK(same(&r, want));

	scalar_mont_mul(&r, &x, &y);		/* a * b / R */
	BN_mod_mul(t, ba, bb, n, ctx);
	BN_mod_mul(want, t, rinv, n, ctx);
	CHECK(same(&r, want));

	scalar_to_mont(&r, &x);			/* a * R */
	BN_mod_mul(want, ba, rmod, n, ctx);
	CHECK(same(&r, want));

	/* a^-1, 0 maps to 0 (more in test-inverse.c) */
	scalar_inv(&r, &x);
	if (BN_is_zero(ba))
		BN_zero(want);
	else if (BN_mod_inverse(want, ba, n, ctx) == NULL)
		test_fatal("BN_mod_inverse");
	CHECK(same(&r, want));

	scalar_plus_n_bytes(kn, &x);
	BN_add(want, ba, n);
	BN_bn2binpad(want, wantkn, 33);
	CHECK_MEM(kn, wantkn, 33);

	scalar_wipe(&r);
	CHECK(r.v[0] == 0 && r.v[1] == 0 && r.v[2] == 0 && r.v[3] == 0);
	BN_free(ba);
	BN_free(bb);
	BN_free(want);
	BN_free(t);
}

int main(void)
{
	struct prng g = { 0x5ca1a2 };
	long iters = 100000;
	uint8_t edges[6][32], a[32], b[32];
	BIGNUM *ba, *bb;

	ctx = BN_CTX_new();
	n = bn_of(TEST_N);
	rmod = BN_new();
	rinv = BN_new();
	if (ctx == NULL || rmod == NULL || rinv == NULL)
		test_fatal("BN_new");
	BN_set_bit(rmod, 256);
	BN_nnmod(rmod, rmod, n, ctx);
	BN_mod_inverse(rinv, rmod, n, ctx);

	/* 0, 1, n-1, n, n+1, 2^256-1 */
	memset(edges, 0, sizeof(edges));
	edges[1][31] = 1;
	memcpy(edges[2], TEST_N, 32);
	edges[2][31]--;
	memcpy(edges[3], TEST_N, 32);
	memcpy(edges[4], TEST_N, 32);
	edges[4][31]++;
	memset(edges[5], 0xff, 32);
	for (int i = 0; i < 6; i++)
		check_reduce_and_range(edges[i]);
	for (int i = 0; i < 3; i++)	/* the edges below n */
		for (int j = 0; j < 3; j++)
			check_pair(edges[i], edges[j]);

	for (long i = 0; i < iters; i++) {
		interesting(&g, a);
		check_reduce_and_range(a);
		below_n(&g, a, &ba);
		below_n(&g, b, &bb);
		check_pair(a, b);
		BN_free(ba);
		BN_free(bb);
	}
	BN_free(n);
	BN_free(rmod);
	BN_free(rinv);
	BN_CTX_free(ctx);
	return test_done("test-scalar");
}
