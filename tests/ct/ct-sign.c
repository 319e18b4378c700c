/* SPDX-License-Identifier: ISC */
/*
 * Constant-time check (the ctgrind technique): run under valgrind memcheck with the private
 * scalar and the additional input marked undefined. Everything derived from them (the DRBG state,
 * the nonce k, k^-1, r*d, ...) is then undefined too, and memcheck reports any conditional jump or
 * memory index that depends on them. Values made public on purpose go through ct_declassify in
 * lib/. OpenSSL's known benign reports are suppressed in tests/ct/openssl.supp (see there and
 * docs/testing.md). Run: valgrind --error-exitcode=1 --suppressions=tests/ct/openssl.supp ct-sign
 */
#include <stdio.h>
#include <string.h>
#include <valgrind/memcheck.h>

#include "drbg.h"
#include "field.h"
#include "modinv.h"
#include "p256.h"
#include "scalar.h"
#include "sign-internal.h"

#define secret(p, n) ((void)VALGRIND_MAKE_MEM_UNDEFINED((p), (n)))
#define public(p, n) ((void)VALGRIND_MAKE_MEM_DEFINED((p), (n)))

static int failures;

/* Checks a return code; the code is public (declassified) before the branch. */
static void ok(int r, const char *what)
{
	public(&r, sizeof(r));
	if (r != 0) {
		fprintf(stderr, "%s failed: %d\n", what, r);
		failures++;
	}
}

static void sign_both_modes(const uint8_t d[32], const uint8_t digest[32])
{
	uint8_t extra[48], sig[64];

	memset(extra, 0x5a, sizeof(extra));
	secret(extra, sizeof(extra));
	ok(p256_sign(d, digest, P256_NONCE_DETERMINISTIC, NULL, 0, sig), "p256_sign deterministic");
	ok(p256_sign(d, digest, P256_NONCE_DETERMINISTIC, extra, sizeof(extra), sig),
		"p256_sign deterministic with extra");
	ok(p256_sign(d, digest, P256_NONCE_HEDGED, NULL, 0, sig), "p256_sign hedged");
	ok(p256_sign(d, digest, P256_NONCE_HEDGED, extra, sizeof(extra), sig),
		"p256_sign hedged with extra");
}

/*
 * The batch (its nonce inversion by Montgomery's trick, the split hedges): eight items over two
 * keys whose scalars are undefined, in both modes, some with undefined extra bytes, some checked.
 */
static void sign_batch(struct p256_key keys[2], const uint8_t digest[32])
{
	struct p256_batch_item items[8];
	uint8_t extra[16];

	memset(extra, 0x6b, sizeof(extra));
	secret(extra, sizeof(extra));
	for (int i = 0; i < 8; i++)
		items[i] = (struct p256_batch_item){
			.key = &keys[i % 2],
			.digest = digest,
			.mode = i % 3 == 0 ? P256_NONCE_DETERMINISTIC : P256_NONCE_HEDGED,
			.checked = i % 4 == 1,
			.extra = i % 2 ? extra : NULL,
			.extra_len = i % 2 ? sizeof(extra) : 0,
		};
	ok(p256_sign_batch(items, 8), "p256_sign_batch");
	for (int i = 0; i < 8; i++)
		ok(items[i].result, "p256_sign_batch item");
}

/*
 * Precomputed nonces: a refill (the DRBG over the key, k*G, r*d, the batch inversion) from
 * undefined seeds and from getrandom, then signatures from the pool's entries, checked and
 * unchecked, until it is empty, and the empty pool's refusal.
 */
static void pool(const struct p256_key *key, const uint8_t digest[32])
{
	uint8_t seeds[6 * POOL_SEED_LEN], sig[64];
	struct p256_pool *pool;
	int r;

	memset(seeds, 0x77, sizeof(seeds));
	secret(seeds, sizeof(seeds));
	ok(p256_pool_new(&pool, key, 10), "p256_pool_new");
	public(&pool, sizeof(pool));
	if (pool == NULL)
		return;
	ok(pool_refill_with_seeds(pool, 6, seeds), "pool_refill_with_seeds");
	ok(p256_pool_refill(pool, 8), "p256_pool_refill");
	for (int i = 0; i < 10; i++)
		ok(p256_pool_sign(pool, digest, i % 2, sig), "p256_pool_sign");
	r = p256_pool_sign(pool, digest, 0, sig);
	ok(r != 1, "p256_pool_sign of an empty pool refuses");
	p256_pool_free(pool);
}

/* The scalar functions on undefined inputs; results stay undefined and are only stored. */
static void scalar_functions(const uint8_t a_bytes[32], const uint8_t b_bytes[32])
{
	scalar a, b, r;
	uint8_t out[33];
	volatile uint64_t sink;

	scalar_from_bytes(&a, a_bytes);
	scalar_from_bytes(&b, b_bytes);
	sink = scalar_in_range(&a);
	(void)sink;
	scalar_reduce(&r, &a);
	scalar_add(&r, &r, &b);
	scalar_mont_mul(&r, &r, &b);
	scalar_to_mont(&r, &r);
	scalar_inv(&r, &r);
	scalar_plus_n_bytes(out, &r);
	scalar_to_bytes(out, &r);
	scalar_wipe(&r);
	scalar_wipe(&a);
	scalar_wipe(&b);
}

/*
 * The safegcd inversion on a secret input, mod n (k^-1) and mod p (the nonce point's Z^-1), and
 * the affine conversion of a secret Jacobian point; results are only stored.
 */
static void inversions(const uint8_t a_bytes[32], const uint8_t b_bytes[32])
{
	uint8_t X[32], Z[32], x[32], y[32];
	scalar a, r;

	scalar_from_bytes(&a, a_bytes);
	modinv(r.v, a.v, &MODINV_N);
	scalar_wipe(&r);
	a.v[3] &= 0x7fffffffffffffff;	/* below p */
	modinv(r.v, a.v, &MODINV_P);
	scalar_wipe(&r);
	scalar_to_bytes(Z, &a);
	scalar_wipe(&a);
	memcpy(X, b_bytes, 32);
	X[0] &= 0x7f;
	field_affine(x, y, X, X, Z);
	field_affine(x, NULL, X, NULL, Z);
}

static void drbg_functions(const uint8_t x[32], const uint8_t h1[32])
{
	uint8_t extra[32], t[32];
	struct drbg *d;

	memset(extra, 0x33, sizeof(extra));
	secret(extra, sizeof(extra));
	ok(drbg_new(&d, x, h1, extra, sizeof(extra)), "drbg_new");
	public(&d, sizeof(d));
	if (d == NULL)
		return;
	for (int i = 0; i < 3; i++)
		ok(drbg_next(d, t), "drbg_next");
	drbg_free(d);
}

int main(void)
{
	uint8_t d[32], digest[32], pub[65], sig[64], other[32];
	struct p256_key key, batch_keys[2];

	if (!RUNNING_ON_VALGRIND) {
		fprintf(stderr, "ct-sign: must run under valgrind memcheck to mean anything\n");
		return 1;
	}
	for (int i = 0; i < 32; i++) {
		d[i] = (uint8_t)(0x3c + 7 * i);
		digest[i] = (uint8_t)(0xa5 ^ i);
		other[i] = (uint8_t)(0x91 + 3 * i);
	}
	secret(d, sizeof(d));
	secret(other, sizeof(other));

	sign_both_modes(d, digest);
	ok(p256_public_from_private(d, pub), "p256_public_from_private");

	ok(p256_key_init(&key, d), "p256_key_init");
	secret(key.d, sizeof(key.d));
	ok(p256_sign_checked(&key, digest, P256_NONCE_DETERMINISTIC, NULL, 0, sig),
		"p256_sign_checked deterministic");
	ok(p256_sign_checked(&key, digest, P256_NONCE_HEDGED, NULL, 0, sig),
		"p256_sign_checked hedged");
	ok(p256_sign_checked(&key, digest, P256_NONCE_PRECOMPUTED, NULL, 0, sig),
		"p256_sign_checked precomputed, on demand");
	pool(&key, digest);
	p256_key_clear(&key);

	ok(p256_key_init_untabled(&key, d), "p256_key_init_untabled");
	secret(key.d, sizeof(key.d));
	ok(p256_sign_checked(&key, digest, P256_NONCE_HEDGED, NULL, 0, sig),
		"p256_sign_checked hedged, untabled key");
	p256_key_clear(&key);

	ok(p256_key_init(&batch_keys[0], d), "p256_key_init for the batch");
	ok(p256_key_init_untabled(&batch_keys[1], other), "p256_key_init_untabled for the batch");
	secret(batch_keys[0].d, sizeof(batch_keys[0].d));
	secret(batch_keys[1].d, sizeof(batch_keys[1].d));
	sign_batch(batch_keys, digest);
	p256_key_clear(&batch_keys[0]);
	p256_key_clear(&batch_keys[1]);

	scalar_functions(d, other);
	inversions(other, d);
	drbg_functions(d, digest);

	/* Key files (base64 decoding, the key copy) have their own memcheck test: tests/keys/test-keys-ct.c. */

	if (failures != 0)
		return 1;
	printf("ct-sign: done (memcheck reports any secret-dependent branch or index above)\n");
	return 0;
}
