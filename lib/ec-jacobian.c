/* SPDX-License-Identifier: ISC */
/*
 * The Jacobian coordinates of a point, for computing its affine coordinates with our own
 * constant-time inversion (lib/field.c) instead of OpenSSL's. OpenSSL 3.0 has one function that
 * returns them, EC_POINT_get_Jprojective_coordinates_GFp, deprecated in 3.0 without a
 * replacement (every other way out of an EC_POINT, EC_POINT_get_affine_coordinates and
 * EC_POINT_point2oct, inverts Z inside OpenSSL); it is in every 3.x release. The -Werror build
 * refuses deprecated calls, so this file alone suppresses the warning. If a future OpenSSL
 * removes the function, this file is the one place to change: ec.c can go back to
 * EC_POINT_get_affine_coordinates (1.3 us slower per signature, docs/performance.md).
 */
#define OPENSSL_SUPPRESS_DEPRECATED 1

#include "ec.h"
#include "errors.h"

int ec_jacobian_bytes(const EC_GROUP *g, const EC_POINT *p, uint8_t X[32], uint8_t *Y,
	uint8_t Z[32], BN_CTX *ctx)
{
	BIGNUM *xb, *yb, *zb;
	int r = P256_ERR_INTERNAL;

	BN_CTX_start(ctx);
	xb = BN_CTX_get(ctx);
	yb = BN_CTX_get(ctx);
	zb = BN_CTX_get(ctx);
	if (zb == NULL ||
	    EC_POINT_get_Jprojective_coordinates_GFp(g, p, xb, Y != NULL ? yb : NULL, zb, ctx) != 1 ||
	    BN_bn2binpad(xb, X, 32) != 32 || (Y != NULL && BN_bn2binpad(yb, Y, 32) != 32) ||
	    BN_bn2binpad(zb, Z, 32) != 32)
		goto out;
	r = 0;
out:
	/* the projective form of kG says more about k than the affine point: wipe it */
	if (zb != NULL) {
		BN_clear(xb);
		BN_clear(yb);
		BN_clear(zb);
	}
	BN_CTX_end(ctx);
	return r;
}
