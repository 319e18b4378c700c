/* SPDX-License-Identifier: ISC */
/*
 * SEC 1 compressed points (SEC 1 v2 sections 2.3.3 and 2.3.4): 0x02 or 0x03 (the parity of y),
 * then x. A point is public, so this is variable time. The square root is computed here rather
 * than by EC_POINT_oct2point so that every refusal is ours and checked: x >= p, and an x whose
 * x^3 - 3x + b has no square root (about half of them). tests/unit/test-point-compressed.c
 * checks the result against OpenSSL's decoding.
 */
#include <string.h>

#include "ec.h"
#include "p256.h"

#define COORD_LEN 32

/*
 * y with y^2 = x^3 + ax + b mod p and the parity of odd, or P256_ERR_POINT. p = 3 mod 4, so the
 * candidate root is rhs^((p + 1) / 4); it is a root only when rhs is a square, which is checked by
 * squaring it back. No point of P-256 has y = 0 (its order n is an odd prime), so p - y has the
 * other parity.
 */
static int root_y(const BIGNUM *x, int odd, BIGNUM *y, BN_CTX *ctx)
{
	const EC_GROUP *g = ec_group();
	BIGNUM *p, *a, *b, *rhs, *t, *e;
	int r = P256_ERR_INTERNAL;

	BN_CTX_start(ctx);
	p = BN_CTX_get(ctx);
	a = BN_CTX_get(ctx);
	b = BN_CTX_get(ctx);
	rhs = BN_CTX_get(ctx);
	t = BN_CTX_get(ctx);
	e = BN_CTX_get(ctx);
	if (g == NULL || e == NULL || EC_GROUP_get_curve(g, p, a, b, ctx) != 1)
		goto out;
	r = P256_ERR_POINT;
	if (BN_cmp(x, p) >= 0)
		goto out;
	r = P256_ERR_INTERNAL;
	/* rhs = (x^2 + a) x + b */
	if (BN_mod_sqr(t, x, p, ctx) != 1 || BN_mod_add(t, t, a, p, ctx) != 1 ||
	    BN_mod_mul(t, t, x, p, ctx) != 1 || BN_mod_add(rhs, t, b, p, ctx) != 1 ||
	    BN_add(e, p, BN_value_one()) != 1 || BN_rshift(e, e, 2) != 1 ||
	    BN_mod_exp(y, rhs, e, p, ctx) != 1 || BN_mod_sqr(t, y, p, ctx) != 1)
		goto out;
	r = P256_ERR_POINT;	/* rhs is not a square: no point has this x */
	if (BN_cmp(t, rhs) != 0)
		goto out;
	r = P256_ERR_INTERNAL;
	if (BN_is_odd(y) != odd && BN_sub(y, p, y) != 1)
		goto out;
	r = 0;
out:
	BN_CTX_end(ctx);
	return r;
}

int p256_point_decompress(const uint8_t in[P256_POINT_COMPRESSED_LEN], uint8_t out[P256_POINT_LEN])
{
	BN_CTX *ctx = NULL;
	BIGNUM *x = NULL, *y = NULL;
	int r = P256_ERR_POINT;

	memset(out, 0, P256_POINT_LEN);
	if (in[0] != 0x02 && in[0] != 0x03)
		goto out;
	r = P256_ERR_INTERNAL;
	if ((ctx = BN_CTX_new()) == NULL || (x = BN_bin2bn(in + 1, COORD_LEN, NULL)) == NULL ||
	    (y = BN_new()) == NULL)
		goto out;
	if ((r = root_y(x, in[0] & 1, y, ctx)) != 0)
		goto out;
	r = P256_ERR_INTERNAL;
	out[0] = 0x04;
	memcpy(out + 1, in + 1, COORD_LEN);
	if (BN_bn2binpad(y, out + 1 + COORD_LEN, COORD_LEN) != COORD_LEN)
		goto out;
	/* The point is on the curve by construction; the one checker of points says so too. */
	r = p256_point_check(out);
out:
	if (r != 0)
		memset(out, 0, P256_POINT_LEN);
	BN_free(x);
	BN_free(y);
	BN_CTX_free(ctx);
	return r;
}

int p256_point_compress(const uint8_t pub[P256_POINT_LEN], uint8_t out[P256_POINT_COMPRESSED_LEN])
{
	int r = p256_point_check(pub);

	if (r != 0)
		return r;
	out[0] = 0x02 | (pub[P256_POINT_LEN - 1] & 1);
	memcpy(out + 1, pub + 1, COORD_LEN);
	return 0;
}
