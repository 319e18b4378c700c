/* SPDX-License-Identifier: ISC */
/*
 * The decoders of key-reference files. Servers that cannot open a store URI (Debian 12's nginx
 * 1.22, haproxy 2.6, lighttpd 1.4.69) read their key with PEM_read_bio_PrivateKey, which offers
 * the PEM text to the decoders of every loaded provider; openssl's own commands read a key file
 * through the file: store. Two steps serve both, as OpenSSL 3.0 chains decoders:
 * - "DER" from PEM: finds a block labelled P256SIGN_KEYREF_PEM_LABEL (a haproxy crt file holds
 *   the certificate too; p256sign_keyref_find_pem) and passes its DER on as structure
 *   "p256sign-keyref". The file: store picks this one up with OpenSSL's own PEM decoder and
 *   hands the DER to a key decoding.
 * - "EC" from that DER: parses it (p256sign_keyref_decode), asks the daemon for the key and hands
 *   libcrypto the same reference the store loader gives.
 * Text without such a block is not ours: no object and no error, so other decoders get it.
 */
#include <openssl/core_names.h>
#include <openssl/core_object.h>
#include <openssl/params.h>
#include <stdlib.h>
#include <string.h>

#include "keyref.h"
#include "provider.h"

/* Enough for a certificate chain before the block; a longer text is read this far only. */
#define TEXT_MAX 65536
#define STRUCTURE "p256sign-keyref"

/* The decoder needs no state of its own: its context is the provider's. */
static void *dec_newctx(void *provctx)
{
	return provctx;
}

static void dec_freectx(void *ctx)
{
}

/* Reads up to cap bytes of the input (none without the core's BIO function). */
static size_t read_all(const struct prov_ctx *prov, OSSL_CORE_BIO *in, char *text, size_t cap)
{
	size_t len = 0, n;

	while (prov->bio_read_ex != NULL && len < cap &&
	       prov->bio_read_ex(in, text + len, cap - len, &n) && n > 0)
		len += n;
	return len;
}

/* Our block's DER into der. 1 found, 0 not ours, -1 ours but not base64 (error raised). */
static int find_block(const struct prov_ctx *prov, const char *text, size_t len,
	uint8_t der[P256SIGN_KEYREF_DER_MAX], size_t *der_len)
{
	int r = p256sign_keyref_find_pem(text, len, der, P256SIGN_KEYREF_DER_MAX, der_len);

	if (r == P256SIGN_E_KEYREF_ABSENT)
		return 0;
	if (r != 0) {
		prov_error(prov, PROV_R_BAD_KEYREF, "%s", p256sign_strerror(r));
		return -1;
	}
	return 1;
}

/* PEM text in, our block's DER out as structure STRUCTURE. */
static int decode_pem(void *ctx, OSSL_CORE_BIO *in, int selection, OSSL_CALLBACK *data_cb,
	void *data_cbarg, OSSL_PASSPHRASE_CALLBACK *pw_cb, void *pw_cbarg)
{
	const struct prov_ctx *prov = ctx;
	uint8_t der[P256SIGN_KEYREF_DER_MAX];
	size_t len, der_len = 0;
	OSSL_PARAM params[4];
	char *text;
	int r;

	if ((text = malloc(TEXT_MAX)) == NULL) {
		prov_error(prov, PROV_R_NOMEM, "key file text");
		return 0;
	}
	len = read_all(prov, in, text, TEXT_MAX);
	r = find_block(prov, text, len, der, &der_len);
	free(text);
	if (r <= 0)
		return r == 0;	/* not ours: no error */
	params[0] = OSSL_PARAM_construct_octet_string(OSSL_OBJECT_PARAM_DATA, der, der_len);
	params[1] = OSSL_PARAM_construct_utf8_string(OSSL_OBJECT_PARAM_DATA_TYPE, (char *)"EC", 0);
	params[2] = OSSL_PARAM_construct_utf8_string(OSSL_OBJECT_PARAM_DATA_STRUCTURE,
		(char *)STRUCTURE, 0);
	params[3] = OSSL_PARAM_construct_end();
	return data_cb(params, data_cbarg);
}

/* The DER of a key reference in, the resolved key reference out. */
static int decode_der(void *ctx, OSSL_CORE_BIO *in, int selection, OSSL_CALLBACK *data_cb,
	void *data_cbarg, OSSL_PASSPHRASE_CALLBACK *pw_cb, void *pw_cbarg)
{
	const struct prov_ctx *prov = ctx;
	uint8_t der[P256SIGN_KEYREF_DER_MAX + 1];
	int type = OSSL_OBJECT_PKEY, r;
	struct p256sign_keyref kd;
	struct keyref ref;
	OSSL_PARAM params[4];
	size_t len = read_all(prov, in, (char *)der, sizeof(der));

	if ((r = p256sign_keyref_decode(der, len, &kd)) != 0) {
		prov_error(prov, PROV_R_BAD_KEYREF, "%s", p256sign_strerror(r));
		return 0;
	}
	keyref_init(&ref, prov);
	ref.by_id = kd.by_id;
	memcpy(ref.name, kd.name, sizeof(ref.name));
	memcpy(ref.id, kd.id, sizeof(ref.id));
	memcpy(ref.socket, kd.socket, sizeof(ref.socket));
	if (keyref_resolve(&ref) != 0)
		return 0;
	params[0] = OSSL_PARAM_construct_int(OSSL_OBJECT_PARAM_TYPE, &type);
	params[1] = OSSL_PARAM_construct_utf8_string(OSSL_OBJECT_PARAM_DATA_TYPE, (char *)"EC", 0);
	params[2] = OSSL_PARAM_construct_octet_string(OSSL_OBJECT_PARAM_REFERENCE, &ref,
		sizeof(ref));
	params[3] = OSSL_PARAM_construct_end();
	return data_cb(params, data_cbarg);
}

const OSSL_DISPATCH prov_pem_decoder_functions[] = {
	{ OSSL_FUNC_DECODER_NEWCTX, (void (*)(void))dec_newctx },
	{ OSSL_FUNC_DECODER_FREECTX, (void (*)(void))dec_freectx },
	{ OSSL_FUNC_DECODER_DECODE, (void (*)(void))decode_pem },
	{ 0, NULL }
};

const OSSL_DISPATCH prov_der_decoder_functions[] = {
	{ OSSL_FUNC_DECODER_NEWCTX, (void (*)(void))dec_newctx },
	{ OSSL_FUNC_DECODER_FREECTX, (void (*)(void))dec_freectx },
	{ OSSL_FUNC_DECODER_DECODE, (void (*)(void))decode_der },
	{ 0, NULL }
};
