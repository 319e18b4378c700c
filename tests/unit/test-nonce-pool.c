/* SPDX-License-Identifier: ISC */
/*
 * The pool of precomputed nonces (lib/nonce-pool.c). With the entries' random bytes given
 * (pool_refill_with_seeds), entry number c signs exactly as p256_sign does in deterministic mode
 * for the digest c with those bytes as extra data (the DRBG input the pool documents), so every
 * pool signature is checked against an independent computation of its nonce. With real
 * randomness: three fills and drains give 3 x 64 signatures, every one verified by OpenSSL's
 * EVP_PKEY_verify and p256_verify, no r twice; the counters say every entry was made once, used
 * once and wiped. An empty pool refuses (1) and leaves the signature zero; a refill stops at the
 * capacity and at P256_BATCH_MAX; a checked signature under a faulty key is P256_ERR_FAULT and
 * still uses up its entry; a fork's child sees an empty, dead pool while the parent keeps its
 * entries.
 */
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <sys/wait.h>
#include <unistd.h>

#include "p256.h"
#include "sign-internal.h"
#include "testutil.h"

static const char *D = "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721";

/* The digest whose number is c: 32 bytes big-endian. */
static void count_digest(uint64_t c, uint8_t digest[32])
{
	memset(digest, 0, 32);
	for (int i = 0; i < 8; i++)
		digest[31 - i] = (uint8_t)(c >> (8 * i));
}

/* OpenSSL's own verification of r||s over digest under pub, through EVP. */
static int openssl_verifies(const uint8_t pub[P256_POINT_LEN], const uint8_t digest[32],
	const uint8_t sig[P256_SIG_LEN])
{
	OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *kctx = NULL, *vctx = NULL;
	EVP_PKEY *pkey = NULL;
	uint8_t der[P256_SIG_DER_MAX];
	size_t der_len;
	int ok = 0;

	if (bld == NULL ||
	    !OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) ||
	    !OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pub, P256_POINT_LEN) ||
	    (params = OSSL_PARAM_BLD_to_param(bld)) == NULL ||
	    (kctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL)) == NULL ||
	    EVP_PKEY_fromdata_init(kctx) != 1 ||
	    EVP_PKEY_fromdata(kctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) != 1 ||
	    (vctx = EVP_PKEY_CTX_new(pkey, NULL)) == NULL || EVP_PKEY_verify_init(vctx) != 1 ||
	    p256_sig_to_der(sig, der, &der_len) != 0)
		test_fatal("OpenSSL set-up");
	ok = EVP_PKEY_verify(vctx, der, der_len, digest, 32) == 1;
	EVP_PKEY_CTX_free(vctx);
	EVP_PKEY_free(pkey);
	EVP_PKEY_CTX_free(kctx);
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	return ok;
}

static void check_counts(struct p256_pool *pool, uint64_t made, uint64_t used, uint64_t ready)
{
	struct p256_pool_counts c;

	p256_pool_counts(pool, &c);
	CHECK_INT(c.made, made);
	CHECK_INT(c.used, used);
	CHECK_INT(c.wiped, used);
	CHECK_INT(c.ready, ready);
}

static void test_arguments(const struct p256_key *key)
{
	struct p256_key zero = { 0 };
	struct p256_pool *pool = (struct p256_pool *)1;

	test_case = "arguments";
	CHECK_INT(p256_pool_new(&pool, key, 0), P256_ERR_LENGTH);
	CHECK(pool == NULL);
	CHECK_INT(p256_pool_new(&pool, key, P256_POOL_MAX + 1), P256_ERR_LENGTH);
	CHECK_INT(p256_pool_new(&pool, &zero, 8), P256_ERR_SCALAR_RANGE);
	CHECK(pool == NULL);
	p256_pool_free(NULL);
}

/* Entry c with seed S signs as p256_sign(d, digest c, deterministic, S); the pool is LIFO. */
static void test_seeded(const struct p256_key *key)
{
	uint8_t seeds[40 * POOL_SEED_LEN], digest[32], sig[64], want[64];
	struct p256_pool *pool;

	test_case = "seeded";
	for (size_t i = 0; i < sizeof(seeds); i++)
		seeds[i] = (uint8_t)(i * 37 + 11);
	CHECK_INT(p256_pool_new(&pool, key, 40), 0);
	if (pool == NULL)
		return;
	check_counts(pool, 0, 0, 0);
	CHECK_INT(p256_pool_missing(pool), 40);
	memset(sig, 0xee, sizeof(sig));
	CHECK_INT(p256_pool_sign(pool, seeds, 0, sig), 1);	/* empty: nothing signed */
	CHECK(all_zero(sig, sizeof(sig)));
	check_counts(pool, 0, 0, 0);

	CHECK_INT(pool_refill_with_seeds(pool, 16, seeds), 0);
	check_counts(pool, 16, 0, 16);
	CHECK_INT(p256_pool_missing(pool), 24);
	/* Asked for 64: the pool lacks 24, so 24 are made. */
	CHECK_INT(pool_refill_with_seeds(pool, 64, seeds + 16 * POOL_SEED_LEN), 0);
	check_counts(pool, 40, 0, 40);
	CHECK_INT(p256_pool_refill(pool, 8), 0);	/* full: nothing made */
	check_counts(pool, 40, 0, 40);
	for (uint64_t c = 40; c-- > 0;) {
		count_digest(c, digest);
		CHECK_INT(p256_sign(key->d, digest, P256_NONCE_DETERMINISTIC,
			seeds + c * POOL_SEED_LEN, POOL_SEED_LEN, want), 0);
		CHECK_INT(p256_pool_sign(pool, digest, (int)(c % 2), sig), 0);
		CHECK_MEM(sig, want, sizeof(sig));
	}
	check_counts(pool, 40, 40, 0);
	CHECK_INT(p256_pool_sign(pool, digest, 0, sig), 1);
	p256_pool_free(pool);
}

/* Real randomness: every signature verifies, no r is used twice, every entry counted. */
static void test_random(const struct p256_key *key)
{
	enum { CAP = 64, ROUNDS = 3 };
	static uint8_t r_seen[CAP + (ROUNDS - 1) * CAP / 2][32];
	uint8_t digest[32], sig[64];
	struct p256_pool *pool;
	struct prng g = { 0x706f6f6c };
	uint64_t made = 0;
	size_t signed_ = 0;

	test_case = "random";
	CHECK_INT(p256_pool_new(&pool, key, CAP), 0);
	if (pool == NULL)
		return;
	for (int round = 0; round < ROUNDS; round++) {
		while (p256_pool_missing(pool) > 0) {
			size_t before = p256_pool_missing(pool);

			CHECK_INT(p256_pool_refill(pool, 24), 0);
			made += before - p256_pool_missing(pool);
			CHECK(before - p256_pool_missing(pool) == (before < 24 ? before : 24));
		}
		for (int i = 0; i < CAP / 2; i++) {
			for (int b = 0; b < 32; b++)
				digest[b] = (uint8_t)(prng_u64(&g) >> 24);
			CHECK_INT(p256_pool_sign(pool, digest, i % 3 == 0, sig), 0);
			CHECK(openssl_verifies(key->pub, digest, sig));
			CHECK_INT(p256_verify(key->pub, P256_POINT_LEN, digest, sig, 0), 0);
			for (size_t j = 0; j < signed_; j++)
				CHECK(memcmp(r_seen[j], sig, 32) != 0);
			memcpy(r_seen[signed_++], sig, 32);
		}
		check_counts(pool, made, signed_, made - signed_);
	}
	/* Drained and refilled while half full: still never twice. */
	while (p256_pool_sign(pool, digest, 0, sig) == 0) {
		for (size_t j = 0; j < signed_; j++)
			CHECK(memcmp(r_seen[j], sig, 32) != 0);
		if (signed_ < sizeof(r_seen) / sizeof(r_seen[0]))
			memcpy(r_seen[signed_++], sig, 32);
	}
	check_counts(pool, made, made, 0);
	CHECK_INT(made, CAP + (ROUNDS - 1) * CAP / 2);	/* full, then the half each round used */
	p256_pool_free(pool);
}

/*
 * A checked signature that does not verify (the key's point is another key's, as after a fault
 * in d): P256_ERR_FAULT, wiped, and the entry gone.
 */
static void test_fault(const struct p256_key *key)
{
	static const uint8_t other[32] = { [31] = 7 };
	struct p256_key bad = *key;
	uint8_t digest[32] = { 1 }, sig[64];
	struct p256_pool *pool;

	test_case = "fault";
	bad.verifier = NULL;
	if (p256_public_from_private(other, bad.pub) != 0)
		test_fatal("p256_public_from_private");
	CHECK_INT(p256_pool_new(&pool, &bad, 4), 0);
	if (pool == NULL)
		return;
	CHECK_INT(p256_pool_refill(pool, 4), 0);
	CHECK_INT(p256_pool_sign(pool, digest, 1, sig), P256_ERR_FAULT);
	CHECK(all_zero(sig, sizeof(sig)));
	check_counts(pool, 4, 1, 3);
	CHECK_INT(p256_pool_sign(pool, digest, 0, sig), 0);	/* unchecked: d signs */
	CHECK(openssl_verifies(key->pub, digest, sig));
	p256_pool_free(pool);
	explicit_bzero(&bad, sizeof(bad));
}

/* Without a pool the mode signs on demand exactly as hedged: the same hedge, the same bytes. */
static void test_on_demand(const struct p256_key *key)
{
	uint8_t hedge[SIGN_HEDGE_LEN], digest[32] = { 3 }, sig[64], want[64];
	struct p256_batch_item items[2];

	test_case = "on demand";
	memset(hedge, 0x42, sizeof(hedge));
	CHECK_INT(sign_with_hedge(key->d, digest, P256_NONCE_HEDGED, NULL, 0, hedge, want), 0);
	CHECK_INT(sign_with_hedge(key->d, digest, P256_NONCE_PRECOMPUTED, NULL, 0, hedge, sig), 0);
	CHECK_MEM(sig, want, sizeof(sig));
	for (int i = 0; i < 2; i++)
		items[i] = (struct p256_batch_item){ .key = key, .digest = digest,
			.mode = P256_NONCE_PRECOMPUTED, .checked = i };
	sign_batch_with_hedges(items, 2, NULL);		/* no randomness: refused as hedged is */
	CHECK_INT(items[0].result, P256_ERR_RANDOM);
	CHECK_INT(p256_sign_batch(items, 2), 0);
	CHECK_INT(items[0].result, 0);
	CHECK_INT(items[1].result, 0);
	CHECK(openssl_verifies(key->pub, digest, items[0].sig));
	CHECK(memcmp(items[0].sig, items[1].sig, 32) != 0);	/* two hedges, two nonces */
}

/* A fork's child finds the pool empty and dead (MADV_WIPEONFORK); the parent keeps it. */
static void test_fork(const struct p256_key *key)
{
	uint8_t digest[32] = { 2 }, sig[64];
	struct p256_pool *pool;
	int status;
	pid_t pid;

	test_case = "fork";
	CHECK_INT(p256_pool_new(&pool, key, 16), 0);
	if (pool == NULL)
		return;
	CHECK_INT(p256_pool_refill(pool, 16), 0);
	if ((pid = fork()) < 0)
		test_fatal("fork");
	if (pid == 0) {
		struct p256_pool_counts c;
		int bad = 0;

		p256_pool_counts(pool, &c);
		bad |= c.made != 0 || c.ready != 0 || c.used != 0;
		bad |= p256_pool_missing(pool) != 0;
		bad |= p256_pool_sign(pool, digest, 0, sig) != 1 || !all_zero(sig, sizeof(sig));
		bad |= p256_pool_refill(pool, 8) != 0 || p256_pool_missing(pool) != 0;
		p256_pool_counts(pool, &c);
		bad |= c.made != 0;
		_exit(bad);
	}
	CHECK_INT(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	check_counts(pool, 16, 0, 16);
	CHECK_INT(p256_pool_sign(pool, digest, 0, sig), 0);
	CHECK(openssl_verifies(key->pub, digest, sig));
	p256_pool_free(pool);
}

int main(void)
{
	uint8_t d[32];
	struct p256_key key;

	hex_exact(D, d, sizeof(d));
	if (p256_key_init(&key, d) != 0)
		test_fatal("p256_key_init");
	test_arguments(&key);
	test_seeded(&key);
	test_random(&key);
	test_fault(&key);
	test_on_demand(&key);
	test_fork(&key);
	p256_key_clear(&key);
	explicit_bzero(d, sizeof(d));
	return test_done("pool");
}
