/* SPDX-License-Identifier: ISC */
/* A public key prepared once for many verifications (p256_pubkey_precompute): its point's table. */
#include <openssl/ec.h>
#include <stdlib.h>

#include "ec.h"
#include "p256.h"
#include "verify-internal.h"

int p256_pubkey_precompute(const uint8_t *point, size_t point_len, struct p256_verify_key **out)
{
	struct p256_verify_key *vk = NULL;
	BN_CTX *ctx = NULL;
	EC_POINT *q = NULL;
	int r = P256_ERR_INTERNAL;

	*out = NULL;
	if ((vk = calloc(1, sizeof(*vk))) == NULL || (ctx = BN_CTX_new()) == NULL)
		goto out;
	if ((r = ec_point_decode(point, point_len, &q, ctx)) != 0 ||
	    (r = ec_table_new(q, &vk->table)) != 0)
		goto out;
	*out = vk;
	vk = NULL;
out:
	p256_verify_key_free(vk);
	EC_POINT_free(q);
	BN_CTX_free(ctx);
	return r;
}

void p256_verify_key_free(struct p256_verify_key *vk)
{
	if (vk == NULL)
		return;
	EC_GROUP_free(vk->table);
	free(vk);
}

int p256_verify_precomputed(const struct p256_verify_key *vk,
	const uint8_t digest[P256_DIGEST_LEN], const uint8_t sig[P256_SIG_LEN], unsigned flags)
{
	BN_CTX *ctx = NULL;
	int r = P256_ERR_INTERNAL;

	if (verify_low_s_refused(sig, flags))
		return P256_ERR_SIG_HIGH_S;
	if ((ctx = BN_CTX_new()) != NULL)
		r = ec_verify_sig(NULL, vk->table, digest, sig, NULL, ctx);
	BN_CTX_free(ctx);
	return r;
}
