/* SPDX-License-Identifier: ISC */
/* Verification, low-s normalisation and the EIP-7951 precompile; every input here is public. */
#include <string.h>

#include "ec.h"
#include "p256.h"
#include "verify-internal.h"

/* floor(n / 2) */
static const uint8_t HALF_N[32] = {
	0x7f, 0xff, 0xff, 0xff, 0x80, 0x00, 0x00, 0x00, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xde, 0x73, 0x7d, 0x56, 0xd3, 0x8b, 0xcf, 0x42, 0x79, 0xdc, 0xe5, 0x61, 0x7e, 0x31, 0x92, 0xa8
};

static int sig_in_range(const uint8_t sig[64])
{
	return ec_in_range(sig) && ec_in_range(sig + 32);
}

int ec_verify_sig(const EC_POINT *q, const EC_GROUP *q_table, const uint8_t digest[32],
	const uint8_t sig[64], const scalar *w, BN_CTX *ctx)
{
	scalar own;

	if (!sig_in_range(sig))
		return P256_ERR_SIG_RANGE;
	if (w == NULL) {
		ec_sig_inverse(sig + 32, &own);
		w = &own;
	}
	return ec_verify_equation(q, q_table, digest, sig, w, ctx);
}

static int point_verify(const uint8_t *point, size_t point_len, const uint8_t digest[32],
	const uint8_t sig[64])
{
	BN_CTX *ctx = NULL;
	EC_POINT *q = NULL;
	int r = P256_ERR_INTERNAL;

	if ((ctx = BN_CTX_new()) == NULL)
		goto out;
	if ((r = ec_point_decode(point, point_len, &q, ctx)) != 0)
		goto out;
	r = ec_verify_sig(q, NULL, digest, sig, NULL, ctx);
out:
	EC_POINT_free(q);
	BN_CTX_free(ctx);
	return r;
}

int verify_low_s_refused(const uint8_t sig[P256_SIG_LEN], unsigned flags)
{
	return (flags & P256_VERIFY_LOW_S) && sig_in_range(sig) && memcmp(sig + 32, HALF_N, 32) > 0;
}

int p256_verify(const uint8_t *point, size_t point_len, const uint8_t digest[P256_DIGEST_LEN],
	const uint8_t sig[P256_SIG_LEN], unsigned flags)
{
	if (verify_low_s_refused(sig, flags))
		return P256_ERR_SIG_HIGH_S;
	return point_verify(point, point_len, digest, sig);
}

int p256_normalize_s(uint8_t sig[P256_SIG_LEN])
{
	scalar s;

	if (!sig_in_range(sig))
		return P256_ERR_SIG_RANGE;
	if (memcmp(sig + 32, HALF_N, 32) <= 0)
		return 0;			/* already low */
	scalar_from_bytes(&s, sig + 32);
	scalar_sub(&s, &(scalar){ { 0 } }, &s);	/* n - s */
	scalar_to_bytes(sig + 32, &s);
	return 0;
}

size_t p256_eip7951(const uint8_t *input, size_t input_len, uint8_t out[32])
{
	/* hash (32) || r (32) || s (32) || x (32) || y (32) */
	if (input_len != 160 || point_verify(input + 96, 64, input, input + 32) != 0)
		return 0;
	memset(out, 0, 32);
	out[31] = 1;
	return 32;
}

int p256_point_check(const uint8_t pub[P256_POINT_LEN])
{
	BN_CTX *ctx = NULL;
	EC_POINT *q = NULL;
	int r = P256_ERR_INTERNAL;

	if ((ctx = BN_CTX_new()) == NULL)
		goto out;
	r = ec_point_decode(pub, P256_POINT_LEN, &q, ctx);
out:
	EC_POINT_free(q);
	BN_CTX_free(ctx);
	return r;
}
