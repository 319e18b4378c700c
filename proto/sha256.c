/* SPDX-License-Identifier: ISC */
/* SHA-256 with the algorithm fetched once (sha256.h). */
#include "sha256.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

static CRYPTO_ONCE once = CRYPTO_ONCE_STATIC_INIT;
static EVP_MD *md;		/* kept for the process's life; NULL if the fetch failed */

static void fetch(void)
{
	md = EVP_MD_fetch(NULL, "SHA2-256", NULL);
}

int sha256_parts(const struct sha256_part *parts, size_t n, uint8_t out[32])
{
	EVP_MD_CTX *ctx = NULL;
	int r = -1;

	if (CRYPTO_THREAD_run_once(&once, fetch) != 1 || md == NULL ||
	    (ctx = EVP_MD_CTX_new()) == NULL || EVP_DigestInit_ex2(ctx, md, NULL) != 1)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (EVP_DigestUpdate(ctx, parts[i].data, parts[i].len) != 1)
			goto out;
	if (EVP_DigestFinal_ex(ctx, out, NULL) != 1)
		goto out;
	r = 0;
out:
	EVP_MD_CTX_free(ctx);
	return r;
}

int sha256(const void *data, size_t len, uint8_t out[32])
{
	const struct sha256_part part = { data, len };

	return sha256_parts(&part, 1, out);
}
