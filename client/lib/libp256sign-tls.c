/* SPDX-License-Identifier: ISC */
/*
 * TLS handshake parts: their wire form for SIGN_TLS, checked as the daemon checks it, and the
 * recognition of a handshake's signed content (p256sign_tls_parse) for callers that are handed
 * the content whole, such as an OpenSSL provider's digest-sign.
 */
#include <string.h>

#include "libp256sign-private.h"

#define TLS13_PAD 64	/* RFC 8446 section 4.4.3: 64 bytes 0x20 open the content */
#define TLS12_RANDOMS 64	/* client random || server random */

int tls_to_proto(struct proto_tls *t, const struct p256sign_tls *tls)
{
	memset(t, 0, sizeof(*t));
	t->kind = (uint8_t)tls->kind;
	t->side = (uint8_t)tls->side;
	if (tls->kind == P256SIGN_TLS13) {
		if (tls->hash == NULL || tls->hash_len > sizeof(t->hash) ||
		    (tls->side != P256SIGN_TLS_SERVER && tls->side != P256SIGN_TLS_CLIENT))
			return P256SIGN_E_INVALID;
		t->hash_len = (uint8_t)tls->hash_len;
		memcpy(t->hash, tls->hash, tls->hash_len);
	} else if (tls->kind == P256SIGN_TLS12) {
		if (tls->client_random == NULL || tls->server_random == NULL ||
		    tls->params == NULL || tls->params_len > sizeof(t->params))
			return P256SIGN_E_INVALID;
		memcpy(t->client_random, tls->client_random, sizeof(t->client_random));
		memcpy(t->server_random, tls->server_random, sizeof(t->server_random));
		t->params_len = (uint8_t)tls->params_len;
		memcpy(t->params, tls->params, tls->params_len);
	}
	return proto_tls_check(t) == 0 ? 0 : P256SIGN_E_INVALID;
}

/* 1 when content opens as TLS 1.3 CertificateVerify content does; its parts into *tls. */
static int tls13_split(const uint8_t *content, size_t len, struct p256sign_tls *tls)
{
	static const char server[] = "TLS 1.3, server CertificateVerify";
	static const char client[] = "TLS 1.3, client CertificateVerify";
	const size_t head = TLS13_PAD + sizeof(server);	/* the NUL is the 0x00 separator */
	size_t i;

	if (len <= head)
		return 0;
	for (i = 0; i < TLS13_PAD && content[i] == 0x20; i++)
		;
	if (i < TLS13_PAD)
		return 0;
	if (memcmp(content + TLS13_PAD, server, sizeof(server)) == 0)
		tls->side = P256SIGN_TLS_SERVER;
	else if (memcmp(content + TLS13_PAD, client, sizeof(client)) == 0)
		tls->side = P256SIGN_TLS_CLIENT;
	else
		return 0;
	tls->kind = P256SIGN_TLS13;
	tls->hash = content + head;
	tls->hash_len = len - head;
	return 1;
}

int p256sign_tls_parse(const uint8_t *content, size_t len, struct p256sign_tls *tls)
{
	struct proto_tls check;

	if (content == NULL || tls == NULL)
		return P256SIGN_E_INVALID;
	memset(tls, 0, sizeof(*tls));
	/* Not TLS 1.3: only a TLS 1.2 input is left (its params cannot open with 0x20 bytes and
	 * the context string, whose first byte is no curve type). */
	if (!tls13_split(content, len, tls)) {
		if (len <= TLS12_RANDOMS)
			return P256SIGN_E_BAD_TLS_CONTENT;
		*tls = (struct p256sign_tls){ .kind = P256SIGN_TLS12, .client_random = content,
			.server_random = content + TLS12_RANDOMS / 2, .params = content + TLS12_RANDOMS,
			.params_len = len - TLS12_RANDOMS };
	}
	if (tls_to_proto(&check, tls) != 0) {
		memset(tls, 0, sizeof(*tls));
		return P256SIGN_E_BAD_TLS_CONTENT;
	}
	return 0;
}
