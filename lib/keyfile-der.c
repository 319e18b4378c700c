/* SPDX-License-Identifier: ISC */
/*
 * PKCS#8 (RFC 5958) and SEC 1 ECPrivateKey (RFC 5915) in DER. Tags and lengths are public
 * structure and are branched on; the private key octets are only copied (cursor_copy).
 */
#include "keyfile-der.h"

#include <string.h>

#include "cursor.h"
#include "errors.h"

#define TAG_INTEGER 0x02
#define TAG_BIT_STRING 0x03
#define TAG_OCTET_STRING 0x04
#define TAG_OID 0x06
#define TAG_SEQUENCE 0x30
#define TAG_CTX0 0xa0		/* [0] constructed: ECParameters, PKCS#8 attributes */
#define TAG_CTX1 0xa1		/* [1] constructed: ECPrivateKey publicKey (EXPLICIT BIT STRING) */
#define TAG_CTX1_PRIM 0x81	/* [1] IMPLICIT BIT STRING: OneAsymmetricKey publicKey */

/* 1.2.840.10045.2.1 id-ecPublicKey and 1.2.840.10045.3.1.7 prime256v1 (RFC 5480). */
static const uint8_t OID_EC_PUBLIC_KEY[] = { 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01 };
static const uint8_t OID_PRIME256V1[] = { 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07 };

#define PKCS8_V1 0
#define PKCS8_V2 1
#define SEC1_VERSION 1

static int next_tag_is(const struct cursor *c, uint8_t tag)
{
	uint8_t t;

	return cursor_peek_u8(c, &t) == 0 && t == tag;
}

static int oid_is(const struct cursor *oid, const uint8_t *want, size_t want_len)
{
	return cursor_equal(oid, want, want_len);
}

/* A small INTEGER version; anything above 255 is P256_ERR_KEY_VERSION. */
static int get_version(struct cursor *c, unsigned *v)
{
	const uint8_t *p;
	size_t n;
	int r;

	if ((r = cursor_get_der_uint(c, &p, &n)) != 0)
		return r;
	if (n > 1)
		return P256_ERR_KEY_VERSION;
	*v = n == 0 ? 0 : p[0];
	return 0;
}

/* ECParameters (RFC 5480): only namedCurve prime256v1. */
static int get_curve(struct cursor *c)
{
	struct cursor oid;
	uint8_t tag;
	int r;

	if ((r = cursor_peek_u8(c, &tag)) != 0)
		return r;
	if (tag == TAG_SEQUENCE)
		return P256_ERR_KEY_EXPLICIT_CURVE; /* specifiedCurve */
	if (tag != TAG_OID)
		return P256_ERR_KEY_CURVE; /* implicitCurve or worse: no named curve */
	if ((r = cursor_get_der(c, TAG_OID, &oid)) != 0)
		return r;
	return oid_is(&oid, OID_PRIME256V1, sizeof(OID_PRIME256V1)) ? 0 : P256_ERR_KEY_CURVE;
}

/* A BIT STRING with no unused bits holding a public point; *pub points into the DER. */
static int get_public_key(struct cursor *c, uint8_t tag, struct der_key *out)
{
	struct cursor bits;
	uint8_t unused;
	int r;

	if ((r = cursor_get_der(c, tag, &bits)) != 0 || (r = cursor_get_u8(&bits, &unused)) != 0)
		return r;
	if (unused != 0)
		return P256_ERR_DER_BITSTRING;
	if (out->npubs == DER_KEY_PUBS_MAX)
		return P256_ERR_INTERNAL;
	out->pubs[out->npubs] = cursor_position(&bits);
	out->pub_lens[out->npubs] = cursor_left(&bits);
	out->npubs++;
	return 0;
}

/*
 * The private key OCTET STRING's contents: up to 32 bytes, left-padded with zeros (RFC 5915 asks
 * for exactly 32, but some encoders drop leading zero bytes). Its length is public; its bytes are
 * only copied.
 */
static int copy_scalar(struct cursor *octets, uint8_t d[P256_SCALAR_LEN])
{
	size_t n = cursor_left(octets);

	if (n == 0 || n > P256_SCALAR_LEN)
		return P256_ERR_SCALAR_RANGE;
	memset(d, 0, P256_SCALAR_LEN - n);
	return cursor_copy(octets, d + P256_SCALAR_LEN - n, n);
}

/*
 * ECPrivateKey ::= SEQUENCE { version 1, privateKey OCTET STRING, [0] ECParameters OPTIONAL,
 * [1] BIT STRING OPTIONAL }; c holds the SEQUENCE's contents. The curve is checked before the
 * scalar's length, so that a P-384 key is refused as such.
 */
static int parse_sec1(struct cursor *c, struct der_key *out)
{
	struct cursor octets, field;
	unsigned version;
	int r;

	if ((r = get_version(c, &version)) != 0)
		return r;
	if (version != SEC1_VERSION)
		return P256_ERR_KEY_VERSION;
	if ((r = cursor_get_der(c, TAG_OCTET_STRING, &octets)) != 0)
		return r;
	if (next_tag_is(c, TAG_CTX0) &&
	    ((r = cursor_get_der(c, TAG_CTX0, &field)) != 0 || (r = get_curve(&field)) != 0 ||
	     (r = cursor_end(&field)) != 0))
		return r;
	if (next_tag_is(c, TAG_CTX1) &&
	    ((r = cursor_get_der(c, TAG_CTX1, &field)) != 0 ||
	     (r = get_public_key(&field, TAG_BIT_STRING, out)) != 0 || (r = cursor_end(&field)) != 0))
		return r;
	if ((r = cursor_end(c)) != 0)
		return r;
	return copy_scalar(&octets, out->d);
}

/* AlgorithmIdentifier { id-ecPublicKey, namedCurve prime256v1 }. */
static int get_algorithm(struct cursor *c)
{
	struct cursor alg, oid;
	int r;

	if ((r = cursor_get_der(c, TAG_SEQUENCE, &alg)) != 0 ||
	    (r = cursor_get_der(&alg, TAG_OID, &oid)) != 0)
		return r;
	if (!oid_is(&oid, OID_EC_PUBLIC_KEY, sizeof(OID_EC_PUBLIC_KEY)))
		return P256_ERR_KEY_ALGORITHM;
	if ((r = get_curve(&alg)) != 0)
		return r;
	return cursor_end(&alg);
}

/* OneAsymmetricKey ::= SEQUENCE { version, AlgorithmIdentifier, privateKey OCTET STRING
 * (an ECPrivateKey), [0] Attributes OPTIONAL, [1] IMPLICIT BIT STRING OPTIONAL (v2 only) }. */
static int parse_pkcs8(struct cursor *c, struct der_key *out)
{
	struct cursor octets, inner, attributes;
	unsigned version;
	int r;

	if ((r = get_version(c, &version)) != 0)
		return r;
	if (version != PKCS8_V1 && version != PKCS8_V2)
		return P256_ERR_KEY_VERSION;
	if ((r = get_algorithm(c)) != 0 ||
	    (r = cursor_get_der(c, TAG_OCTET_STRING, &octets)) != 0 ||
	    (r = cursor_get_der(&octets, TAG_SEQUENCE, &inner)) != 0 ||
	    (r = cursor_end(&octets)) != 0 || (r = parse_sec1(&inner, out)) != 0)
		return r;
	/* Attributes are public metadata (friendlyName and the like): skipped, not interpreted. */
	if (next_tag_is(c, TAG_CTX0) && (r = cursor_get_der(c, TAG_CTX0, &attributes)) != 0)
		return r;
	if (next_tag_is(c, TAG_CTX1_PRIM)) {
		if (version != PKCS8_V2)
			return P256_ERR_KEY_VERSION; /* RFC 5958: publicKey only in v2 */
		if ((r = get_public_key(c, TAG_CTX1_PRIM, out)) != 0)
			return r;
	}
	return cursor_end(c);
}

/*
 * A DER file names no structure: after the version INTEGER a PrivateKeyInfo has a SEQUENCE and an
 * ECPrivateKey an OCTET STRING. A SEQUENCE that opens with a SEQUENCE is no private key in the
 * clear: an EncryptedPrivateKeyInfo (then an OCTET STRING), a SubjectPublicKeyInfo or a certificate.
 */
static int sniff_kind(const struct cursor *seq, enum der_key_kind *kind)
{
	struct cursor c = *seq, first;
	const uint8_t *p;
	size_t n;
	int r;

	if (next_tag_is(&c, TAG_SEQUENCE)) {
		if ((r = cursor_get_der(&c, TAG_SEQUENCE, &first)) != 0)
			return r;
		return next_tag_is(&c, TAG_OCTET_STRING) ? P256_ERR_KEY_ENCRYPTED : P256_ERR_KEY_EMPTY;
	}
	if ((r = cursor_get_der_uint(&c, &p, &n)) != 0)
		return r;
	if (next_tag_is(&c, TAG_SEQUENCE))
		*kind = DER_KEY_PKCS8;
	else if (next_tag_is(&c, TAG_OCTET_STRING))
		*kind = DER_KEY_SEC1;
	else
		return P256_ERR_DER_TAG;
	return 0;
}

int der_key_parse(const uint8_t *der, size_t len, enum der_key_kind kind, struct der_key *out)
{
	struct cursor c, seq;
	int r = P256_ERR_INTERNAL;

	memset(out, 0, sizeof(*out));
	cursor_init(&c, der, len);
	if ((r = cursor_get_der(&c, TAG_SEQUENCE, &seq)) != 0 || (r = cursor_end(&c)) != 0)
		goto out;
	if (kind == DER_KEY_ANY && (r = sniff_kind(&seq, &kind)) != 0)
		goto out;
	out->kind = kind;
	r = kind == DER_KEY_PKCS8 ? parse_pkcs8(&seq, out) : parse_sec1(&seq, out);
out:
	if (r != 0)
		explicit_bzero(out, sizeof(*out));
	return r;
}
