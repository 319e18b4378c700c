/* SPDX-License-Identifier: ISC */
/*
 * The affine conversion of lib/field.c (x = X / Z^2, y = Y / Z^3 mod p) against OpenSSL's BIGNUM
 * on 100,000 random (X, Y, Z) below p from a fixed seed, with limbs of 0 and all ones mixed in
 * to hit the carries of the Montgomery reduction, and the edges 0, 1, 2, p-2, p-1 for each
 * coordinate (Z = 0 gives x = y = 0). With y NULL only x is written. The verification's
 * comparison field_x_mod_n_is on 10,000 of them, with x = r, r + n, r + 1 and r + n - p, and
 * false for Z = 0 (infinity) whatever X and r, X = 0 included (0 = r 0^2). The batch conversion
 * field_affine_batch against the same BIGNUM figures for every batch size 1..64 (nonzero Z,
 * the edges 1, 2, p-2, p-1 among them), 400 batches in all, half of them with y. The element
 * operations of the point arithmetic (fe_add, fe_sub, fe_mul, to and from Montgomery form)
 * against BN_mod_add, BN_mod_sub and BN_mod_mul on every pair of edges and 20,000 random pairs.
 */
#include <openssl/bn.h>

#include "field.h"
#include "testutil.h"

static BN_CTX *ctx;
static BIGNUM *p, *n;

/* out = v mod p as 32 bytes; v is 32 bytes */
static void reduce_p(uint8_t out[32], const uint8_t v[32])
{
	BIGNUM *b = BN_bin2bn(v, 32, NULL);

	if (b == NULL || BN_nnmod(b, b, p, ctx) != 1 || BN_bn2binpad(b, out, 32) != 32)
		test_fatal("BN_nnmod");
	BN_free(b);
}

/* want = c * z^-e mod p (0 when z = 0) */
static void expected(uint8_t want[32], const uint8_t c[32], const uint8_t z[32], int e)
{
	BIGNUM *cb = BN_bin2bn(c, 32, NULL), *zb = BN_bin2bn(z, 32, NULL), *t = BN_new();

	if (cb == NULL || zb == NULL || t == NULL)
		test_fatal("BN_new");
	if (BN_is_zero(zb))
		BN_zero(t);
	else if (BN_mod_inverse(zb, zb, p, ctx) == NULL || !BN_set_word(t, (BN_ULONG)e) ||
	    BN_mod_exp(zb, zb, t, p, ctx) != 1 || BN_mod_mul(t, cb, zb, p, ctx) != 1)
		test_fatal("BN_mod_inverse");
	if (BN_bn2binpad(t, want, 32) != 32)
		test_fatal("BN_bn2binpad");
	BN_free(cb);
	BN_free(zb);
	BN_free(t);
}

static void check(const uint8_t X[32], const uint8_t Y[32], const uint8_t Z[32])
{
	uint8_t x[32], y[32], wx[32], wy[32], only_x[32];

	expected(wx, X, Z, 2);
	expected(wy, Y, Z, 3);
	field_affine(x, y, X, Y, Z);
	CHECK_MEM(x, wx, 32);
	CHECK_MEM(y, wy, 32);
	field_affine(only_x, NULL, X, NULL, Z);
	CHECK_MEM(only_x, wx, 32);
}

/* X = c Z^2 mod p as 32 bytes, c any BIGNUM below 2^257 */
static void x_of(uint8_t X[32], const BIGNUM *c, const uint8_t Z[32])
{
	BIGNUM *z = BN_bin2bn(Z, 32, NULL), *t = BN_new();

	if (z == NULL || t == NULL || BN_mod_sqr(t, z, p, ctx) != 1 ||
	    BN_mod_mul(t, t, c, p, ctx) != 1 || BN_bn2binpad(t, X, 32) != 32)
		test_fatal("BN_mod_mul");
	BN_free(z);
	BN_free(t);
}

/*
 * field_x_mod_n_is for r < n and Z not 0: true for x = r, and for x = r + n when that is below
 * p (r small); false for x = r + 1, and for x = r + n - p when r + n >= p (the value that would
 * match if the comparison forgot that x < p).
 */
static void check_x_mod_n(const uint8_t Z[32], uint8_t r_bytes[32])
{
	BIGNUM *r = BN_bin2bn(r_bytes, 32, NULL), *c = BN_new();
	uint8_t X[32];

	if (r == NULL || c == NULL || BN_nnmod(r, r, n, ctx) != 1 ||
	    BN_bn2binpad(r, r_bytes, 32) != 32)
		test_fatal("BN_nnmod");
	x_of(X, r, Z);
	CHECK(field_x_mod_n_is(X, Z, r_bytes) == 1);
	BN_add(c, r, BN_value_one());
	x_of(X, c, Z);
	CHECK(field_x_mod_n_is(X, Z, r_bytes) == 0);
	BN_add(c, r, n);
	if (BN_cmp(c, p) < 0) {
		x_of(X, c, Z);
		CHECK(field_x_mod_n_is(X, Z, r_bytes) == 1);
	} else {
		BN_sub(c, c, p);
		x_of(X, c, Z);
		CHECK(field_x_mod_n_is(X, Z, r_bytes) == 0);
	}
	BN_free(r);
	BN_free(c);
}

/* A value below p: random, with each 64-bit limb sometimes 0 or all ones. */
static void random_below_p(struct prng *g, uint8_t out[32])
{
	uint8_t v[32];

	prng_bytes(g, v, 32);
	for (int i = 0; i < 4; i++) {
		uint64_t how = prng_u64(g) % 6;

		if (how == 0)
			memset(v + 8 * i, 0, 8);
		else if (how == 1)
			memset(v + 8 * i, 0xff, 8);
	}
	reduce_p(out, v);
}

/*
 * m points at once: each x (and y, when with_y) as BIGNUM computes it alone; nothing written
 * past x[m - 1] or y[m - 1], and y untouched without with_y.
 */
static void check_batch(struct prng *g, const uint8_t edges[5][32], size_t m, int with_y)
{
	uint8_t X[FIELD_BATCH_MAX][32], Y[FIELD_BATCH_MAX][32], Z[FIELD_BATCH_MAX][32];
	uint8_t x[FIELD_BATCH_MAX + 1][32], y[FIELD_BATCH_MAX + 1][32], want[32];

	for (size_t j = 0; j < m; j++) {
		random_below_p(g, X[j]);
		random_below_p(g, Y[j]);
		do
			random_below_p(g, Z[j]);
		while (all_zero(Z[j], 32));
		if (j % 7 == 3)
			memcpy(Z[j], edges[1 + j % 4], 32);
	}
	memset(x, 0xaa, sizeof(x));
	memset(y, 0x55, sizeof(y));
	field_affine_batch(x, with_y ? y : NULL, (const uint8_t (*)[32])X,
	    with_y ? (const uint8_t (*)[32])Y : NULL, (const uint8_t (*)[32])Z, m);
	for (size_t j = 0; j < m; j++) {
		expected(want, X[j], Z[j], 2);
		CHECK_MEM(x[j], want, 32);
		expected(want, Y[j], Z[j], 3);
		if (with_y)
			CHECK_MEM(y[j], want, 32);
	}
	for (size_t i = 0; i < 32; i++) {
		CHECK(x[m][i] == 0xaa);
		CHECK(y[m][i] == 0x55);
		CHECK(with_y || y[0][i] == 0x55);
	}
}

/* fe_add, fe_sub and fe_mul through the Montgomery form against BN_mod_add, _sub and _mul. */
static void check_fe(const uint8_t a[32], const uint8_t b[32])
{
	BIGNUM *ab = BN_bin2bn(a, 32, NULL), *bb = BN_bin2bn(b, 32, NULL), *t = BN_new();
	uint8_t got[32], want[32];
	fe fa, fb, fr;

	if (ab == NULL || bb == NULL || t == NULL)
		test_fatal("BN_new");
	fe_from_bytes(&fa, a);
	fe_from_bytes(&fb, b);
	fe_to_bytes(got, &fa);
	CHECK_MEM(got, a, 32);
	CHECK_INT(fe_is_zero(&fa), all_zero(a, 32));
	fe_add(&fr, &fa, &fb);
	fe_to_bytes(got, &fr);
	if (BN_mod_add(t, ab, bb, p, ctx) != 1 || BN_bn2binpad(t, want, 32) != 32)
		test_fatal("BN_mod_add");
	CHECK_MEM(got, want, 32);
	fe_sub(&fr, &fa, &fb);
	fe_to_bytes(got, &fr);
	if (BN_mod_sub(t, ab, bb, p, ctx) != 1 || BN_bn2binpad(t, want, 32) != 32)
		test_fatal("BN_mod_sub");
	CHECK_MEM(got, want, 32);
	fe_mul(&fr, &fa, &fb);
	fe_to_bytes(got, &fr);
	if (BN_mod_mul(t, ab, bb, p, ctx) != 1 || BN_bn2binpad(t, want, 32) != 32)
		test_fatal("BN_mod_mul");
	CHECK_MEM(got, want, 32);
	fe_mul(&fa, &fa, &fa);			/* aliased */
	fe_to_bytes(got, &fa);
	if (BN_mod_sqr(t, ab, p, ctx) != 1 || BN_bn2binpad(t, want, 32) != 32)
		test_fatal("BN_mod_sqr");
	CHECK_MEM(got, want, 32);
	BN_free(ab);
	BN_free(bb);
	BN_free(t);
}

int main(void)
{
	struct prng g = { 0xf1e1d };
	uint8_t edges[5][32], X[32], Y[32], Z[32];

	if ((ctx = BN_CTX_new()) == NULL || (p = BN_bin2bn(TEST_P, 32, NULL)) == NULL ||
	    (n = BN_bin2bn(TEST_N, 32, NULL)) == NULL)
		test_fatal("BN_CTX_new");
	memset(edges, 0, sizeof(edges));	/* 0, 1, 2, p-2, p-1 */
	edges[1][31] = 1;
	edges[2][31] = 2;
	memcpy(edges[3], TEST_P, 32);
	edges[3][31] -= 2;
	memcpy(edges[4], TEST_P, 32);
	edges[4][31] -= 1;
	for (int i = 0; i < 5; i++) {
		for (int j = 0; j < 5; j++) {
			for (int k = 0; k < 5; k++)
				check(edges[i], edges[j], edges[k]);
			CHECK(field_x_mod_n_is(edges[i], edges[0], edges[j]) == 0);
		}
	}
	for (int i = 0; i < 100000; i++) {
		random_below_p(&g, X);
		random_below_p(&g, Y);
		random_below_p(&g, Z);
		check(X, Y, Z);
		if (i % 10 != 0 || all_zero(Z, 32))
			continue;
		prng_bytes(&g, X, 32);
		if (i % 20 == 0)		/* r below p - n, so that r + n < p */
			memset(X, 0, 16);
		check_x_mod_n(Z, X);
	}
	for (int round = 0; round < 400; round++)
		check_batch(&g, (const uint8_t (*)[32])edges, 1 + (size_t)round % FIELD_BATCH_MAX,
		    round % 2);
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 5; j++)
			check_fe(edges[i], edges[j]);
	for (int i = 0; i < 20000; i++) {
		random_below_p(&g, X);
		random_below_p(&g, Y);
		check_fe(X, Y);
	}
	BN_free(p);
	BN_free(n);
	BN_CTX_free(ctx);
	return test_done("test-field");
}
