/* SPDX-License-Identifier: ISC */
/*
 * point_sum_equals (lib/point-sum.c) against OpenSSL's arithmetic: for sums of 1 to 64 random
 * points with random multipliers in signed binary digits (sparse ones as the batch draws them,
 * dense ones, and 0, 1, -2^95, 2^96 - 1 and -(2^96 - 1) among them), it is 1 for OpenSSL's sum,
 * also given in another Jacobian form (X l^2, Y l^3, Z l for a random l), and 0 for that sum
 * plus G, for its negation and for the point at infinity. Repeated points, opposite points and
 * small multipliers drive the additions into their equal and opposite cases: sums of copies of
 * P, 2P and -P with multipliers between -19 and 19, against OpenSSL's, and a sum that is the
 * point at infinity, never equal to anything. m = 0 and m > POINT_SUM_MAX are refused (0).
 */
#include <openssl/ec.h>
#include <openssl/obj_mac.h>

#include "ec.h"
#include "point-sum.h"
#include "test-bn.h"
#include "testutil.h"

static const EC_GROUP *g;
static BN_CTX *ctx;
static BIGNUM *p;

static EC_POINT *point_new(void)
{
	EC_POINT *q = EC_POINT_new(g);

	if (q == NULL)
		test_fatal("EC_POINT_new");
	return q;
}

/* xy = the affine coordinates of q */
static void affine(uint8_t xy[64], const EC_POINT *q)
{
	uint8_t buf[65];

	if (EC_POINT_point2oct(g, q, POINT_CONVERSION_UNCOMPRESSED, buf, 65, ctx) != 65)
		test_fatal("EC_POINT_point2oct");
	memcpy(xy, buf + 1, 64);
}

typedef int8_t digits[POINT_SUM_BITS];

/* b = sum of d_i 2^i mod n */
static void digits_bn(BIGNUM *b, const int8_t d[POINT_SUM_BITS])
{
	BIGNUM *t = BN_new();

	if (t == NULL)
		test_fatal("BN_new");
	BN_zero(b);
	for (size_t i = POINT_SUM_BITS; i-- > 0;)
		if (!BN_lshift1(b, b) || !BN_set_word(t, (BN_ULONG)(d[i] < 0 ? -d[i] : d[i])) ||
		    !(d[i] < 0 ? BN_sub(b, b, t) : BN_add(b, b, t)))
			test_fatal("BN_lshift1");
	if (!BN_nnmod(b, b, EC_GROUP_get0_order(g), ctx))
		test_fatal("BN_nnmod");
	BN_free(t);
}

/* d = the binary digits of |v|, each with v's sign */
static void digits_of(int8_t d[POINT_SUM_BITS], int64_t v)
{
	uint64_t u = v < 0 ? (uint64_t)-v : (uint64_t)v;

	for (size_t i = 0; i < POINT_SUM_BITS; i++)
		d[i] = (int8_t)(i < 64 && (u >> i & 1) ? (v < 0 ? -1 : 1) : 0);
}

/* acc = sum c_j P_j by OpenSSL */
static void openssl_sum(EC_POINT *acc, EC_POINT *const *pts, digits *d, size_t m)
{
	EC_POINT *t = point_new();
	BIGNUM *b = BN_new();

	if (b == NULL || EC_POINT_set_to_infinity(g, acc) != 1)
		test_fatal("BN_new");
	for (size_t j = 0; j < m; j++) {
		digits_bn(b, d[j]);
		if (EC_POINT_mul(g, t, NULL, pts[j], b, ctx) != 1 ||
		    EC_POINT_add(g, acc, acc, t, ctx) != 1)
			test_fatal("EC_POINT_mul");
	}
	BN_free(b);
	EC_POINT_free(t);
}

/* point_sum_equals against q's Jacobian coordinates as OpenSSL keeps them */
static int equals(const uint8_t (*xy)[64], digits *a, size_t m, const EC_POINT *q)
{
	uint8_t X[32], Y[32], Z[32];

	if (ec_jacobian_bytes(g, q, X, Y, Z, ctx) != 0)
		test_fatal("ec_jacobian_bytes");
	return point_sum_equals(xy, (const int8_t (*)[POINT_SUM_BITS])a, m, X, Y, Z);
}

/* the same, with q's coordinates rescaled by a random l: (X l^2, Y l^3, Z l) */
static int equals_rescaled(struct prng *rng, const uint8_t (*xy)[64], digits *a, size_t m,
	const EC_POINT *q)
{
	uint8_t X[32], Y[32], Z[32], lb[32];
	BIGNUM *x, *y, *z, *l = BN_new(), *l2 = BN_new();

	if (ec_jacobian_bytes(g, q, X, Y, Z, ctx) != 0 || l == NULL || l2 == NULL)
		test_fatal("ec_jacobian_bytes");
	prng_bytes(rng, lb, 32);
	lb[0] &= 0x7f;
	lb[31] |= 1;
	x = test_bn(X);
	y = test_bn(Y);
	z = test_bn(Z);
	if (BN_bin2bn(lb, 32, l) == NULL || BN_mod_sqr(l2, l, p, ctx) != 1 ||
	    BN_mod_mul(x, x, l2, p, ctx) != 1 || BN_mod_mul(l2, l2, l, p, ctx) != 1 ||
	    BN_mod_mul(y, y, l2, p, ctx) != 1 || BN_mod_mul(z, z, l, p, ctx) != 1)
		test_fatal("BN_mod_mul");
	test_bn_put(X, x);
	test_bn_put(Y, y);
	test_bn_put(Z, z);
	BN_free(x);
	BN_free(y);
	BN_free(z);
	BN_free(l);
	BN_free(l2);
	return point_sum_equals(xy, (const int8_t (*)[POINT_SUM_BITS])a, m, X, Y, Z);
}

/* a multiplier of the kind j selects: sparse as the batch's, dense, or one of five edges */
static void multiplier(struct prng *rng, size_t j, int8_t d[POINT_SUM_BITS])
{
	memset(d, 0, POINT_SUM_BITS);
	switch (j % 11) {
	case 1:					/* 2^96 - 1 */
	case 2:					/* -(2^96 - 1) */
		memset(d, j % 11 == 1 ? 1 : -1, POINT_SUM_BITS);
		return;
	case 3:					/* 0 */
		return;
	case 5:					/* 1 */
		d[0] = 1;
		return;
	case 7:					/* -2^95 */
		d[POINT_SUM_BITS - 1] = -1;
		return;
	case 9:					/* dense: every digit -1, 0 or 1 */
		for (size_t i = 0; i < POINT_SUM_BITS; i++)
			d[i] = (int8_t)(prng_u64(rng) % 3) - 1;
		return;
	default:				/* 13 places, random signs */
		for (int k = 0; k < 13; k++)
			d[prng_u64(rng) % POINT_SUM_BITS] = prng_u64(rng) & 1 ? 1 : -1;
		return;
	}
}

/* m random points, m random multipliers */
static void check_random(struct prng *rng, size_t m)
{
	EC_POINT *pts[POINT_SUM_MAX], *sum = point_new(), *t = point_new();
	uint8_t xy[POINT_SUM_MAX][64], k[32];
	digits a[POINT_SUM_MAX];
	BIGNUM *kb;

	for (size_t j = 0; j < m; j++) {
		prng_bytes(rng, k, 32);
		k[0] &= 0x7f;
		kb = test_bn(k);
		pts[j] = point_new();
		if (EC_POINT_mul(g, pts[j], kb, NULL, NULL, ctx) != 1)
			test_fatal("EC_POINT_mul");
		BN_free(kb);
		affine(xy[j], pts[j]);
		multiplier(rng, j, a[j]);
	}
	openssl_sum(sum, pts, a, m);
	if (EC_POINT_is_at_infinity(g, sum))
		test_fatal("a random sum at infinity");
	CHECK_INT(equals((const uint8_t (*)[64])xy, a, m, sum), 1);
	CHECK_INT(equals_rescaled(rng, (const uint8_t (*)[64])xy, a, m, sum), 1);
	if (EC_POINT_add(g, t, sum, EC_GROUP_get0_generator(g), ctx) != 1)
		test_fatal("EC_POINT_add");
	CHECK_INT(equals((const uint8_t (*)[64])xy, a, m, t), 0);
	if (EC_POINT_copy(t, sum) != 1 || EC_POINT_invert(g, t, ctx) != 1)
		test_fatal("EC_POINT_invert");
	CHECK_INT(equals((const uint8_t (*)[64])xy, a, m, t), 0);
	if (EC_POINT_set_to_infinity(g, t) != 1)
		test_fatal("EC_POINT_set_to_infinity");
	CHECK_INT(equals((const uint8_t (*)[64])xy, a, m, t), 0);
	for (size_t j = 0; j < m; j++)
		EC_POINT_free(pts[j]);
	EC_POINT_free(sum);
	EC_POINT_free(t);
}

/* sums of P, 2P and -P with small multipliers: the additions meet equal and opposite points */
static void check_repeated(struct prng *rng)
{
	EC_POINT *base[3], *pts[8], *sum = point_new();
	uint8_t xy3[3][64], xy[8][64];
	digits a[8];
	int nonzero = 0;

	for (int i = 0; i < 3; i++)
		base[i] = point_new();
	if (EC_POINT_copy(base[0], EC_GROUP_get0_generator(g)) != 1 ||
	    EC_POINT_dbl(g, base[1], base[0], ctx) != 1 || EC_POINT_copy(base[2], base[0]) != 1 ||
	    EC_POINT_invert(g, base[2], ctx) != 1)
		test_fatal("EC_POINT_dbl");
	for (int i = 0; i < 3; i++)
		affine(xy3[i], base[i]);
	for (int round = 0; round < 3000; round++) {
		size_t m = 1 + (size_t)round % 8;

		for (size_t j = 0; j < m; j++) {
			size_t which = (size_t)(prng_u64(rng) % 3);

			pts[j] = base[which];
			memcpy(xy[j], xy3[which], 64);
			digits_of(a[j], (int64_t)(prng_u64(rng) % 39) - 19);
		}
		openssl_sum(sum, pts, a, m);
		if (EC_POINT_is_at_infinity(g, sum)) {
			CHECK_INT(equals((const uint8_t (*)[64])xy, a, m, sum), 0);
			CHECK_INT(equals((const uint8_t (*)[64])xy, a, m, EC_GROUP_get0_generator(g)),
			    0);
		} else {
			CHECK_INT(equals((const uint8_t (*)[64])xy, a, m, sum), 1);
			nonzero++;
		}
	}
	CHECK(nonzero > 2000);
	/* P + (-P): infinity, not equal to P or to OpenSSL's infinity */
	memcpy(xy[0], xy3[0], 64);
	memcpy(xy[1], xy3[2], 64);
	digits_of(a[0], 12345);
	digits_of(a[1], 12345);
	CHECK_INT(equals((const uint8_t (*)[64])xy, a, 2, base[0]), 0);
	if (EC_POINT_set_to_infinity(g, sum) != 1)
		test_fatal("EC_POINT_set_to_infinity");
	CHECK_INT(equals((const uint8_t (*)[64])xy, a, 2, sum), 0);
	/* no points, too many */
	CHECK_INT(equals((const uint8_t (*)[64])xy, a, 0, base[0]), 0);
	CHECK_INT(equals((const uint8_t (*)[64])xy, a, POINT_SUM_MAX + 1, base[0]), 0);
	for (int i = 0; i < 3; i++)
		EC_POINT_free(base[i]);
	EC_POINT_free(sum);
}

int main(void)
{
	struct prng rng = { 0x73756d };

	if ((g = ec_group()) == NULL || (ctx = BN_CTX_new()) == NULL)
		test_fatal("ec_group");
	p = test_bn(TEST_P);
	for (size_t round = 0; round < 200; round++)
		check_random(&rng, 1 + round % POINT_SUM_MAX);
	check_repeated(&rng);
	BN_free(p);
	BN_CTX_free(ctx);
	return test_done("test-point-sum");
}
