/* SPDX-License-Identifier: ISC */
/*
 * The affine conversion of lib/field.c (x = X / Z^2, y = Y / Z^3 mod p) against OpenSSL's BIGNUM
 * on 100,000 random (X, Y, Z) below p from a fixed seed, with limbs of 0 and all ones mixed in
 * to hit the carries of the Montgomery reduction, and the edges 0, 1, 2, p-2, p-1 for each
 * coordinate (Z = 0 gives x = y = 0). With y NULL only x is written.
 */
#include <openssl/bn.h>

#include "field.h"
#include "testutil.h"

static BN_CTX *ctx;
static BIGNUM *p;

static const uint8_t TEST_P[32] = {
	0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
};

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

int main(void)
{
	struct prng g = { 0xf1e1d };
	uint8_t edges[5][32], X[32], Y[32], Z[32];

	if ((ctx = BN_CTX_new()) == NULL || (p = BN_bin2bn(TEST_P, 32, NULL)) == NULL)
		test_fatal("BN_CTX_new");
	memset(edges, 0, sizeof(edges));	/* 0, 1, 2, p-2, p-1 */
	edges[1][31] = 1;
	edges[2][31] = 2;
	memcpy(edges[3], TEST_P, 32);
	edges[3][31] -= 2;
	memcpy(edges[4], TEST_P, 32);
	edges[4][31] -= 1;
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 5; j++)
			for (int k = 0; k < 5; k++)
				check(edges[i], edges[j], edges[k]);
	for (int i = 0; i < 100000; i++) {
		random_below_p(&g, X);
		random_below_p(&g, Y);
		random_below_p(&g, Z);
		check(X, Y, Z);
	}
	BN_free(p);
	BN_CTX_free(ctx);
	return test_done("test-field");
}
