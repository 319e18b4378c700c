/* SPDX-License-Identifier: ISC */
/* Curve arithmetic through OpenSSL's named P-256 group (ec.h). */
#include "ec.h"

#include <openssl/obj_mac.h>
#include <pthread.h>
#include <string.h>

#include "ct.h"
#include "errors.h"
#include "field.h"

static EC_GROUP *group;
static pthread_once_t group_once = PTHREAD_ONCE_INIT;

static void group_init(void)
{
	group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
}

const EC_GROUP *ec_group(void)
{
	if (pthread_once(&group_once, group_init) != 0)
		return NULL;
	return group;
}

/*
 * The affine coordinates of p as 32-byte big-endian values (y optional), from its Jacobian
 * coordinates with our constant-time inversion of Z (lib/field.c): OpenSSL's own conversion
 * took 3.5 us. The Jacobian coordinates are secret (they depend on k beyond the point itself);
 * the affine x and y are public (x becomes r, or x and y a public key).
 */
static int affine_bytes(const EC_GROUP *g, const EC_POINT *p, uint8_t x[32], uint8_t y[32],
	BN_CTX *ctx)
{
	uint8_t X[32], Y[32], Z[32];
	int r;

	if ((r = ec_jacobian_bytes(g, p, X, y != NULL ? Y : NULL, Z, ctx)) == 0)
		field_affine(x, y, X, y != NULL ? Y : NULL, Z);
	explicit_bzero(X, sizeof(X));
	explicit_bzero(Y, sizeof(Y));
	explicit_bzero(Z, sizeof(Z));
	return r;
}

/*
 * kG for a secret 1 <= k < n, in constant time, as OpenSSL leaves it: either its affine
 * coordinates (x, y optional; public) or, with X and Z not NULL, its Jacobian X, Y (optional)
 * and Z (secret).
 */
static int base_mul(const scalar *k, uint8_t x[32], uint8_t y[32], uint8_t X[32], uint8_t *Y,
	uint8_t Z[32])
{
	const EC_GROUP *g = ec_group();
	uint8_t kn[33];
	BN_CTX *ctx = NULL;
	BIGNUM *kb = NULL;
	EC_POINT *p = NULL;
	int r = P256_ERR_INTERNAL;

	scalar_plus_n_bytes(kn, k);
	/*
	 * BN_bin2bn skips leading zero bytes, a branch on the value. The top byte of k + n is 1
	 * except when k < 2^256 - n (probability about 2^-32), so its value is declassified; every
	 * other byte of k stays secret.
	 */
	ct_declassify(kn, 1);
	if (g == NULL || (ctx = BN_CTX_secure_new()) == NULL)
		goto out;
	BN_CTX_start(ctx);
	if ((kb = BN_CTX_get(ctx)) == NULL || (p = EC_POINT_new(g)) == NULL)
		goto out;
	BN_set_flags(kb, BN_FLG_CONSTTIME);
	if (BN_bin2bn(kn, sizeof(kn), kb) == NULL ||
	    EC_POINT_mul(g, p, kb, NULL, NULL, ctx) != 1)
		goto out;
	if (X != NULL)
		r = ec_jacobian_bytes(g, p, X, Y, Z, ctx);
	else
		r = affine_bytes(g, p, x, y, ctx);
out:
	explicit_bzero(kn, sizeof(kn));
	if (kb != NULL)
		BN_clear(kb); /* kb belongs to the context's pool: wipe it before it is reused */
	if (ctx != NULL)
		BN_CTX_end(ctx);
	EC_POINT_clear_free(p);
	BN_CTX_free(ctx);
	return r;
}

int ec_base_mul(const scalar *k, uint8_t x[32], uint8_t y[32])
{
	return base_mul(k, x, y, NULL, NULL, NULL);
}

int ec_base_mul_jacobian(const scalar *k, uint8_t X[32], uint8_t *Y, uint8_t Z[32])
{
	return base_mul(k, NULL, NULL, X, Y, Z);
}

int ec_point_decode(const uint8_t *in, size_t len, EC_POINT **out, BN_CTX *ctx)
{
	const EC_GROUP *g = ec_group();
	uint8_t buf[65];
	EC_POINT *p = NULL;
	int r = P256_ERR_INTERNAL;

	*out = NULL;
	if (g == NULL || (p = EC_POINT_new(g)) == NULL)
		goto out;
	r = P256_ERR_LENGTH;
	if (len == 65 && in[0] == 0x04)
		memcpy(buf, in, 65);
	else if (len == 64) {
		buf[0] = 0x04;
		memcpy(buf + 1, in, 64);
	} else if (len == 65) {
		r = P256_ERR_POINT;
		goto out;
	} else
		goto out;
	/* oct2point checks that x, y < p and that the point is on the curve. */
	r = P256_ERR_POINT;
	if (EC_POINT_oct2point(g, p, buf, sizeof(buf), ctx) != 1 || EC_POINT_is_at_infinity(g, p))
		goto out;
	*out = p;
	p = NULL;
	r = 0;
out:
	EC_POINT_free(p);
	return r;
}

/*
 * s^-1 with the scalar code: BN_mod_inverse took 10 us of the 64 us of a verification, the
 * safegcd inversion takes 1.7 us. It is constant time, which s does not need; a variable-time
 * variant that stops once g = 0 saved 0.2 us (docs/performance.md), not worth a second code path.
 */
void ec_sig_inverse(const uint8_t s_in[32], scalar *w)
{
	scalar s;

	scalar_from_bytes(&s, s_in);
	scalar_inv(w, &s);
	scalar_to_mont(w, w);			/* s^-1 * R */
}

/* u1 = e/s and u2 = r/s mod n, from w = s^-1 * R. */
static void verify_scalars(const uint8_t digest[32], const uint8_t r_in[32], const scalar *w,
	uint8_t u1[32], uint8_t u2[32])
{
	scalar e, rs;

	scalar_from_bytes(&e, digest);
	scalar_reduce(&e, &e);
	scalar_from_bytes(&rs, r_in);
	scalar_mont_mul(&e, &e, w);		/* e/s */
	scalar_mont_mul(&rs, &rs, w);		/* r/s */
	scalar_to_bytes(u1, &e);
	scalar_to_bytes(u2, &rs);
}

int ec_mul_pair(EC_POINT *rp, const BIGNUM *u1, const EC_POINT *q, const EC_GROUP *q_table,
	const BIGNUM *u2, BN_CTX *ctx)
{
	const EC_GROUP *g = ec_group();
	EC_POINT *t = NULL;
	int ok;

	if (g == NULL)
		return -1;
	if (q_table == NULL)
		return EC_POINT_mul(g, rp, u1, q, u2, ctx) == 1 ? 0 : -1;
	ok = (t = EC_POINT_new(q_table)) != NULL && EC_POINT_mul(g, rp, u1, NULL, NULL, ctx) == 1 &&
	    EC_POINT_mul(q_table, t, u2, NULL, NULL, ctx) == 1 && EC_POINT_add(g, rp, rp, t, ctx) == 1;
	EC_POINT_free(t);
	return ok ? 0 : -1;
}

int ec_verify_equation(const EC_POINT *q, const EC_GROUP *q_table, const uint8_t digest[32],
	const uint8_t r_in[32], const scalar *w, BN_CTX *ctx)
{
	const EC_GROUP *g = ec_group();
	uint8_t u1[32], u2[32], X[32], Z[32];
	BIGNUM *u1b, *u2b;
	EC_POINT *rp = NULL;
	int r = P256_ERR_INTERNAL;

	BN_CTX_start(ctx);
	u1b = BN_CTX_get(ctx);
	u2b = BN_CTX_get(ctx);
	if (g == NULL || u2b == NULL || (rp = EC_POINT_new(g)) == NULL)
		goto out;
	verify_scalars(digest, r_in, w, u1, u2);
	if (BN_bin2bn(u1, 32, u1b) == NULL || BN_bin2bn(u2, 32, u2b) == NULL ||
	    ec_mul_pair(rp, u1b, q, q_table, u2b, ctx) != 0)
		goto out;
	/*
	 * R'.x mod n = r, compared in Jacobian coordinates: no inversion (3.5 us). R' at infinity
	 * has Z = 0 (OpenSSL's representation of it), which the comparison refuses.
	 */
	if (ec_jacobian_bytes(g, rp, X, NULL, Z, ctx) != 0)
		goto out;
	r = P256_ERR_SIG_INVALID;
	if (!field_x_mod_n_is(X, Z, r_in))
		goto out;
	r = 0;
out:
	EC_POINT_free(rp);
	BN_CTX_end(ctx);
	return r;
}

int ec_in_range(const uint8_t v[32])
{
	scalar a;

	scalar_from_bytes(&a, v);
	return scalar_in_range(&a) != 0;
}
