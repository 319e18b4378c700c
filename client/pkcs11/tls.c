/* SPDX-License-Identifier: ISC */
/*
 * Recognises a TLS handshake's signed content in a CKM_ECDSA_SHA256 message, so that a key of
 * purpose tls-server or tls-client signs it through SIGN_TLS, where the daemon builds the content
 * from its parts and checks them (docs/pkcs11.md, "Purpose-bound keys"). Only the layout is
 * checked here; the daemon checks the rest (the curve, the point, the side against the purpose).
 */
#include <string.h>

#include "p11.h"

#define TLS13_PAD 64
static const char server_context[] = "TLS 1.3, server CertificateVerify";
static const char client_context[] = "TLS 1.3, client CertificateVerify";

/* RFC 8446 section 4.4.3: 64 x 0x20, the context string, 0x00, the transcript hash. */
static int tls13(const uint8_t *msg, size_t len, struct p256sign_tls *tls)
{
	size_t ctx_len = sizeof(server_context) - 1, hash_len, i;

	if (len < TLS13_PAD + ctx_len + 1)
		return -1;
	hash_len = len - TLS13_PAD - ctx_len - 1;
	if (hash_len != 32 && hash_len != 48 && hash_len != 64)
		return -1;
	for (i = 0; i < TLS13_PAD; i++)
		if (msg[i] != 0x20)
			return -1;
	if (memcmp(msg + TLS13_PAD, server_context, ctx_len) == 0)
		tls->side = P256SIGN_TLS_SERVER;
	else if (memcmp(msg + TLS13_PAD, client_context, ctx_len) == 0)
		tls->side = P256SIGN_TLS_CLIENT;
	else
		return -1;
	if (msg[TLS13_PAD + ctx_len] != 0x00)
		return -1;
	tls->kind = P256SIGN_TLS13;
	tls->hash = msg + TLS13_PAD + ctx_len + 1;
	tls->hash_len = hash_len;
	return 0;
}

/* RFC 8422 section 5.4: client_random, server_random, ServerECDHParams (curve_type 3 named_curve,
 * u16 curve, u8 point length, the point, nothing after). */
static int tls12(const uint8_t *msg, size_t len, struct p256sign_tls *tls)
{
	const uint8_t *params = msg + 64;
	size_t params_len;

	if (len < 64 + 4)
		return -1;
	params_len = len - 64;
	if (params[0] != 3 || params_len != 4 + (size_t)params[3] || params_len > 137)
		return -1;
	tls->kind = P256SIGN_TLS12;
	tls->side = P256SIGN_TLS_SERVER;
	tls->client_random = msg;
	tls->server_random = msg + 32;
	tls->params = params;
	tls->params_len = params_len;
	return 0;
}

int p11_tls_content(const uint8_t *msg, size_t len, struct p256sign_tls *tls)
{
	memset(tls, 0, sizeof(*tls));
	if (tls13(msg, len, tls) == 0)
		return 0;
	memset(tls, 0, sizeof(*tls));
	return tls12(msg, len, tls);
}
