/* SPDX-License-Identifier: ISC */
/*
 * Differential test of verification against OpenSSL's EVP_PKEY_verify: both of our paths, the
 * explicit point (p256_verify) and the precomputed key (p256_verify_precomputed), must give
 * OpenSSL's verdict on every case. From a fixed-seed PRNG: keys (and the edge keys 1, 2, n-1),
 * our signatures of random digests, the same with one bit of r, s or the digest flipped, random
 * r||s, r or s of 0, n, n+1 or 2^256-1; and signatures constructed for chosen u1 = e/s and
 * u2 = r/s: u1 = 0, 1, n-1 and u2 = 1, n-1, u1 G = u2 Q (the sum is a doubling), u1 G = -u2 Q
 * (the sum is the point at infinity: refused whatever r), and the digest e + n for e.
 */
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/param_build.h>

#include "p256.h"
#include "test-bn.h"
#include "testutil.h"

#define KEYS 12
#define CASES_PER_KEY 40

static EC_GROUP *group;
static BN_CTX *ctx;
static const BIGNUM *order;
static struct prng rng = { 0x5eed0f0e55a1ULL };
static int compared, accepted;

/* A key for OpenSSL's verifier: the public point alone. */
static EVP_PKEY *openssl_public(const uint8_t pub[65])
{
	OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *pc = NULL;
	EVP_PKEY *pkey = NULL;

	if (bld == NULL ||
	    OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) != 1 ||
	    OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pub, 65) != 1 ||
	    (params = OSSL_PARAM_BLD_to_param(bld)) == NULL ||
	    (pc = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL)) == NULL ||
	    EVP_PKEY_fromdata_init(pc) != 1 ||
	    EVP_PKEY_fromdata(pc, &pkey, EVP_PKEY_PUBLIC_KEY, params) != 1)
		test_fatal("OpenSSL public key");
	EVP_PKEY_CTX_free(pc);
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	return pkey;
}

/* 1 when OpenSSL accepts r||s (as DER) over digest. */
static int openssl_accepts(EVP_PKEY *pkey, const uint8_t digest[32], const uint8_t sig[64])
{
	uint8_t der[P256_SIG_DER_MAX];
	size_t der_len;
	EVP_PKEY_CTX *vc;
	int ok;

	if (p256_sig_to_der(sig, der, &der_len) != 0)
		test_fatal("p256_sig_to_der");
	if ((vc = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL)) == NULL ||
	    EVP_PKEY_verify_init(vc) != 1)
		test_fatal("EVP_PKEY_verify_init");
	ok = EVP_PKEY_verify(vc, der, der_len, digest, 32) == 1;
	EVP_PKEY_CTX_free(vc);
	return ok;
}

struct key {
	uint8_t pub[65];
	EC_POINT *q;
	EVP_PKEY *pkey;
	struct p256_verify_key *vk;
};

/* Both of our verdicts equal OpenSSL's; returns OpenSSL's (1: accepted). */
static int same_verdict(const struct key *k, const uint8_t digest[32], const uint8_t sig[64])
{
	int want = openssl_accepts(k->pkey, digest, sig);
	int by_point = p256_verify(k->pub, 65, digest, sig, 0);
	int by_table = p256_verify_precomputed(k->vk, digest, sig, 0);

	CHECK_INT(by_point == 0, want);
	CHECK_INT(by_table, by_point);
	CHECK_INT(p256_verify_precomputed(k->vk, digest, sig, P256_VERIFY_LOW_S),
		p256_verify(k->pub, 65, digest, sig, P256_VERIFY_LOW_S));
	compared++;
	accepted += want;
	return want;
}

/*
 * The signature with u1 = e/s and u2 = r/s as given (u2 != 0), if r = x(u1 G + u2 Q) mod n is
 * not 0: s = r/u2, e = u1 s. With plus_n the digest is e + n when that is below 2^256. Returns
 * 0 when the sum is infinity or r = 0 (nothing written), else 1.
 */
static int constructed(const struct key *k, const BIGNUM *u1, const BIGNUM *u2, int plus_n,
	uint8_t digest[32], uint8_t sig[64])
{
	EC_POINT *rp = EC_POINT_new(group);
	BIGNUM *x = BN_new(), *r = BN_new(), *s = BN_new(), *e = BN_new();
	int ok = 0;

	if (rp == NULL || x == NULL || r == NULL || s == NULL || e == NULL ||
	    EC_POINT_mul(group, rp, u1, k->q, u2, ctx) != 1)
		test_fatal("EC_POINT_mul");
	if (EC_POINT_is_at_infinity(group, rp))
		goto out;
	if (EC_POINT_get_affine_coordinates(group, rp, x, NULL, ctx) != 1 ||
	    BN_nnmod(r, x, order, ctx) != 1)
		test_fatal("affine x");
	if (BN_is_zero(r))
		goto out;
	if (BN_mod_inverse(s, u2, order, ctx) == NULL || BN_mod_mul(s, s, r, order, ctx) != 1 ||
	    BN_mod_mul(e, u1, s, order, ctx) != 1)
		test_fatal("s and e");
	if (plus_n && BN_add(e, e, order) == 1 && BN_num_bits(e) > 256)
		BN_sub(e, e, order);
	test_bn_put(digest, e);
	test_bn_put(sig, r);
	test_bn_put(sig + 32, s);
	ok = 1;
out:
	EC_POINT_free(rp);
	BN_free(x);
	BN_free(r);
	BN_free(s);
	BN_free(e);
	return ok;
}

/* u1, u2 of the edge cases: 0, 1, n-1 (u1) and 1, n-1 (u2), with a random other scalar. */
static void edge_scalars(const struct key *k)
{
	uint8_t digest[32], sig[64], b[32];
	BIGNUM *edge[3], *u1, *u2;

	edge[0] = BN_new();
	edge[1] = BN_dup(BN_value_one());
	edge[2] = BN_dup(order);
	prng_bytes(&rng, b, 32);
	u1 = test_bn(b);
	u2 = BN_new();
	if (edge[0] == NULL || edge[1] == NULL || edge[2] == NULL || u2 == NULL ||
	    BN_sub_word(edge[2], 1) != 1 || BN_nnmod(u1, u1, order, ctx) != 1)
		test_fatal("edge scalars");
	BN_zero(edge[0]);
	for (int i = 0; i < 3; i++) {
		/* u1 at the edge, u2 random; then u2 at the edge (not 0), u1 random */
		BN_copy(u2, u1);
		if (BN_is_zero(u2))
			BN_one(u2);
		for (int plus_n = 0; plus_n < 2; plus_n++)
			if (constructed(k, edge[i], u2, plus_n, digest, sig))
				CHECK(same_verdict(k, digest, sig));
		if (i > 0 && constructed(k, u1, edge[i], 0, digest, sig))
			CHECK(same_verdict(k, digest, sig));
	}
	for (int i = 0; i < 3; i++)
		BN_free(edge[i]);
	BN_free(u1);
	BN_free(u2);
}

/*
 * With d known: u1 = u2 d makes u1 G = u2 Q (the sum doubles a point: valid), u1 = -u2 d makes
 * the sum infinity (no r can be valid: r and s are then arbitrary but in range).
 */
static void equal_and_opposite(const struct key *k, const BIGNUM *d)
{
	uint8_t digest[32], sig[64], b[32];
	BIGNUM *u1 = BN_new(), *u2, *s_inv = BN_new(), *t = BN_new();

	prng_bytes(&rng, b, 32);
	u2 = test_bn(b);
	if (u1 == NULL || s_inv == NULL || t == NULL || BN_nnmod(u2, u2, order, ctx) != 1 ||
	    BN_mod_mul(u1, u2, d, order, ctx) != 1)
		test_fatal("u1 = u2 d");
	if (BN_is_zero(u2))
		BN_one(u2);
	if (constructed(k, u1, u2, 0, digest, sig))
		CHECK(same_verdict(k, digest, sig));
	/* the sum at infinity: r random in range, s = r/u2, e = -u2 d s */
	if (BN_mod_sub(u1, order, u1, order, ctx) != 1)
		test_fatal("-u2 d");
	prng_bytes(&rng, b, 32);
	b[0] &= 0x7f;
	if ((b[31] | b[30]) == 0)
		b[31] = 1;
	BN_bin2bn(b, 32, t);			/* r */
	test_bn_put(sig, t);
	if (BN_mod_inverse(s_inv, u2, order, ctx) == NULL || BN_mod_mul(t, t, s_inv, order, ctx) != 1)
		test_fatal("s");
	test_bn_put(sig + 32, t);
	if (BN_mod_mul(t, u1, t, order, ctx) != 1)
		test_fatal("e");
	test_bn_put(digest, t);
	CHECK(!same_verdict(k, digest, sig));
	BN_free(u1);
	BN_free(u2);
	BN_free(s_inv);
	BN_free(t);
}

/* Out-of-range r or s, random r||s, and our signatures with one bit flipped. */
static void ordinary_cases(const struct key *k, const uint8_t d[32])
{
	uint8_t digest[32], sig[64], bad[64], dg[32], n_bytes[32], np1[32], ones[32];
	BIGNUM *t = BN_dup(order);

	test_bn_put(n_bytes, order);
	if (t == NULL || BN_add_word(t, 1) != 1)
		test_fatal("n + 1");
	test_bn_put(np1, t);
	memset(ones, 0xff, 32);
	for (int c = 0; c < CASES_PER_KEY; c++) {
		prng_bytes(&rng, digest, 32);
		if (p256_sign(d, digest, P256_NONCE_HEDGED, NULL, 0, sig) != 0)
			test_fatal("p256_sign");
		CHECK(same_verdict(k, digest, sig));
		memcpy(bad, sig, 64);
		bad[prng_u64(&rng) % 64] ^= (uint8_t)(1u << (prng_u64(&rng) % 8));
		CHECK(!same_verdict(k, digest, bad));
		memcpy(dg, digest, 32);
		dg[prng_u64(&rng) % 32] ^= (uint8_t)(1u << (prng_u64(&rng) % 8));
		CHECK(!same_verdict(k, dg, sig));
		prng_bytes(&rng, bad, 64);
		CHECK(!same_verdict(k, digest, bad));
	}
	/* r or s replaced by 0, n, n + 1, 2^256 - 1 */
	const uint8_t *edges[] = { NULL, n_bytes, np1, ones };
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		for (int half = 0; half < 2; half++) {
			memcpy(bad, sig, 64);
			if (edges[i] == NULL)
				memset(bad + 32 * half, 0, 32);
			else
				memcpy(bad + 32 * half, edges[i], 32);
			CHECK(!same_verdict(k, digest, bad));
			CHECK_INT(p256_verify_precomputed(k->vk, digest, bad, 0), P256_ERR_SIG_RANGE);
		}
	BN_free(t);
}

static void one_key(const uint8_t d[32])
{
	struct key k = { 0 };
	BIGNUM *dn = test_bn(d);

	if (p256_public_from_private(d, k.pub) != 0 || (k.q = EC_POINT_new(group)) == NULL ||
	    EC_POINT_oct2point(group, k.q, k.pub, 65, ctx) != 1)
		test_fatal("the key");
	k.pkey = openssl_public(k.pub);
	CHECK_INT(p256_pubkey_precompute(k.pub, 65, &k.vk), 0);
	if (k.vk == NULL)
		test_fatal("p256_pubkey_precompute");
	ordinary_cases(&k, d);
	edge_scalars(&k);
	equal_and_opposite(&k, dn);
	p256_verify_key_free(k.vk);
	EVP_PKEY_free(k.pkey);
	EC_POINT_free(k.q);
	BN_free(dn);
}

int main(void)
{
	uint8_t d[32];
	BIGNUM *t;

	if ((group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1)) == NULL ||
	    (ctx = BN_CTX_new()) == NULL || (t = BN_new()) == NULL)
		test_fatal("OpenSSL setup");
	order = EC_GROUP_get0_order(group);
	/* the edge keys: Q = G, 2G and -G */
	for (int i = 0; i < 3; i++) {
		if (BN_set_word(t, i < 2 ? (BN_ULONG)i + 1 : 1) != 1 ||
		    (i == 2 && BN_sub(t, order, t) != 1))
			test_fatal("edge key");
		test_bn_put(d, t);
		one_key(d);
	}
	for (int i = 0; i < KEYS; i++) {
		prng_bytes(&rng, d, 32);
		d[0] &= 0x7f;				/* below n */
		one_key(d);
	}
	/* no table for what is not a point; vk starts non-NULL to see it cleared */
	struct p256_verify_key *vk = (struct p256_verify_key *)&rng;
	uint8_t bad[65] = { 0x04 };
	CHECK_INT(p256_pubkey_precompute(bad, 65, &vk), P256_ERR_POINT);
	CHECK(vk == NULL);
	CHECK_INT(p256_pubkey_precompute(bad, 33, &vk), P256_ERR_LENGTH);
	CHECK(compared > 1000 && accepted > 0 && accepted < compared);
	printf("%d cases compared with OpenSSL, %d accepted\n", compared, accepted);
	BN_free(t);
	BN_CTX_free(ctx);
	EC_GROUP_free(group);
	return test_done("test-verify-openssl");
}
