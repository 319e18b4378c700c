/* SPDX-License-Identifier: ISC */
/* The content a TLS handshake signature covers (tls.h). */
#include "tls.h"

#include <string.h>

#include "cursor.h"
#include "proto.h"
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

/* ServerECDHParams: ECParameters { curve_type 3, NamedCurve } and ECPoint <1..2^8-1>. */
static int params_ok(const uint8_t *p, size_t len)
{
	struct cursor c, point;
	uint8_t type, n, first;
	uint16_t curve;

	cursor_init(&c, p, len);
	if (cursor_get_u8(&c, &type) != 0 || type != 3 || cursor_get_u16(&c, &curve) != 0 ||
	    cursor_get_u8(&c, &n) != 0 || cursor_get_sub(&c, &point, n) != 0 || cursor_end(&c) != 0 ||
	    cursor_get_u8(&point, &first) != 0)
		return 0;
	return n == point_len(curve, first);
}

int proto_tls_check(const struct proto_tls *t)
{
	switch (t->kind) {
	case PROTO_TLS13_CERTIFICATE_VERIFY:
		return t->side <= PROTO_TLS_CLIENT &&
		    (t->hash_len == 32 || t->hash_len == 48 || t->hash_len == 64) ? 0 : BAD_TLS;
	case PROTO_TLS12_SERVER_KEY_EXCHANGE:
		return t->side == PROTO_TLS_SERVER && t->params_len <= sizeof(t->params) &&
		    params_ok(t->params, t->params_len) ? 0 : BAD_TLS;
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
