/* SPDX-License-Identifier: ISC */
/*
 * Verification, low-s normalisation and the EIP-7951 P256VERIFY precompile: the policies (high s
 * accepted by default, refused under P256_VERIFY_LOW_S), every malformed point and out-of-range
 * scalar refused with its own code, and two constructed edge cases of the verification equation:
 * R' at infinity (must fail) and R'.x >= n with R'.x mod n = r (must succeed). Points and scalars
 * for the edge cases are built with OpenSSL's EC and BIGNUM. Every verdict on a valid point is
 * also the verdict of p256_verify_precomputed (the point's table: the verifier of
 * p256_sign_checked and of configured keys).
 */
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/obj_mac.h>

#include "p256.h"
#include "test-bn.h"
#include "testutil.h"

static EC_GROUP *group;
static BN_CTX *ctx;
static const BIGNUM *order;

/* 65-byte encoding of an OpenSSL point. */
static void encode(const EC_POINT *pt, uint8_t out[65])
{
	if (EC_POINT_point2oct(group, pt, POINT_CONVERSION_UNCOMPRESSED, out, 65, ctx) != 65)
		test_fatal("EC_POINT_point2oct");
}

/* p256_eip7951 on digest || sig || x || y; 1 when it returns the 32-byte success word. */
static int eip(const uint8_t digest[32], const uint8_t sig[64], const uint8_t pub[65])
{
	uint8_t in[160], out[32], one[32] = { 0 };

	one[31] = 1;
	memcpy(in, digest, 32);
	memcpy(in + 32, sig, 64);
	memcpy(in + 96, pub + 1, 64);
	memset(out, 0xaa, sizeof(out));
	size_t n = p256_eip7951(in, sizeof(in), out);
	if (n == 0)
		return 0;
	CHECK_INT(n, 32);
	CHECK_MEM(out, one, 32);
	return 1;
}

/* The verdict of p256_verify_precomputed on a valid point; the last table is kept. */
static int by_table(const uint8_t digest[32], const uint8_t sig[64], const uint8_t pub[65])
{
	static uint8_t last[65];
	static struct p256_verify_key *table;

	if (table == NULL || memcmp(last, pub, 65) != 0) {
		p256_verify_key_free(table);
		if (p256_pubkey_precompute(pub, 65, &table) != 0)
			test_fatal("building the table");
		memcpy(last, pub, 65);
	}
	return p256_verify_precomputed(table, digest, sig, 0);
}

/* Every verifier agrees that (digest, sig, pub) is invalid with the code `want`. */
static void refused(const uint8_t digest[32], const uint8_t sig[64], const uint8_t pub[65],
	int want)
{
	CHECK_INT(p256_verify(pub, 65, digest, sig, 0), want);
	CHECK_INT(p256_verify(pub + 1, 64, digest, sig, 0), want);
	CHECK_INT(eip(digest, sig, pub), 0);
	if (p256_point_check(pub) == 0)
		CHECK_INT(by_table(digest, sig, pub), want);
}

static void check_policies(const uint8_t pub[65], const uint8_t digest[32], const uint8_t sig[64])
{
	uint8_t low[64], high[64], t[64];
	BIGNUM *s = test_bn(sig + 32), *half = BN_dup(order);

	/* the two forms of the signature: s and n - s */
	BN_rshift1(half, half);
	memcpy(low, sig, 64);
	memcpy(high, sig, 64);
	BN_sub(s, order, s);
	test_bn_put(BN_cmp(s, half) > 0 ? high + 32 : low + 32, s);
	CHECK(memcmp(low, high, 64) != 0);

	CHECK_INT(p256_verify(pub, 65, digest, low, 0), 0);
	CHECK_INT(p256_verify(pub, 65, digest, high, 0), 0);
	CHECK_INT(p256_verify(pub, 65, digest, low, P256_VERIFY_LOW_S), 0);
	CHECK_INT(p256_verify(pub, 65, digest, high, P256_VERIFY_LOW_S), P256_ERR_SIG_HIGH_S);
	CHECK_INT(eip(digest, high, pub), 1);
	CHECK_INT(eip(digest, low, pub), 1);

	memcpy(t, high, 64);
	CHECK_INT(p256_normalize_s(t), 0);
	CHECK_MEM(t, low, 64);
	CHECK_INT(p256_normalize_s(t), 0);
	CHECK_MEM(t, low, 64);

	/* s = floor(n/2) is low, floor(n/2) + 1 is high */
	memcpy(t, low, 32);
	test_bn_put(t + 32, half);
	CHECK_INT(p256_verify(pub, 65, digest, t, P256_VERIFY_LOW_S), P256_ERR_SIG_INVALID);
	memcpy(low, t, 64);
	CHECK_INT(p256_normalize_s(t), 0);
	CHECK_MEM(t, low, 64);
	BN_add_word(half, 1);
	test_bn_put(t + 32, half);
	CHECK_INT(p256_verify(pub, 65, digest, t, P256_VERIFY_LOW_S), P256_ERR_SIG_HIGH_S);
	BN_free(s);
	BN_free(half);
}

static void check_sig_ranges(const uint8_t pub[65], const uint8_t digest[32], const uint8_t sig[64])
{
	uint8_t t[64];

	for (int half = 0; half < 2; half++) {
		uint8_t *v = t + 32 * half;

		memcpy(t, sig, 64);
		memset(v, 0, 32);			/* 0 */
		refused(digest, t, pub, P256_ERR_SIG_RANGE);
		CHECK_INT(p256_normalize_s(t), P256_ERR_SIG_RANGE);
		memcpy(v, TEST_N, 32);			/* n */
		refused(digest, t, pub, P256_ERR_SIG_RANGE);
		CHECK_INT(p256_verify(pub, 65, digest, t, P256_VERIFY_LOW_S), P256_ERR_SIG_RANGE);
		CHECK_INT(p256_normalize_s(t), P256_ERR_SIG_RANGE);
		memset(v, 0xff, 32);			/* 2^256 - 1 */
		refused(digest, t, pub, P256_ERR_SIG_RANGE);
		CHECK_INT(p256_verify(pub, 65, digest, t, P256_VERIFY_LOW_S), P256_ERR_SIG_RANGE);
	}

	memcpy(t, sig, 64);			/* a changed r, digest, or r and s swapped */
	t[31] ^= 1;
	refused(digest, t, pub, P256_ERR_SIG_INVALID);
	memcpy(t, sig + 32, 32);
	memcpy(t + 32, sig, 32);
	refused(digest, t, pub, P256_ERR_SIG_INVALID);
	memcpy(t, digest, 32);
	t[0] ^= 0x80;
	refused(t, sig, pub, P256_ERR_SIG_INVALID);
}

/* Every malformed point is refused, by length, prefix, range or curve equation. */
static void check_points(const uint8_t pub[65], const uint8_t digest[32], const uint8_t sig[64])
{
	static const uint8_t prefixes[] = { 0x00, 0x02, 0x03, 0x05, 0x06, 0x07, 0x84 };
	static const size_t lens[] = { 0, 1, 33, 63, 66 };
	uint8_t t[66], small[65];
	BIGNUM *x = BN_new();
	EC_POINT *pt = EC_POINT_new(group);

	CHECK_INT(p256_point_check(pub), 0);
	memcpy(t, pub, 65);
	t[65] = 0;
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		CHECK_INT(p256_verify(t, lens[i], digest, sig, 0), P256_ERR_LENGTH);
	for (size_t i = 0; i < sizeof(prefixes); i++) {
		t[0] = prefixes[i];
		CHECK_INT(p256_verify(t, 65, digest, sig, 0), P256_ERR_POINT);
		CHECK_INT(p256_point_check(t), P256_ERR_POINT);
	}

	memcpy(t, pub, 65);			/* off the curve */
	t[64] ^= 1;
	refused(digest, sig, t, P256_ERR_POINT);
	CHECK_INT(p256_point_check(t), P256_ERR_POINT);
	memset(t + 1, 0, 64);			/* (0, 0), the usual encoding of infinity */
	refused(digest, sig, t, P256_ERR_POINT);
	CHECK_INT(p256_point_check(t), P256_ERR_POINT);
	memset(t, 0, 65);			/* SEC 1 infinity padded to 65 bytes */
	CHECK_INT(p256_verify(t, 65, digest, sig, 0), P256_ERR_POINT);
	CHECK_INT(p256_verify(t, 1, digest, sig, 0), P256_ERR_LENGTH);

	/* x >= p: a real point with a small x, given as x + p (the same residue) */
	for (BN_ULONG i = 1;; i++) {
		BN_set_word(x, i);
		if (EC_POINT_set_compressed_coordinates(group, pt, x, 0, ctx) == 1)
			break;
	}
	encode(pt, small);
	CHECK_INT(p256_point_check(small), 0);
	memcpy(t, small, 65);
	BN_bin2bn(TEST_P, 32, x);
	BN_add_word(x, small[32]);		/* x < 256, so x + p < 2^256 */
	test_bn_put(t + 1, x);
	refused(digest, sig, t, P256_ERR_POINT);
	CHECK_INT(p256_point_check(t), P256_ERR_POINT);
	memcpy(t, pub, 65);			/* x = p, y >= p */
	memcpy(t + 1, TEST_P, 32);
	refused(digest, sig, t, P256_ERR_POINT);
	memcpy(t, pub, 65);
	memcpy(t + 33, TEST_P, 32);
	refused(digest, sig, t, P256_ERR_POINT);
	memset(t + 33, 0xff, 32);
	refused(digest, sig, t, P256_ERR_POINT);

	/* the point is checked before the signature's range */
	memset(t + 1, 0, 64);
	CHECK_INT(p256_verify(t, 65, digest, (const uint8_t[64]) { 0 }, 0), P256_ERR_POINT);
	BN_free(x);
	EC_POINT_free(pt);
}

static void check_eip_lengths(const uint8_t pub[65], const uint8_t digest[32],
	const uint8_t sig[64])
{
	uint8_t in[161] = { 0 }, out[32];

	memcpy(in, digest, 32);
	memcpy(in + 32, sig, 64);
	memcpy(in + 96, pub + 1, 64);
	CHECK_INT(p256_eip7951(in, 160, out), 32);
	CHECK_INT(p256_eip7951(in, 159, out), 0);
	CHECK_INT(p256_eip7951(in, 161, out), 0);
	CHECK_INT(p256_eip7951(in, 0, out), 0);
	CHECK_INT(p256_eip7951(NULL, 0, out), 0);
}

/*
 * u1*G + u2*Q = O: with Q = -(e/r)G, (e/s)G + (r/s)Q = (e/s - e/s)G. A verifier that reads the
 * x of infinity as 0, or fails with an internal error, is caught here.
 */
static void check_infinity(struct prng *g)
{
	uint8_t digest[32], sig[64], q[65];
	BIGNUM *e, *r, *d = BN_new();
	EC_POINT *pt = EC_POINT_new(group);

	prng_bytes(g, digest, 32);
	prng_bytes(g, sig, 64);
	sig[0] &= 0x7f;
	sig[32] &= 0x7f;
	e = test_bn(digest);
	r = test_bn(sig);
	if (BN_mod_inverse(d, r, order, ctx) == NULL || BN_mod_mul(d, d, e, order, ctx) != 1 ||
	    BN_sub(d, order, d) != 1 || EC_POINT_mul(group, pt, d, NULL, NULL, ctx) != 1)
		test_fatal("building Q");
	encode(pt, q);
	CHECK_INT(p256_verify(q, 65, digest, sig, 0), P256_ERR_SIG_INVALID);
	CHECK_INT(p256_verify(q + 1, 64, digest, sig, 0), P256_ERR_SIG_INVALID);
	CHECK_INT(eip(digest, sig, q), 0);
	CHECK_INT(by_table(digest, sig, q), P256_ERR_SIG_INVALID);
	BN_free(e);
	BN_free(r);
	BN_free(d);
	EC_POINT_free(pt);
}

/*
 * R' with n <= R'.x < p: r = R'.x - n must verify (the comparison is mod n), while r = R'.x is
 * out of range. With R a point of such an x, Q = (s/r)R - (e/r)G makes u1*G + u2*Q = R.
 */
static void check_x_above_n(struct prng *g)
{
	uint8_t digest[32], sig[64], q[65];
	BIGNUM *x = test_bn(TEST_N), *e, *s, *r = BN_new(), *ri = BN_new(), *a = BN_new(), *b = BN_new();
	EC_POINT *rp = EC_POINT_new(group), *pt = EC_POINT_new(group);

	while (EC_POINT_set_compressed_coordinates(group, rp, x, 1, ctx) != 1)
		BN_add_word(x, 1);
	prng_bytes(g, digest, 32);
	prng_bytes(g, sig + 32, 32);
	sig[32] &= 0x7f;
	e = test_bn(digest);
	s = test_bn(sig + 32);
	BN_sub(r, x, order);
	test_bn_put(sig, r);
	if (BN_mod_inverse(ri, r, order, ctx) == NULL || BN_mod_mul(a, s, ri, order, ctx) != 1 ||
	    BN_mod_mul(b, e, ri, order, ctx) != 1 || BN_mod_sub(b, order, b, order, ctx) != 1 ||
	    EC_POINT_mul(group, pt, b, rp, a, ctx) != 1)
		test_fatal("building Q");
	encode(pt, q);
	CHECK_INT(p256_verify(q, 65, digest, sig, 0), 0);
	CHECK_INT(eip(digest, sig, q), 1);
	CHECK_INT(by_table(digest, sig, q), 0);
	test_bn_put(sig, x);				/* r = R'.x itself is >= n */
	refused(digest, sig, q, P256_ERR_SIG_RANGE);
	BN_free(x);
	BN_free(e);
	BN_free(s);
	BN_free(r);
	BN_free(ri);
	BN_free(a);
	BN_free(b);
	EC_POINT_free(rp);
	EC_POINT_free(pt);
}

/* The digest is an integer mod n: digests e and e + n (both below 2^256) verify alike. */
static void check_digest_mod_n(const uint8_t d[32], const uint8_t pub[65])
{
	uint8_t big[32], reduced[32], sig[64];
	BIGNUM *e;

	memset(big, 0xff, 32);
	e = test_bn(big);
	BN_sub(e, e, order);
	test_bn_put(reduced, e);
	CHECK_INT(p256_sign(d, big, P256_NONCE_HEDGED, NULL, 0, sig), 0);
	CHECK_INT(p256_verify(pub, 65, big, sig, 0), 0);
	CHECK_INT(p256_verify(pub, 65, reduced, sig, 0), 0);
	CHECK_INT(eip(reduced, sig, pub), 1);
	BN_free(e);
}

int main(void)
{
	struct prng g = { 0x7e51f1 };
	uint8_t d[32], digest[32], sig[64], pub[65];

	if ((group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1)) == NULL ||
	    (ctx = BN_CTX_new()) == NULL || (order = EC_GROUP_get0_order(group)) == NULL)
		test_fatal("OpenSSL setup");
	for (int i = 0; i < 16; i++) {
		prng_bytes(&g, d, 32);
		d[0] &= 0x7f;
		prng_bytes(&g, digest, 32);
		CHECK_INT(p256_public_from_private(d, pub), 0);
		CHECK_INT(p256_sign(d, digest, P256_NONCE_HEDGED, NULL, 0, sig), 0);
		CHECK_INT(p256_verify(pub, 65, digest, sig, 0), 0);
		CHECK_INT(p256_verify(pub + 1, 64, digest, sig, 0), 0);
		CHECK_INT(eip(digest, sig, pub), 1);
		CHECK_INT(by_table(digest, sig, pub), 0);
		check_policies(pub, digest, sig);
		check_sig_ranges(pub, digest, sig);
		check_points(pub, digest, sig);
		check_eip_lengths(pub, digest, sig);
		check_infinity(&g);
		check_x_above_n(&g);
		check_digest_mod_n(d, pub);
	}
	BN_CTX_free(ctx);
	EC_GROUP_free(group);
	return test_done("test-verify");
}
