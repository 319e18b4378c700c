/* SPDX-License-Identifier: ISC */
/* The content a TLS handshake signature covers (tls.h). */
#include "tls.h"

#include <openssl/bn.h>
#include <string.h>

#include "cursor.h"
#include "proto-errors.h"
#include "sha256.h"

#define BAD_TLS (-PROTO_E_BAD_TLS_CONTENT)

/* The named curves of the TLS Supported Groups registry whose ECPoint encoding is defined for
 * ServerECDHParams (RFC 8422 section 5.4, RFC 7748 for X25519 and X448), with its length. */
static size_t point_len(uint16_t curve, uint8_t first)
{
	switch (curve) {
	case 23: return first == 4 ? 65 : 0;	/* secp256r1, uncompressed */
	case 24: return first == 4 ? 97 : 0;	/* secp384r1 */
	case 25: return first == 4 ? 133 : 0;	/* secp521r1 */
	case 29: return 32;			/* x25519 */
	case 30: return 56;			/* x448 */
	default: return 0;
	}
}

/* The field prime p and the constant b of y^2 = x^3 - 3x + b (SEC 2 version 2, section 2.4). */
struct prime_curve {
	uint16_t id;
	const char *p;
	const char *b;
};

static const struct prime_curve prime_curves[] = {
	{ 23, "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
	  "5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b" },
	{ 24, "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000"
	  "ffffffff",
	  "b3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875ac656398d8a2ed19d2a85c8edd3"
	  "ec2aef" },
	{ 25, "1ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
	  "ffffffffffffffffffffffffffffffffffffffffff",
	  "51953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef109e156193951ec7e937b1652c0bd"
	  "3bb1bf073573df883d2c34f1ef451fd46b503f00" },
};

/*
 * 0 when the uncompressed point 0x04 || x || y (len bytes) is on the prime curve c: x, y < p and
 * y^2 = x^3 - 3x + b mod p. -PROTO_E_BAD_TLS_POINT when it is not, -PROTO_E_INTERNAL when
 * OpenSSL's arithmetic fails. The point is public: variable time is fine.
 */
static int on_prime_curve(const struct prime_curve *c, const uint8_t *point, size_t len)
{
	size_t half = (len - 1) / 2;
	BN_CTX *ctx = BN_CTX_new();
	BIGNUM *p, *b, *x, *y, *lhs, *rhs, *t;
	int r = -PROTO_E_INTERNAL;

	if (ctx == NULL)
		return r;
	BN_CTX_start(ctx);
	p = BN_CTX_get(ctx);
	b = BN_CTX_get(ctx);
	x = BN_CTX_get(ctx);
	y = BN_CTX_get(ctx);
	lhs = BN_CTX_get(ctx);
	rhs = BN_CTX_get(ctx);
	if ((t = BN_CTX_get(ctx)) == NULL || BN_hex2bn(&p, c->p) == 0 || BN_hex2bn(&b, c->b) == 0 ||
	    BN_bin2bn(point + 1, (int)half, x) == NULL ||
	    BN_bin2bn(point + 1 + half, (int)half, y) == NULL)
		goto out;
	if (BN_cmp(x, p) >= 0 || BN_cmp(y, p) >= 0) {
		r = -PROTO_E_BAD_TLS_POINT;
		goto out;
	}
	/* rhs = (x^2 - 3) x + b, lhs = y^2, both mod p */
	if (BN_mod_sqr(t, x, p, ctx) == 0 || BN_sub_word(t, 3) == 0 ||
	    BN_mod_mul(rhs, t, x, p, ctx) == 0 || BN_mod_add(rhs, rhs, b, p, ctx) == 0 ||
	    BN_mod_sqr(lhs, y, p, ctx) == 0)
		goto out;
	r = BN_cmp(lhs, rhs) == 0 ? 0 : -PROTO_E_BAD_TLS_POINT;
out:
	BN_CTX_end(ctx);
	BN_CTX_free(ctx);
	return r;
}

/*
 * A point of a prime curve must be on it: a point that is not is no key exchange a peer could
 * have made, and the signature would vouch for it. X25519 and X448 take every string of their
 * length as a u-coordinate (RFC 7748 section 5): nothing to check.
 */
static int point_ok(uint16_t curve, const uint8_t *point, size_t len)
{
	for (size_t i = 0; i < sizeof(prime_curves) / sizeof(prime_curves[0]); i++)
		if (prime_curves[i].id == curve)
			return on_prime_curve(&prime_curves[i], point, len);
	return 0;
}

/* ServerECDHParams: ECParameters { curve_type 3, NamedCurve } and ECPoint <1..2^8-1>: its
 * structure (else BAD_TLS), then its point (point_ok). */
static int params_ok(const uint8_t *p, size_t len)
{
	struct cursor c, point;
	uint8_t type, n, first;
	uint16_t curve;

	cursor_init(&c, p, len);
	if (cursor_get_u8(&c, &type) != 0 || type != 3 || cursor_get_u16(&c, &curve) != 0 ||
	    cursor_get_u8(&c, &n) != 0 || cursor_get_sub(&c, &point, n) != 0 || cursor_end(&c) != 0 ||
	    cursor_get_u8(&point, &first) != 0 || n != point_len(curve, first))
		return BAD_TLS;
	return point_ok(curve, p + 4, n);
}

int proto_tls_check(const struct proto_tls *t)
{
	switch (t->kind) {
	case PROTO_TLS13_CERTIFICATE_VERIFY:
		return t->side <= PROTO_TLS_CLIENT &&
		    (t->hash_len == 32 || t->hash_len == 48 || t->hash_len == 64) ? 0 : BAD_TLS;
	case PROTO_TLS12_SERVER_KEY_EXCHANGE:
		if (t->side != PROTO_TLS_SERVER || t->params_len > sizeof(t->params))
			return BAD_TLS;
		return params_ok(t->params, t->params_len);
	default:
		return BAD_TLS;
	}
}

int proto_tls_digest(const struct proto_tls *t, uint8_t digest[32])
{
	static const char server[] = "TLS 1.3, server CertificateVerify";
	static const char client[] = "TLS 1.3, client CertificateVerify";
	uint8_t content[64 + sizeof(server) + PROTO_TLS_HASH_MAX];
	size_t len = 0;
	int r;

	if ((r = proto_tls_check(t)) != 0)
		return r;
	if (t->kind == PROTO_TLS13_CERTIFICATE_VERIFY) {
		memset(content, 0x20, 64);
		/* sizeof counts the string's NUL: the 0x00 separator RFC 8446 puts after it. */
		memcpy(content + 64, t->side == PROTO_TLS_SERVER ? server : client, sizeof(server));
		memcpy(content + 64 + sizeof(server), t->hash, t->hash_len);
		len = 64 + sizeof(server) + t->hash_len;
		return sha256(content, len, digest) == 0 ? 0 : -PROTO_E_INTERNAL;
	}
	{
		const struct sha256_part parts[] = {
			{ t->client_random, sizeof(t->client_random) },
			{ t->server_random, sizeof(t->server_random) },
			{ t->params, t->params_len },
		};

		return sha256_parts(parts, 3, digest) == 0 ? 0 : -PROTO_E_INTERNAL;
	}
}
