/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer harness for the EIP-7951 P256VERIFY precompile, on any input. Checks that
 * - the output is 32 bytes of 0...01 exactly when p256_verify accepts the same parts
 *   (hash || r || s || x || y) and nothing for any other length;
 * - OpenSSL's own EVP_PKEY_verify agrees on every 160-byte input (a differential oracle: a point
 *   OpenSSL refuses to import must be refused too).
 */
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <stdlib.h>
#include <string.h>

#include "p256.h"

#define INPUT_LEN 160

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* OpenSSL's verdict on hash || r || s || x || y: 1 valid, 0 invalid, -1 if OpenSSL itself failed. */
static int openssl_verify(const uint8_t in[INPUT_LEN])
{
	uint8_t point[P256_POINT_LEN], der[P256_SIG_DER_MAX];
	size_t der_len;
	OSSL_PARAM_BLD *bld = NULL;
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *ctx = NULL, *vctx = NULL;
	EVP_PKEY *pkey = NULL;
	int r = -1;

	point[0] = 0x04;
	memcpy(point + 1, in + 96, 64);
	if (p256_sig_to_der(in + 32, der, &der_len) != 0 ||
	    (bld = OSSL_PARAM_BLD_new()) == NULL ||
	    OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) != 1 ||
	    OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point, sizeof(point)) != 1 ||
	    (params = OSSL_PARAM_BLD_to_param(bld)) == NULL ||
	    (ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL)) == NULL ||
	    EVP_PKEY_fromdata_init(ctx) != 1)
		goto out;
	r = 0;
	if (EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) != 1)
		goto out;			/* not a point on the curve */
	r = -1;
	if ((vctx = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL)) == NULL ||
	    EVP_PKEY_verify_init(vctx) != 1)
		goto out;
	r = EVP_PKEY_verify(vctx, der, der_len, in, P256_DIGEST_LEN) == 1;
out:
	EVP_PKEY_CTX_free(vctx);
	EVP_PKEY_free(pkey);
	EVP_PKEY_CTX_free(ctx);
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t TRUE_WORD[32] = { [31] = 1 };
	uint8_t out[32];
	size_t n = p256_eip7951(data, size, out);
	int valid, theirs;

	if (size != INPUT_LEN) {
		if (n != 0)
			abort();
		return 0;
	}
	valid = p256_verify(data + 96, 64, data, data + 32, 0) == 0;
	if (n != (valid ? 32u : 0u) || (n == 32 && memcmp(out, TRUE_WORD, 32) != 0))
		abort();
	if ((theirs = openssl_verify(data)) < 0 || theirs != valid)
		abort();
	return 0;
}
