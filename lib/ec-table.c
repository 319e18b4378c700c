/* SPDX-License-Identifier: ISC */
/*
 * A public key prepared for repeated verification (ec.h, ec_table_new).
 *
 * OpenSSL's P-256 code (nistz256) multiplies the group's generator with a precomputed table of
 * its multiples, and any other point with a generic window: 7 us against about 40 us on the
 * machine of docs/performance.md. A verification needs both, (e/s)G and (r/s)Q. For a key that
 * signs many times, Q is fixed, so the table is worth building once: a copy of the P-256 group
 * whose generator is Q, and EC_GROUP_precompute_mult, which nistz256 implements by building the
 * same table for that generator (and uses only when its first entry equals the generator). That
 * function is deprecated in OpenSSL 3.0 without a replacement; it is in every 3.x release. If a
 * future OpenSSL removes it, this file is the one place to change: the verification works without
 * the table (ec_verify_equation with q_table NULL), only slower.
 */
#define OPENSSL_SUPPRESS_DEPRECATED 1

#include <openssl/obj_mac.h>

#include "ec.h"
#include "errors.h"

int ec_table_new(const EC_POINT *q, EC_GROUP **out)
{
	const EC_GROUP *g = ec_group();
	EC_GROUP *t = NULL;
	BN_CTX *ctx = NULL;
	int r = P256_ERR_INTERNAL;

	*out = NULL;
	if (g == NULL || (ctx = BN_CTX_new()) == NULL ||
	    (t = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1)) == NULL ||
	    EC_GROUP_set_generator(t, q, EC_GROUP_get0_order(g), EC_GROUP_get0_cofactor(g)) != 1 ||
	    EC_GROUP_precompute_mult(t, ctx) != 1)
		goto out;
	*out = t;
	t = NULL;
	r = 0;
out:
	EC_GROUP_free(t);
	BN_CTX_free(ctx);
	return r;
}
