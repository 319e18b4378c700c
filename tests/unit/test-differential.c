/* SPDX-License-Identifier: ISC */
/*
 * Differential test against nettle. For 10,000 (d, digest, additional data) from a fixed-seed
 * PRNG, plus edge keys (1, n-1) and edge digests (0, n-1, n, n+1, 2^256-1), an independent RFC
 * 6979 nonce generator written here (nettle's HMAC-SHA-256, GMP for bits2octets) feeds nettle's
 * ecdsa_sign, whose r and s must equal p256_sign's in deterministic mode with the same bytes as
 * `extra`; nettle's ecdsa_verify must accept our signature, and nettle's d*G must equal
 * p256_public_from_private. The DRBG's retry path (step h.3) is compared candidate by candidate.
 */
#include <gmp.h>
#include <nettle/dsa.h>
#include <nettle/ecc-curve.h>
#include <nettle/ecc.h>
#include <nettle/ecdsa.h>
#include <nettle/hmac.h>

#include "drbg.h"
#include "p256.h"
#include "testutil.h"

#define EXTRA_MAX 64

/* RFC 6979 section 3.2 HMAC-DRBG, with the section 3.6 additional data after h1. */
struct ref_drbg {
	uint8_t k[32], v[32];
	int started;
	int calls;
};

/* out = HMAC_K(V || sep || data), where sep < 0 means no separator byte. */
static void ref_hmac(const struct ref_drbg *d, int sep, const uint8_t *data, size_t len,
	uint8_t out[32])
{
	struct hmac_sha256_ctx h;
	uint8_t s = (uint8_t)sep;

	hmac_sha256_set_key(&h, 32, d->k);
	hmac_sha256_update(&h, 32, d->v);
	if (sep >= 0)
		hmac_sha256_update(&h, 1, &s);
	hmac_sha256_update(&h, len, data);
	hmac_sha256_digest(&h, 32, out);
}

/* K = HMAC_K(V || sep || data); V = HMAC_K(V) */
static void ref_update(struct ref_drbg *d, int sep, const uint8_t *data, size_t len)
{
	uint8_t k[32];

	ref_hmac(d, sep, data, len, k);
	memcpy(d->k, k, 32);
	ref_hmac(d, -1, NULL, 0, d->v);
}

static void ref_init(struct ref_drbg *d, const uint8_t x[32], const uint8_t h1[32],
	const uint8_t *extra, size_t extra_len)
{
	uint8_t seed[64 + EXTRA_MAX];

	memcpy(seed, x, 32);
	memcpy(seed + 32, h1, 32);
	memcpy(seed + 64, extra, extra_len);
	memset(d->v, 0x01, 32);		/* step b */
	memset(d->k, 0x00, 32);		/* step c */
	ref_update(d, 0x00, seed, 64 + extra_len);	/* steps d, e */
	ref_update(d, 0x01, seed, 64 + extra_len);	/* steps f, g */
	d->started = 0;
	d->calls = 0;
}

/* Step h: T = V = HMAC_K(V) (one block: qlen = hlen = 256); before each retry, step h.3. */
static void ref_next(struct ref_drbg *d, uint8_t t[32])
{
	if (d->started)
		ref_update(d, 0x00, NULL, 0);
	d->started = 1;
	ref_hmac(d, -1, NULL, 0, d->v);
	memcpy(t, d->v, 32);
}

/* nettle's nonce source: nettle draws again while k is out of range or r or s is 0, as RFC 6979. */
static void ref_random(void *ctx, size_t len, uint8_t *dst)
{
	struct ref_drbg *d = ctx;

	if (len != 32)
		test_fatal("nettle asked for a nonce of another length");
	d->calls++;
	ref_next(d, dst);
}

static mpz_t n;

static void to_mpz(mpz_t z, const uint8_t b[32])
{
	mpz_import(z, 32, 1, 1, 1, 0, b);
}

static void from_mpz(uint8_t b[32], const mpz_t z)
{
	size_t count;

	memset(b, 0, 32);
	if (mpz_sizeinbase(z, 256) > 32)
		test_fatal("value above 2^256");
	mpz_export(b + 32 - (mpz_sizeinbase(z, 256)), &count, 1, 1, 1, 0, z);
}

/* bits2octets of a 256-bit digest: the digest mod n, 32 bytes */
static void bits2octets(const uint8_t digest[32], uint8_t h1[32])
{
	mpz_t z;

	mpz_init(z);
	to_mpz(z, digest);
	mpz_mod(z, z, n);
	from_mpz(h1, z);
	mpz_clear(z);
}

static void one_case(const uint8_t d[32], const uint8_t digest[32], const uint8_t *extra,
	size_t extra_len)
{
	const struct ecc_curve *curve = nettle_get_secp_256r1();
	struct ecc_scalar key;
	struct ecc_point pub;
	struct dsa_signature sig;
	struct ref_drbg ref;
	uint8_t h1[32], ours[64], theirs[64], our_pub[65], their_pub[65];
	mpz_t z, x, y;

	mpz_inits(z, x, y, NULL);
	ecc_scalar_init(&key, curve);
	ecc_point_init(&pub, curve);
	dsa_signature_init(&sig);
	to_mpz(z, d);
	if (ecc_scalar_set(&key, z) != 1)
		test_fatal("ecc_scalar_set");

	ecc_point_mul_g(&pub, &key);
	ecc_point_get(&pub, x, y);
	their_pub[0] = 0x04;
	from_mpz(their_pub + 1, x);
	from_mpz(their_pub + 33, y);
	CHECK_INT(p256_public_from_private(d, our_pub), 0);
	CHECK_MEM(our_pub, their_pub, 65);

	bits2octets(digest, h1);
	ref_init(&ref, d, h1, extra, extra_len);
	ecdsa_sign(&key, &ref, ref_random, 32, digest, &sig);
	CHECK(ref.calls >= 1);
	from_mpz(theirs, sig.r);
	from_mpz(theirs + 32, sig.s);
	CHECK_INT(p256_sign(d, digest, P256_NONCE_DETERMINISTIC, extra, extra_len, ours), 0);
	CHECK_MEM(ours, theirs, 64);

	to_mpz(sig.r, ours);
	to_mpz(sig.s, ours + 32);
	CHECK_INT(ecdsa_verify(&pub, 32, digest, &sig), 1);
	CHECK_INT(p256_verify(our_pub, 65, digest, ours, 0), 0);

	dsa_signature_clear(&sig);
	ecc_point_clear(&pub);
	ecc_scalar_clear(&key);
	mpz_clears(z, x, y, NULL);
}

/* The first three candidates of drbg_next against the reference: step h and twice step h.3. */
static void retry_case(const uint8_t x[32], const uint8_t h1[32], const uint8_t *extra, size_t len)
{
	struct ref_drbg ref;
	struct drbg *d;
	uint8_t ours[32], theirs[32];

	ref_init(&ref, x, h1, extra, len);
	CHECK_INT(drbg_new(&d, x, h1, extra, len), 0);
	if (d == NULL)
		test_fatal("drbg_new");
	for (int i = 0; i < 3; i++) {
		CHECK_INT(drbg_next(d, ours), 0);
		ref_next(&ref, theirs);
		CHECK_MEM(ours, theirs, 32);
	}
	drbg_free(d);
}

/* A random private scalar 1 <= d < n. */
static void random_key(struct prng *g, uint8_t d[32])
{
	mpz_t z;

	mpz_init(z);
	do {
		prng_bytes(g, d, 32);
		to_mpz(z, d);
	} while (mpz_sgn(z) == 0 || mpz_cmp(z, n) >= 0);
	mpz_clear(z);
}

int main(void)
{
	struct prng g = { 0xd1ff };
	uint8_t d[32], digest[32], extra[EXTRA_MAX], edge[6][32], h1[32];
	long iters = 10000;
	mpz_t t;

	mpz_inits(n, t, NULL);
	to_mpz(n, TEST_N);

	/* edge digests: 0, n - 1, n, n + 1, 2^256 - 1 and 2^255 */
	memset(edge, 0, sizeof(edge));
	for (int i = 1; i <= 3; i++) {
		mpz_add_ui(t, n, (unsigned long)i);
		mpz_sub_ui(t, t, 2);
		from_mpz(edge[i], t);
	}
	memset(edge[4], 0xff, 32);
	edge[5][0] = 0x80;

	for (long i = 0; i < iters; i++) {
		size_t extra_len = (size_t)(prng_u64(&g) % (EXTRA_MAX + 1));

		random_key(&g, d);
		if (i == 0 || i == 1) {		/* d = 1, d = n - 1 */
			memset(d, 0, 32);
			d[31] = 1;
			if (i == 1) {
				memcpy(d, TEST_N, 32);
				d[31]--;
			}
		}
		prng_bytes(&g, digest, 32);
		if (i < 6 * 4)
			memcpy(digest, edge[i % 6], 32);
		if (i % 8 == 0)
			extra_len = 0;		/* plain RFC 6979 */
		prng_bytes(&g, extra, extra_len);
		one_case(d, digest, extra, extra_len);
	}

	for (long i = 0; i < iters / 10; i++) {
		size_t extra_len = (size_t)(prng_u64(&g) % (EXTRA_MAX + 1));

		random_key(&g, d);
		prng_bytes(&g, digest, 32);
		if (i < 6)
			memcpy(digest, edge[i], 32);
		bits2octets(digest, h1);
		prng_bytes(&g, extra, extra_len);
		retry_case(d, h1, extra, extra_len);
	}
	mpz_clears(n, t, NULL);
	printf("%ld signatures and %ld retry sequences compared\n", iters, iters / 10);
	return test_done("test-differential");
}
