/* SPDX-License-Identifier: ISC */
/* Signatures as DER SEQUENCE { INTEGER r, INTEGER s }, and the P-256 SubjectPublicKeyInfo. */
#include <openssl/evp.h>
#include <string.h>

#include "cursor.h"
#include "p256.h"

/* An unsigned 32-byte big-endian value as a minimal DER INTEGER. */
static void put_der_uint(struct builder *b, const uint8_t v[32])
{
	size_t skip = 0, at;

	while (skip < 31 && v[skip] == 0)
		skip++;
	at = builder_open_der(b, 0x02);
	if (v[skip] & 0x80)
		builder_put_u8(b, 0);	/* positive */
	builder_put_bytes(b, v + skip, 32 - skip);
	builder_close_der(b, at);
}

int p256_sig_to_der(const uint8_t sig[P256_SIG_LEN], uint8_t der[P256_SIG_DER_MAX], size_t *der_len)
{
	struct builder b;
	size_t seq;

	builder_init(&b, der, P256_SIG_DER_MAX);
	seq = builder_open_der(&b, 0x30);	/* at most 70 bytes: the short form */
	put_der_uint(&b, sig);
	put_der_uint(&b, sig + 32);
	builder_close_der(&b, seq);
	return builder_finish(&b, der_len);
}

/*
 * An INTEGER of 2^256 or more is strict DER but no r or s: it sets *too_big and the parse goes
 * on, so that a signature is P256_ERR_SIG_RANGE only when all of it is strict DER (a VERIFY
 * answers it "not valid", and a malformed one "not decodable").
 */
static int get_sig_uint(struct cursor *c, uint8_t out[32], int *too_big)
{
	const uint8_t *p;
	size_t n;
	int r;

	if ((r = cursor_get_der_uint(c, &p, &n)) != 0)
		return r;
	if (n > 32) {
		*too_big = 1;
		return 0;
	}
	memset(out, 0, 32 - n);
	memcpy(out + 32 - n, p, n);
	return 0;
}

int p256_sig_from_der(const uint8_t *der, size_t der_len, uint8_t sig[P256_SIG_LEN])
{
	struct cursor c, seq;
	int r, too_big = 0;

	cursor_init(&c, der, der_len);
	if ((r = cursor_get_der(&c, 0x30, &seq)) == 0 && (r = cursor_end(&c)) == 0 &&
	    (r = get_sig_uint(&seq, sig, &too_big)) == 0 &&
	    (r = get_sig_uint(&seq, sig + 32, &too_big)) == 0 && (r = cursor_end(&seq)) == 0 &&
	    too_big)
		r = P256_ERR_SIG_RANGE;
	if (r != 0)
		explicit_bzero(sig, P256_SIG_LEN);
	return r;
}

/* SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING (0 unused bits) }, then the point. */
static const uint8_t SPKI_PREFIX[P256_SPKI_LEN - P256_POINT_LEN] = {
	0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08,
	0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00
};

void p256_spki(const uint8_t pub[P256_POINT_LEN], uint8_t spki[P256_SPKI_LEN])
{
	memcpy(spki, SPKI_PREFIX, sizeof(SPKI_PREFIX));
	memcpy(spki + sizeof(SPKI_PREFIX), pub, P256_POINT_LEN);
}

int p256_key_id(const uint8_t pub[P256_POINT_LEN], uint8_t id[P256_KEY_ID_LEN])
{
	uint8_t spki[P256_SPKI_LEN];

	p256_spki(pub, spki);
	return EVP_Digest(spki, sizeof(spki), id, NULL, EVP_sha256(), NULL) == 1 ? 0 : P256_ERR_INTERNAL;
}
