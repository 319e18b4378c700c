/* SPDX-License-Identifier: ISC */
/*
 * DER signatures: r||s <-> DER round trips agree with OpenSSL's i2d_ECDSA_SIG for random values,
 * values with leading zero bytes and values with the top bit set; every non-DER or malformed
 * encoding is refused with its own error code and the output wiped.
 */
#include <openssl/bn.h>
#include <openssl/ecdsa.h>

#include "p256.h"
#include "testutil.h"

/* r||s as OpenSSL encodes it; returns the length. */
static size_t openssl_der(const uint8_t sig[64], uint8_t out[P256_SIG_DER_MAX])
{
	ECDSA_SIG *s = ECDSA_SIG_new();
	BIGNUM *r = BN_bin2bn(sig, 32, NULL), *ss = BN_bin2bn(sig + 32, 32, NULL);
	unsigned char *p = out;
	int len;

	if (s == NULL || r == NULL || ss == NULL || ECDSA_SIG_set0(s, r, ss) != 1)
		test_fatal("ECDSA_SIG");
	len = i2d_ECDSA_SIG(s, NULL);
	if (len <= 0 || len > P256_SIG_DER_MAX || i2d_ECDSA_SIG(s, &p) != len)
		test_fatal("i2d_ECDSA_SIG");
	ECDSA_SIG_free(s);
	return (size_t)len;
}

static void round_trip(const uint8_t sig[64])
{
	uint8_t der[P256_SIG_DER_MAX], want[P256_SIG_DER_MAX], back[64];
	size_t len, want_len = openssl_der(sig, want);

	CHECK_INT(p256_sig_to_der(sig, der, &len), 0);
	CHECK_INT(len, want_len);
	CHECK_MEM(der, want, want_len);
	CHECK_INT(p256_sig_from_der(der, len, back), 0);
	CHECK_MEM(back, sig, 64);
}

/* A 32-byte value with `zeros` leading zero bytes and its next byte's top bit set or not. */
static void shaped(struct prng *g, uint8_t v[32], int zeros, int top)
{
	prng_bytes(g, v, 32);
	memset(v, 0, (size_t)zeros);
	if (zeros < 32)
		v[zeros] = top ? (v[zeros] | 0x80) : (v[zeros] & 0x7f);
}

static void check_round_trips(void)
{
	struct prng g = { 0xde7 };
	uint8_t sig[64];

	for (int i = 0; i < 10000; i++) {
		prng_bytes(&g, sig, 64);
		round_trip(sig);
	}
	for (int zeros = 0; zeros <= 32; zeros++)
		for (int top = 0; top < 2; top++) {
			shaped(&g, sig, zeros, top);
			shaped(&g, sig + 32, 32 - zeros, !top);
			round_trip(sig);
		}
	memset(sig, 0xff, 64);			/* the longest encoding: 72 bytes */
	round_trip(sig);
	memset(sig, 0, 64);			/* both zero: 02 01 00 each */
	round_trip(sig);
}

/* Decodes hex; expects the error code `want` and a wiped output. */
static void refuse(const char *hex, int want)
{
	size_t len;
	uint8_t *der = hex_alloc(hex, &len), sig[64];

	memset(sig, 0xaa, sizeof(sig));
	int r = p256_sig_from_der(der, len, sig);
	if (r != want)
		fprintf(stderr, "refused input: %s\n", hex);
	CHECK_INT(r, want);
	for (int i = 0; i < 64; i++)
		CHECK_INT(sig[i], 0);
	free(der);
}

/* 32 bytes of 0x81; r = that (needs a sign byte), s = 1. */
#define X32 "8181818181818181818181818181818181818181818181818181818181818181"
#define R33 "022100" X32
#define S1 "020101"

static void check_strictness(void)
{
	uint8_t sig[64], want[64] = { 0 };
	size_t len;
	uint8_t *der = hex_alloc("3026" R33 S1, &len);

	memset(want, 0x81, 32);
	want[63] = 1;
	CHECK_INT(p256_sig_from_der(der, len, sig), 0);
	CHECK_MEM(sig, want, 64);
	/* every proper prefix is refused */
	for (size_t i = 0; i < len; i++) {
		memset(sig, 0xaa, sizeof(sig));
		CHECK_INT(p256_sig_from_der(der, i, sig), P256_ERR_TRUNCATED);
	}
	free(der);

	refuse("", P256_ERR_TRUNCATED);
	refuse("3026" R33, P256_ERR_TRUNCATED);			/* s missing */
	refuse("3027" R33 S1, P256_ERR_TRUNCATED);			/* length overruns */
	refuse("3025" R33 S1, P256_ERR_TRAILING);			/* length short */
	refuse("3026" R33 S1 "00", P256_ERR_TRAILING);		/* trailing byte */
	refuse("3029" R33 S1 S1, P256_ERR_TRAILING);			/* a third INTEGER */
	refuse("308126" R33 S1, P256_ERR_DER_LENGTH);		/* long form, short content */
	refuse("30820026" R33 S1, P256_ERR_DER_LENGTH);		/* non-minimal long form */
	refuse("3080" R33 S1 "0000", P256_ERR_DER_LENGTH);		/* BER indefinite length */
	refuse("30850000000026" R33 S1, P256_ERR_DER_LENGTH);	/* 5 length bytes */
	refuse("3027" "02812100" X32
		S1, P256_ERR_DER_LENGTH);				/* INTEGER long form */
	refuse("3026" R33 "0281", P256_ERR_TRUNCATED);		/* length bytes missing */
	refuse("3125" R33 S1, P256_ERR_DER_TAG);			/* SET, not SEQUENCE */
	refuse("3026" R33 "030101", P256_ERR_DER_TAG);		/* BIT STRING for s */
	refuse("3026" "032100" X32
		S1, P256_ERR_DER_TAG);
	refuse("1f3026" R33 S1, P256_ERR_DER_TAG);			/* multi-byte tag */
	refuse("3005" "3003" S1, P256_ERR_DER_TAG);			/* nested SEQUENCE */
	refuse("3026" R33 "020181", P256_ERR_DER_INTEGER);		/* negative s */
	refuse("3025" "0220" X32
		S1, P256_ERR_DER_INTEGER);				/* negative r */
	refuse("3027" R33 "02020001", P256_ERR_DER_INTEGER);		/* zero-padded s */
	refuse("3027" R33 "02020000", P256_ERR_DER_INTEGER);		/* zero written as 00 00 */
	refuse("3025" R33 "0200", P256_ERR_DER_INTEGER);		/* empty INTEGER */
	refuse("3026" "022101" X32 S1, P256_ERR_SIG_RANGE);		/* 2^256 <= r */
	refuse("3027" "02220081" X32 S1, P256_ERR_SIG_RANGE);	/* 33 bytes after a sign byte */
	refuse("3027" "02220000" X32 S1, P256_ERR_DER_INTEGER);	/* two leading zero bytes */
	refuse("3046" R33 "022101" X32, P256_ERR_SIG_RANGE);		/* 2^256 <= s */
	/* a DER fault after a large INTEGER is that fault: the range is judged on strict DER only */
	refuse("3026" "022101" X32 "020181", P256_ERR_DER_INTEGER);	/* then a negative s */
	refuse("3027" "022101" X32 S1 "00", P256_ERR_TRAILING);	/* then a trailing byte */
	refuse("3025" "022101" X32 "0201", P256_ERR_TRUNCATED);	/* then a truncated s */
	refuse("3028" "022101" X32 S1 "0000", P256_ERR_TRAILING);	/* trailing inside the SEQUENCE */

	/* r = s = 0 and r = 2^256 - 1 decode (their range is p256_verify's business) */
	memset(want, 0, 64);
	der = hex_alloc("3006" "020100" "020100", &len);
	CHECK_INT(p256_sig_from_der(der, len, sig), 0);
	CHECK_MEM(sig, want, 64);
	free(der);
}

int main(void)
{
	check_round_trips();
	check_strictness();
	return test_done("test-der");
}
