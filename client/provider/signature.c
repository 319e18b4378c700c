/* SPDX-License-Identifier: ISC */
/*
 * ECDSA signatures with p256signd keys. The input is hashed here and only the digest goes to
 * the daemon. libssl calls digest_sign_init while it chooses a signature algorithm (twice per
 * handshake), so no init does any I/O; the one-shot digest_sign spares libssl the
 * update/final/dupctx path, which is there too for other callers and copies for real.
 *
 * Inputs that are not SHA-256 sized: ECDSA uses the leftmost bits of the digest, as many as the
 * group order has (FIPS 186-4 section 6.4, SEC 1 section 4.1.3): for P-256 the first 32 bytes
 * of a SHA-384 or SHA-512 digest are all a verifier uses, so the daemon's 32-byte SIGN request
 * signs them exactly. Other digests are refused at init, so libssl picks another algorithm.
 */
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <stdlib.h>
#include <string.h>

#include "keymgmt.h"
#include "keyref.h"
#include "provider.h"
#include "purpose.h"
#include "sign-input.h"

struct sig_ctx {
	const struct prov_ctx *prov;
	const struct prov_key *key;
	const EVP_MD *md;	/* NULL: a pre-hashed sign of 32, 48 or 64 bytes */
	EVP_MD_CTX *mdctx;	/* digest_sign_update/final */
	int digest_sign;	/* the digest is fixed by digest_sign_init */
};

static void *sig_newctx(void *provctx, const char *propq)
{
	struct sig_ctx *c = calloc(1, sizeof(*c));

	if (c == NULL) {
		prov_error(provctx, PROV_R_NOMEM, "signature context");
		return NULL;
	}
	c->prov = provctx;
	return c;
}

static void sig_freectx(void *ctx)
{
	struct sig_ctx *c = ctx;

	if (c == NULL)
		return;
	EVP_MD_CTX_free(c->mdctx);
	free(c);
}

/* A real copy, with the hash state: EVP_DigestSignFinal in OpenSSL 3.0 signs on a copy. */
static void *sig_dupctx(void *ctx)
{
	struct sig_ctx *from = ctx, *c;

	if ((c = sig_newctx((void *)from->prov, NULL)) == NULL)
		return NULL;
	*c = *from;
	c->mdctx = NULL;
	if (from->mdctx != NULL &&
	    ((c->mdctx = EVP_MD_CTX_new()) == NULL || !EVP_MD_CTX_copy_ex(c->mdctx, from->mdctx))) {
		sig_freectx(c);
		prov_error(from->prov, PROV_R_NOMEM, "copy of a signature context");
		return NULL;
	}
	return c;
}

/* SHA-256, SHA-384 or SHA-512 under any of their names, from the provider's own fetches. */
static const EVP_MD *find_md(const struct prov_ctx *prov, const char *name)
{
	for (size_t i = 0; i < sizeof(prov->md) / sizeof(prov->md[0]); i++)
		if (prov->md[i] != NULL && EVP_MD_is_a(prov->md[i], name))
			return prov->md[i];
	prov_error(prov, PROV_R_BAD_DIGEST, "%s", name);
	return NULL;
}

static int sig_set_ctx_params(void *ctx, const OSSL_PARAM params[]);

/* What both inits do: a key that can sign, and the context's parameters. */
static int init(struct sig_ctx *c, void *provkey, const OSSL_PARAM params[])
{
	const struct prov_key *k = provkey;

	if (k == NULL || !k->has_ref) {
		prov_error(c->prov, PROV_R_NOT_A_DAEMON_KEY, "a public key cannot sign");
		return 0;
	}
	c->key = k;
	return sig_set_ctx_params(c, params);
}

static int sig_sign_init(void *ctx, void *provkey, const OSSL_PARAM params[])
{
	struct sig_ctx *c = ctx;

	c->md = NULL;
	c->digest_sign = 0;
	return init(c, provkey, params);
}

static int sig_digest_sign_init(void *ctx, const char *mdname, void *provkey,
	const OSSL_PARAM params[])
{
	struct sig_ctx *c = ctx;

	c->digest_sign = 0;	/* parameters may not change the digest; set it first */
	if (!init(c, provkey, params) ||
	    (c->md = find_md(c->prov, mdname != NULL ? mdname : "SHA256")) == NULL)
		return 0;
	c->digest_sign = 1;
	if (c->mdctx == NULL && (c->mdctx = EVP_MD_CTX_new()) == NULL) {
		prov_error(c->prov, PROV_R_NOMEM, "digest context");
		return 0;
	}
	return EVP_DigestInit_ex2(c->mdctx, c->md, NULL);
}

/*
 * Signs in through the daemon, after the check of the key's purpose (purpose.c), which the
 * daemon makes again.
 */
static int sign_input(struct sig_ctx *c, const struct sign_input *in, unsigned char *sig,
	size_t *siglen, size_t sigsize)
{
	const struct keyref *ref = &c->key->ref;
	const char *refusal = purpose_refusal(ref->purpose, in->tls);
	uint8_t der[P256SIGN_SIG_MAX];
	size_t der_len;

	if (refusal != NULL) {
		prov_error(c->prov, PROV_R_PURPOSE, "key %s has purpose %s: %s",
			ref->by_id ? "by id" : ref->name, ref->purpose, refusal);
		return 0;
	}
	if (keyref_sign(&c->key->ref, in, der, sizeof(der), &der_len) != 0)
		return 0;
	if (der_len > sigsize) {
		prov_error(c->prov, PROV_R_BUFFER, "%zu bytes for a signature of %zu", sigsize,
			der_len);
		return 0;
	}
	memcpy(sig, der, der_len);
	*siglen = der_len;
	return 1;
}

static int sign_digest(struct sig_ctx *c, const uint8_t *digest, size_t len, unsigned char *sig,
	size_t *siglen, size_t sigsize)
{
	struct sign_input in = { .digest = digest };

	if (sig == NULL) {
		*siglen = P256SIGN_SIG_MAX;
		return 1;
	}
	if (len < P256SIGN_DIGEST_LEN) {
		prov_error(c->prov, PROV_R_BAD_INPUT_LENGTH, "%zu bytes", len);
		return 0;
	}
	return sign_input(c, &in, sig, siglen, sigsize);
}

/*
 * tbs as a TLS handshake's parts, when it is one (p256sign_tls_parse: TLS 1.3 CertificateVerify
 * content or TLS 1.2 ServerKeyExchange input) and the hash is SHA-256 (ecdsa_secp256r1_sha256,
 * the scheme SIGN_TLS signs with). Either way the daemon signs SHA-256 of these very bytes, so the
 * signature is the one SIGN would give; a purpose-bound key accepts only this.
 */
static int as_tls(const struct sig_ctx *c, const unsigned char *tbs, size_t len,
	struct p256sign_tls *tls)
{
	return c->md != NULL && EVP_MD_get_type(c->md) == NID_sha256 &&
		p256sign_tls_parse(tbs, len, tls) == 0;
}

/* A pre-hashed input: the digest's size if one is set, else a SHA-2 size the daemon can sign. */
static int sig_sign(void *ctx, unsigned char *sig, size_t *siglen, size_t sigsize,
	const unsigned char *tbs, size_t tbslen)
{
	struct sig_ctx *c = ctx;
	size_t want = c->md != NULL ? (size_t)EVP_MD_get_size(c->md) : 0;

	if (sig != NULL && (want != 0 ? tbslen != want :
		tbslen != 32 && tbslen != 48 && tbslen != 64)) {
		prov_error(c->prov, PROV_R_BAD_INPUT_LENGTH, "%zu bytes", tbslen);
		return 0;
	}
	return sign_digest(c, tbs, tbslen, sig, siglen, sigsize);
}

static int sig_digest_sign_update(void *ctx, const unsigned char *data, size_t datalen)
{
	struct sig_ctx *c = ctx;

	return c->digest_sign && EVP_DigestUpdate(c->mdctx, data, datalen);
}

static int sig_digest_sign_final(void *ctx, unsigned char *sig, size_t *siglen, size_t sigsize)
{
	struct sig_ctx *c = ctx;
	uint8_t digest[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (!c->digest_sign)
		return 0;
	if (sig != NULL && !EVP_DigestFinal_ex(c->mdctx, digest, &n))
		return 0;
	return sign_digest(c, digest, n, sig, siglen, sigsize);
}

/*
 * libssl's path: EVP_DigestSign with the whole input, once for the size, once to sign. A TLS
 * handshake's input goes to the daemon as SIGN_TLS (as_tls), anything else hashed here as SIGN;
 * a key's purpose refuses what it does not allow here (sign_input) and in the daemon.
 */
static int sig_digest_sign(void *ctx, unsigned char *sig, size_t *siglen, size_t sigsize,
	const unsigned char *tbs, size_t tbslen)
{
	struct sig_ctx *c = ctx;
	uint8_t digest[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	struct p256sign_tls tls;

	if (!c->digest_sign)
		return 0;
	if (sig != NULL && as_tls(c, tbs, tbslen, &tls)) {
		struct sign_input in = { .tls = &tls };

		return sign_input(c, &in, sig, siglen, sigsize);
	}
	if (sig != NULL && !EVP_Digest(tbs, tbslen, digest, &n, c->md, NULL))
		return 0;
	return sign_digest(c, digest, n, sig, siglen, sigsize);
}

static int sig_get_ctx_params(void *ctx, OSSL_PARAM params[])
{
	struct sig_ctx *c = ctx;
	OSSL_PARAM *p = OSSL_PARAM_locate(params, OSSL_SIGNATURE_PARAM_DIGEST);

	return p == NULL || (c->md != NULL && OSSL_PARAM_set_utf8_string(p, EVP_MD_get0_name(c->md)));
}

static const OSSL_PARAM sig_ctx_params[] = {
	OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_DIGEST, NULL, 0),
	OSSL_PARAM_END
};

static const OSSL_PARAM *sig_ctx_params_fn(void *ctx, void *provctx)
{
	return sig_ctx_params;
}

/* The digest of a pre-hashed sign (EVP_PKEY_CTX_set_signature_md); fixed once digest-signing. */
static int sig_set_ctx_params(void *ctx, const OSSL_PARAM params[])
{
	struct sig_ctx *c = ctx;
	const OSSL_PARAM *p;
	const char *name;

	if (params == NULL)
		return 1;
	if ((p = OSSL_PARAM_locate_const(params, OSSL_SIGNATURE_PARAM_DIGEST)) == NULL)
		return 1;
	if (c->digest_sign || !OSSL_PARAM_get_utf8_string_ptr(p, &name))
		return 0;
	return (c->md = find_md(c->prov, name)) != NULL;
}

const OSSL_DISPATCH prov_signature_functions[] = {
	{ OSSL_FUNC_SIGNATURE_NEWCTX, (void (*)(void))sig_newctx },
	{ OSSL_FUNC_SIGNATURE_FREECTX, (void (*)(void))sig_freectx },
	{ OSSL_FUNC_SIGNATURE_DUPCTX, (void (*)(void))sig_dupctx },
	{ OSSL_FUNC_SIGNATURE_SIGN_INIT, (void (*)(void))sig_sign_init },
	{ OSSL_FUNC_SIGNATURE_SIGN, (void (*)(void))sig_sign },
	{ OSSL_FUNC_SIGNATURE_DIGEST_SIGN_INIT, (void (*)(void))sig_digest_sign_init },
	{ OSSL_FUNC_SIGNATURE_DIGEST_SIGN_UPDATE, (void (*)(void))sig_digest_sign_update },
	{ OSSL_FUNC_SIGNATURE_DIGEST_SIGN_FINAL, (void (*)(void))sig_digest_sign_final },
	{ OSSL_FUNC_SIGNATURE_DIGEST_SIGN, (void (*)(void))sig_digest_sign },
	{ OSSL_FUNC_SIGNATURE_GET_CTX_PARAMS, (void (*)(void))sig_get_ctx_params },
	{ OSSL_FUNC_SIGNATURE_GETTABLE_CTX_PARAMS, (void (*)(void))sig_ctx_params_fn },
	{ OSSL_FUNC_SIGNATURE_SET_CTX_PARAMS, (void (*)(void))sig_set_ctx_params },
	{ OSSL_FUNC_SIGNATURE_SETTABLE_CTX_PARAMS, (void (*)(void))sig_ctx_params_fn },
	{ 0, NULL }
};
