/* SPDX-License-Identifier: ISC */
/*
 * Signing: RFC 6979 A.2.5 exactly in deterministic mode (r, s, DER, public point), hedged and
 * deterministic modes with additional data, the private scalar's range, argument checks, and the
 * fault check of p256_sign_checked against a corrupted key.
 */
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include "testjson.h"
#include "p256.h"

/* The base point G; d = 1 gives G and d = n - 1 gives -G = (Gx, p - Gy). */
static const char *GX = "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296";
static const char *GY = "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5";
static const char *GY_NEG = "b01cbd1c01e58065711814b583f061e9d431cca994cea1313449bf97c840ae0a";

static const uint8_t DIGEST[32] = { 0xd1, 0x9e, 0x57, 0x11, 0x01, 0x02 };

static void check_rfc6979(const json_t *v)
{
	uint8_t d[32], digest[32], want[64], want_der[72], pub[65], want_pub[65], low[32];
	uint8_t sig[64], der[P256_SIG_DER_MAX];
	size_t der_len;
	struct p256_key key;

	json_hex(v, "d", d, 32);
	json_hex(v, "digest", digest, 32);
	json_hex(v, "sig_p1363", want, 64);
	json_hex(v, "s_low_normalized", low, 32);
	want_pub[0] = 0x04;
	json_hex(v, "Ux", want_pub + 1, 32);
	json_hex(v, "Uy", want_pub + 33, 32);
	size_t want_der_len = strlen(json_str(v, "sig_der")) / 2;
	if (want_der_len > sizeof(want_der))
		test_fatal("sig_der too long");
	json_hex(v, "sig_der", want_der, want_der_len);

	CHECK_INT(p256_public_from_private(d, pub), 0);
	CHECK_MEM(pub, want_pub, 65);

	CHECK_INT(p256_sign(d, digest, P256_NONCE_DETERMINISTIC, NULL, 0, sig), 0);
	CHECK_MEM(sig, want, 64);
	CHECK_INT(p256_sig_to_der(sig, der, &der_len), 0);
	CHECK_INT(der_len, want_der_len);
	CHECK_MEM(der, want_der, want_der_len);
	CHECK_INT(p256_verify(pub, 65, digest, sig, 0), 0);
	CHECK_INT(p256_verify(pub + 1, 64, digest, sig, 0), 0);

	/* "sample" has a high s, refused by the low-s policy until normalised; "test" a low one */
	CHECK_INT(p256_verify(pub, 65, digest, sig, P256_VERIFY_LOW_S),
		json_is_true(json_object_get(v, "s_is_high")) ? P256_ERR_SIG_HIGH_S : 0);
	CHECK_INT(p256_normalize_s(sig), 0);
	CHECK_MEM(sig, want, 32);
	CHECK_MEM(sig + 32, low, 32);
	CHECK_INT(p256_verify(pub, 65, digest, sig, P256_VERIFY_LOW_S), 0);

	/* sign_checked with the same key gives the same signature, with or without the table */
	CHECK_INT(p256_key_init(&key, d), 0);
	CHECK(key.verifier != NULL);
	CHECK_MEM(key.pub, want_pub, 65);
	CHECK_INT(p256_sign_checked(&key, digest, P256_NONCE_DETERMINISTIC, NULL, 0, sig), 0);
	CHECK_MEM(sig, want, 64);
	p256_key_clear(&key);
	CHECK_INT(p256_key_init_untabled(&key, d), 0);
	CHECK(key.verifier == NULL);
	CHECK_MEM(key.pub, want_pub, 65);
	CHECK_INT(p256_sign_checked(&key, digest, P256_NONCE_DETERMINISTIC, NULL, 0, sig), 0);
	CHECK_MEM(sig, want, 64);
	p256_key_clear(&key);
}

/* Hedged signatures differ run to run; deterministic ones depend on exactly the extra bytes. */
static void check_modes(const uint8_t d[32], const uint8_t pub[65])
{
	static const char *extras[4] = { "a", "b", "context-1", "context-2" };
	uint8_t sig[4][64], again[64], plain[64], big[65] = { 0 };

	for (int i = 0; i < 4; i++) {
		CHECK_INT(p256_sign(d, DIGEST, P256_NONCE_HEDGED, (const uint8_t *)extras[i],
			strlen(extras[i]), sig[i]), 0);
		CHECK_INT(p256_verify(pub, 65, DIGEST, sig[i], 0), 0);
		for (int j = 0; j < i; j++)
			CHECK(memcmp(sig[i], sig[j], 64) != 0);
	}

	/* the same extra bytes twice: hedged differs, deterministic repeats */
	CHECK_INT(p256_sign(d, DIGEST, P256_NONCE_HEDGED, (const uint8_t *)"a", 1, again), 0);
	CHECK(memcmp(again, sig[0], 64) != 0);
	CHECK_INT(p256_sign(d, DIGEST, P256_NONCE_DETERMINISTIC, (const uint8_t *)"a", 1, sig[0]), 0);
	CHECK_INT(p256_sign(d, DIGEST, P256_NONCE_DETERMINISTIC, (const uint8_t *)"a", 1, again), 0);
	CHECK_MEM(again, sig[0], 64);
	CHECK_INT(p256_verify(pub, 65, DIGEST, again, 0), 0);
	CHECK_INT(p256_sign(d, DIGEST, P256_NONCE_DETERMINISTIC, NULL, 0, plain), 0);
	CHECK(memcmp(plain, again, 64) != 0);
	CHECK_INT(p256_sign(d, DIGEST, P256_NONCE_DETERMINISTIC, big, 64, again), 0);
	CHECK(memcmp(plain, again, 64) != 0);

	/* hedged without extra bytes twice */
	CHECK_INT(p256_sign(d, DIGEST, P256_NONCE_HEDGED, NULL, 0, sig[0]), 0);
	CHECK_INT(p256_sign(d, DIGEST, P256_NONCE_HEDGED, NULL, 0, sig[1]), 0);
	CHECK(memcmp(sig[0], sig[1], 64) != 0);
	CHECK_INT(p256_verify(pub, 65, DIGEST, sig[0], 0), 0);
	CHECK_INT(p256_verify(pub, 65, DIGEST, sig[1], 0), 0);

	/* argument errors wipe the output */
	memset(sig[0], 0xaa, 64);
	CHECK_INT(p256_sign(d, DIGEST, P256_NONCE_HEDGED, big, 65, sig[0]), P256_ERR_LENGTH);
	CHECK(all_zero(sig[0], 64));
	memset(sig[0], 0xaa, 64);
	CHECK_INT(p256_sign(d, DIGEST, P256_NONCE_DETERMINISTIC, NULL, 1, sig[0]), P256_ERR_LENGTH);
	CHECK(all_zero(sig[0], 64));
	CHECK_INT(p256_sign(d, DIGEST, (enum p256_nonce)3, NULL, 0, sig[0]), P256_ERR_LENGTH);
}

/* d = 0 and d >= n are refused everywhere; d = 1 and d = n - 1 work. */
static void check_key_range(void)
{
	uint8_t bad[4][32], d[32], pub[65], want[65], sig[64];
	struct p256_key key;

	memset(bad, 0, sizeof(bad));
	memcpy(bad[1], TEST_N, 32);
	memcpy(bad[2], TEST_N, 32);
	bad[2][31]++;
	memset(bad[3], 0xff, 32);
	for (int i = 0; i < 4; i++) {
		memset(sig, 0xaa, sizeof(sig));
		CHECK_INT(p256_sign(bad[i], DIGEST, P256_NONCE_DETERMINISTIC, NULL, 0, sig),
			P256_ERR_SCALAR_RANGE);
		CHECK(all_zero(sig, 64));
		CHECK_INT(p256_sign(bad[i], DIGEST, P256_NONCE_HEDGED, NULL, 0, sig),
			P256_ERR_SCALAR_RANGE);
		CHECK_INT(p256_public_from_private(bad[i], pub), P256_ERR_SCALAR_RANGE);
		memset(&key, 0xaa, sizeof(key));
		CHECK_INT(p256_key_init(&key, bad[i]), P256_ERR_SCALAR_RANGE);
		CHECK(all_zero((const uint8_t *)&key, sizeof(key)));
	}

	for (int i = 0; i < 2; i++) {
		memset(d, 0, 32);
		d[31] = 1;
		if (i == 1) {
			memcpy(d, TEST_N, 32);
			d[31]--;
		}
		want[0] = 0x04;
		hex_exact(GX, want + 1, 32);
		hex_exact(i == 0 ? GY : GY_NEG, want + 33, 32);
		CHECK_INT(p256_public_from_private(d, pub), 0);
		CHECK_MEM(pub, want, 65);
		CHECK_INT(p256_point_check(pub), 0);
		CHECK_INT(p256_sign(d, DIGEST, P256_NONCE_DETERMINISTIC, NULL, 0, sig), 0);
		CHECK_INT(p256_verify(pub, 65, DIGEST, sig, 0), 0);
		CHECK_INT(p256_key_init(&key, d), 0);
		CHECK_INT(p256_sign_checked(&key, DIGEST, P256_NONCE_HEDGED, NULL, 0, sig), 0);
		CHECK_INT(p256_verify(pub, 65, DIGEST, sig, 0), 0);
		p256_key_clear(&key);
		check_modes(d, pub);
	}
}

/* The SPKI and key id of a key agree with OpenSSL's encoding of the same public key. */
static void check_spki(const struct p256_key *key)
{
	uint8_t spki[P256_SPKI_LEN], id[P256_KEY_ID_LEN], want_id[32], point[P256_POINT_LEN];
	const unsigned char *p = spki;
	unsigned char *ossl = NULL;
	size_t point_len = 0;
	EVP_PKEY *pkey;
	int len;

	p256_spki(key->pub, spki);
	pkey = d2i_PUBKEY(NULL, &p, sizeof(spki));
	CHECK(pkey != NULL);
	if (pkey == NULL)
		return;
	CHECK(p == spki + sizeof(spki));
	CHECK(EVP_PKEY_get_octet_string_param(pkey, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, point,
		sizeof(point), &point_len) == 1);
	CHECK_INT((int)point_len, P256_POINT_LEN);
	CHECK_MEM(point, key->pub, P256_POINT_LEN);
	len = i2d_PUBKEY(pkey, &ossl);
	CHECK_INT(len, P256_SPKI_LEN);
	if (len == P256_SPKI_LEN)
		CHECK_MEM(spki, ossl, P256_SPKI_LEN);
	EVP_PKEY_free(pkey);
	CHECK_INT(p256_key_id(key->pub, id), 0);
	CHECK(EVP_Digest(spki, sizeof(spki), want_id, NULL, EVP_sha256(), NULL) == 1);
	CHECK_MEM(id, want_id, 32);
	OPENSSL_free(ossl);
}

/* A signature that does not verify under the key is wiped and reported as a fault. */
static void check_fault(void)
{
	uint8_t d[32] = { 0x42, 0x17 }, d2[32] = { 0x17, 0x42 }, sig[64];
	struct p256_key key, other;
	struct p256_verify_key *saved;

	CHECK_INT(p256_key_init(&key, d), 0);
	CHECK_INT(p256_key_init(&other, d2), 0);
	check_spki(&key);
	CHECK_INT(p256_sign_checked(&key, DIGEST, P256_NONCE_HEDGED, NULL, 0, sig), 0);
	CHECK_INT(p256_verify(key.pub, 65, DIGEST, sig, 0), 0);

	/* a flipped bit of d: the signature is made with another scalar */
	for (int mode = 0; mode < 2; mode++) {
		key.d[31] ^= 0x01;
		memset(sig, 0xaa, sizeof(sig));
		CHECK_INT(p256_sign_checked(&key, DIGEST, (enum p256_nonce)mode, NULL, 0, sig),
			P256_ERR_FAULT);
		CHECK(all_zero(sig, 64));
		key.d[31] ^= 0x01;
	}

	/* d replaced by 0: refused before signing, output wiped */
	memset(key.d, 0, 32);
	memset(sig, 0xaa, sizeof(sig));
	CHECK_INT(p256_sign_checked(&key, DIGEST, P256_NONCE_HEDGED, NULL, 0, sig),
		P256_ERR_SCALAR_RANGE);
	CHECK(all_zero(sig, 64));
	memcpy(key.d, d, 32);

	/* the verifier of another key (public point and verifier no longer match d) */
	saved = key.verifier;
	key.verifier = other.verifier;
	memcpy(key.pub, other.pub, 65);
	memset(sig, 0xaa, sizeof(sig));
	CHECK_INT(p256_sign_checked(&key, DIGEST, P256_NONCE_DETERMINISTIC, NULL, 0, sig),
		P256_ERR_FAULT);
	CHECK(all_zero(sig, 64));
	key.verifier = saved;

	p256_key_clear(&key);
	CHECK(all_zero((const uint8_t *)&key, sizeof(key)));
	p256_key_clear(&key);	/* clearing twice is safe */
	p256_key_clear(&other);
}

/* Without the table, sign_checked verifies with the public point itself: faults still caught. */
static void check_fault_untabled(void)
{
	uint8_t d[32] = { 0x42, 0x17 }, d2[32] = { 0x17, 0x42 }, sig[64];
	struct p256_key key, other;

	CHECK_INT(p256_key_init_untabled(&key, d), 0);
	CHECK_INT(p256_key_init_untabled(&other, d2), 0);
	CHECK_INT(p256_sign_checked(&key, DIGEST, P256_NONCE_HEDGED, NULL, 0, sig), 0);
	CHECK_INT(p256_verify(key.pub, 65, DIGEST, sig, 0), 0);

	/* a flipped bit of d */
	key.d[0] ^= 0x80;
	memset(sig, 0xaa, sizeof(sig));
	CHECK_INT(p256_sign_checked(&key, DIGEST, P256_NONCE_HEDGED, NULL, 0, sig), P256_ERR_FAULT);
	CHECK(all_zero(sig, 64));
	key.d[0] ^= 0x80;

	/* another key's public point */
	memcpy(key.pub, other.pub, 65);
	memset(sig, 0xaa, sizeof(sig));
	CHECK_INT(p256_sign_checked(&key, DIGEST, P256_NONCE_DETERMINISTIC, NULL, 0, sig),
		P256_ERR_FAULT);
	CHECK(all_zero(sig, 64));

	/* out-of-range scalars are refused as by p256_key_init */
	memset(d2, 0xff, sizeof(d2));
	CHECK_INT(p256_key_init_untabled(&other, d2), P256_ERR_SCALAR_RANGE);
	CHECK(all_zero((const uint8_t *)&other, sizeof(other)));
	p256_key_clear(&key);
	CHECK(all_zero((const uint8_t *)&key, sizeof(key)));
}

int main(int argc, char **argv)
{
	json_t *j, *v;
	size_t i;

	if (argc != 2)
		test_fatal("usage: test-sign rfc6979_p256_sha256.json");
	j = json_vectors(argv[1]);
	CHECK_INT(json_array_size(json_object_get(j, "vectors")), 2);
	json_array_foreach(json_object_get(j, "vectors"), i, v)
		check_rfc6979(v);
	json_decref(j);
	check_key_range();
	check_fault();
	check_fault_untabled();
	return test_done("test-sign");
}
