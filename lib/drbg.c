/* SPDX-License-Identifier: ISC */
/* RFC 6979 HMAC-DRBG nonces over HMAC-SHA-256, secrets wiped when done (drbg.h). */
#include "drbg.h"

#include <openssl/evp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"

#define BLOCK 64 /* SHA-256 block size */

struct drbg {
	EVP_MD_CTX *inner;	/* SHA-256 state after (K ^ ipad) */
	EVP_MD_CTX *outer;	/* SHA-256 state after (K ^ opad) */
	EVP_MD_CTX *work;
	uint8_t v[32];
	int started;		/* drbg_next has returned a candidate */
};

/*
 * SHA-256 fetched once: EVP_sha256() in EVP_DigestInit_ex makes OpenSSL 3 look the algorithm up
 * in its provider store under a lock on every call, which cost about 1 us of each signature.
 * Never freed: it lives as long as the process, like OpenSSL's own store.
 */
static EVP_MD *sha256;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;

static void sha256_fetch(void)
{
	sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
}

static const EVP_MD *sha256_md(void)
{
	if (pthread_once(&sha256_once, sha256_fetch) != 0)
		return NULL;
	return sha256;
}

/* Sets the HMAC key K: precomputes the inner and outer states. */
static int hmac_set_key(struct drbg *d, const uint8_t k[32])
{
	const EVP_MD *md = sha256_md();
	uint8_t pad[BLOCK];
	int r = P256_ERR_INTERNAL;

	if (md == NULL)
		return r;
	memset(pad, 0x36, sizeof(pad));
	for (int i = 0; i < 32; i++)
		pad[i] ^= k[i];
	if (EVP_DigestInit_ex2(d->inner, md, NULL) != 1 ||
	    EVP_DigestUpdate(d->inner, pad, sizeof(pad)) != 1)
		goto out;
	for (int i = 0; i < BLOCK; i++)
		pad[i] ^= 0x36 ^ 0x5c;
	if (EVP_DigestInit_ex2(d->outer, md, NULL) != 1 ||
	    EVP_DigestUpdate(d->outer, pad, sizeof(pad)) != 1)
		goto out;
	r = 0;
out:
	explicit_bzero(pad, sizeof(pad));
	return r;
}

/* out = HMAC_K(V || sep || a || b || c), where sep < 0 means no separator byte. */
static int hmac_v(struct drbg *d, int sep, const uint8_t *a, size_t alen, const uint8_t *b,
	size_t blen, const uint8_t *c, size_t clen, uint8_t out[32])
{
	uint8_t ih[32], s = (uint8_t)sep;
	unsigned int len;
	int r = P256_ERR_INTERNAL;

	if (EVP_MD_CTX_copy_ex(d->work, d->inner) != 1 ||
	    EVP_DigestUpdate(d->work, d->v, sizeof(d->v)) != 1 ||
	    (sep >= 0 && EVP_DigestUpdate(d->work, &s, 1) != 1) ||
	    EVP_DigestUpdate(d->work, a, alen) != 1 || EVP_DigestUpdate(d->work, b, blen) != 1 ||
	    EVP_DigestUpdate(d->work, c, clen) != 1 || EVP_DigestFinal_ex(d->work, ih, &len) != 1)
		goto out;
	if (EVP_MD_CTX_copy_ex(d->work, d->outer) != 1 ||
	    EVP_DigestUpdate(d->work, ih, sizeof(ih)) != 1 ||
	    EVP_DigestFinal_ex(d->work, out, &len) != 1)
		goto out;
	r = 0;
out:
	explicit_bzero(ih, sizeof(ih));
	return r;
}

/* K = HMAC_K(V || sep || a || b || c); V = HMAC_K(V): steps d-g and h.3 of RFC 6979. */
static int update(struct drbg *d, int sep, const uint8_t *a, size_t alen, const uint8_t *b,
	size_t blen, const uint8_t *c, size_t clen)
{
	uint8_t k[32];
	int r;

	if ((r = hmac_v(d, sep, a, alen, b, blen, c, clen, k)) != 0 ||
	    (r = hmac_set_key(d, k)) != 0 ||
	    (r = hmac_v(d, -1, NULL, 0, NULL, 0, NULL, 0, d->v)) != 0)
		goto out;
out:
	explicit_bzero(k, sizeof(k));
	return r;
}

int drbg_new(struct drbg **out, const uint8_t x[32], const uint8_t h1[32], const uint8_t *extra,
	size_t extra_len)
{
	static const uint8_t k0[32] = { 0 };
	struct drbg *d;
	int r = P256_ERR_INTERNAL;

	*out = NULL;
	if ((d = calloc(1, sizeof(*d))) == NULL)
		goto out;
	if ((d->inner = EVP_MD_CTX_new()) == NULL || (d->outer = EVP_MD_CTX_new()) == NULL ||
	    (d->work = EVP_MD_CTX_new()) == NULL)
		goto out;
	memset(d->v, 0x01, sizeof(d->v));
	if ((r = hmac_set_key(d, k0)) != 0 ||
	    (r = update(d, 0x00, x, 32, h1, 32, extra, extra_len)) != 0 ||
	    (r = update(d, 0x01, x, 32, h1, 32, extra, extra_len)) != 0)
		goto out;
	*out = d;
	d = NULL;
	r = 0;
out:
	drbg_free(d);
	return r;
}

int drbg_next(struct drbg *d, uint8_t t[32])
{
	int r;

	if (d->started && (r = update(d, 0x00, NULL, 0, NULL, 0, NULL, 0)) != 0)
		return r;
	d->started = 1;
	if ((r = hmac_v(d, -1, NULL, 0, NULL, 0, NULL, 0, d->v)) != 0)
		return r;
	memcpy(t, d->v, sizeof(d->v));
	return 0;
}

void drbg_free(struct drbg *d)
{
	if (d == NULL)
		return;
	/* OpenSSL cleanses a digest context's state when it is freed. */
	EVP_MD_CTX_free(d->inner);
	EVP_MD_CTX_free(d->outer);
	EVP_MD_CTX_free(d->work);
	explicit_bzero(d, sizeof(*d));
	free(d);
}
