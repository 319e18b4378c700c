/* SPDX-License-Identifier: ISC */
/*
 * Montgomery multiplication modulo p = 2^256 - 2^224 + 2^192 + 2^96 - 1 (R = 2^256) on four
 * 64-bit limbs, least significant first, by the textbook word-by-word method (CIOS); p = -1
 * mod 2^64 makes the reduction factor of each word the word itself (-p^-1 mod 2^64 = 1). A
 * signature needs three to five products; the check of a batch (lib/point-sum.c) a few thousand,
 * which the plain loops still do faster than OpenSSL's generic point code (docs/performance.md).
 */
#include "field.h"

#include <string.h>

#include "modinv.h"
#include "scalar.h"

__extension__ typedef unsigned __int128 u128;

static const uint64_t P[4] = {
	0xffffffffffffffff, 0x00000000ffffffff, 0x0000000000000000, 0xffffffff00000001
};
/* R^2 mod p */
static const uint64_t R2[4] = {
	0x0000000000000003, 0xfffffffbffffffff, 0xfffffffffffffffe, 0x00000004fffffffd
};

/* d = a - p; returns the borrow (1 when a < p). */
static inline uint64_t sub_p(uint64_t d[4], const uint64_t a[4])
{
	uint64_t borrow = 0;

#pragma GCC unroll 4
	for (int j = 0; j < 4; j++) {
		u128 c = (u128)a[j] - P[j] - borrow;
		d[j] = (uint64_t)c;
		borrow = (uint64_t)(c >> 64) & 1;
	}
	return borrow;
}

/*
 * r = t - p when that does not borrow or above (the bit above t's four words) is set, else t:
 * t below 2p reduced below p. d is scratch.
 */
static inline void reduce_once(uint64_t r[4], const uint64_t t[4], uint64_t above, uint64_t d[4])
{
	uint64_t mask = (uint64_t)0 - (above | (sub_p(d, t) ^ 1));

#pragma GCC unroll 4
	for (int j = 0; j < 4; j++)
		r[j] = (d[j] & mask) | (t[j] & ~mask);
}

/*
 * r = a * b / R mod p for a, b < p; r may alias a or b. t and d are its scratch, left for the
 * caller to wipe. Unrolled: the loops as written took 65 ns a product, unrolled 31.
 */
static inline __attribute__((always_inline)) void mont_product(uint64_t r[4], const uint64_t a[4],
	const uint64_t b[4], uint64_t t[6], uint64_t d[4])
{
	u128 c;

	memset(t, 0, 6 * sizeof(t[0]));
#pragma GCC unroll 4
	for (int i = 0; i < 4; i++) {
		uint64_t carry = 0, m;

#pragma GCC unroll 4
		for (int j = 0; j < 4; j++) {		/* t += a[i] * b */
			c = (u128)a[i] * b[j] + t[j] + carry;
			t[j] = (uint64_t)c;
			carry = (uint64_t)(c >> 64);
		}
		c = (u128)t[4] + carry;
		t[4] = (uint64_t)c;
		t[5] = (uint64_t)(c >> 64);
		m = t[0];				/* t + m p = 0 mod 2^64 */
		c = (u128)m * P[0] + t[0];
		carry = (uint64_t)(c >> 64);
#pragma GCC unroll 3
		for (int j = 1; j < 4; j++) {		/* t = (t + m p) / 2^64 */
			c = (u128)m * P[j] + t[j] + carry;
			t[j - 1] = (uint64_t)c;
			carry = (uint64_t)(c >> 64);
		}
		c = (u128)t[4] + carry;
		t[3] = (uint64_t)c;
		t[4] = t[5] + (uint64_t)(c >> 64);
	}
	reduce_once(r, t, t[4], d);		/* t < 2p */
}

/* mont_product for secret values: its scratch wiped. */
static void mont_mul(uint64_t r[4], const uint64_t a[4], const uint64_t b[4])
{
	uint64_t t[6], d[4];

	mont_product(r, a, b, t, d);
	explicit_bzero(t, sizeof(t));
	explicit_bzero(d, sizeof(d));
}

/*
 * x = X / Z^2 and, if y is not NULL, y = Y / Z^3 from zi = Z^-1 R, the part of field_affine and
 * field_affine_batch after the inversion. zi is left as it was.
 */
static void affine_from_inverse(uint8_t x[32], uint8_t *y, const uint8_t X[32], const uint8_t *Y,
	const scalar *zi)
{
	scalar zi2, v;

	mont_mul(zi2.v, zi->v, zi->v);		/* Z^-2 R */
	scalar_from_bytes(&v, X);
	mont_mul(v.v, v.v, zi2.v);		/* X / Z^2 */
	scalar_to_bytes(x, &v);
	if (y != NULL) {
		mont_mul(zi2.v, zi2.v, zi->v);	/* Z^-3 R */
		scalar_from_bytes(&v, Y);
		mont_mul(v.v, v.v, zi2.v);	/* Y / Z^3 */
		scalar_to_bytes(y, &v);
	}
	scalar_wipe(&zi2);
	scalar_wipe(&v);
}

void field_affine(uint8_t x[32], uint8_t *y, const uint8_t X[32], const uint8_t *Y,
	const uint8_t Z[32])
{
	scalar zi;	/* values mod p, in scalar's limbs (its byte conversions do not reduce) */

	scalar_from_bytes(&zi, Z);
	modinv(zi.v, zi.v, &MODINV_P);
	mont_mul(zi.v, zi.v, R2);		/* Z^-1 R */
	affine_from_inverse(x, y, X, Y, &zi);
	scalar_wipe(&zi);
}

void field_affine_batch(uint8_t (*x)[32], uint8_t (*y)[32], const uint8_t (*X)[32],
	const uint8_t (*Y)[32], const uint8_t (*Z)[32], size_t m)
{
	/* z[j] = Z_j R, c[j] = Z_0 ... Z_j R: the prefix products, in Montgomery form */
	scalar z[FIELD_BATCH_MAX], c[FIELD_BATCH_MAX], t, zi;

	if (m == 0 || m > FIELD_BATCH_MAX)
		return;
	for (size_t j = 0; j < m; j++) {
		scalar_from_bytes(&z[j], Z[j]);
		mont_mul(z[j].v, z[j].v, R2);
		if (j == 0)
			c[0] = z[0];
		else
			mont_mul(c[j].v, c[j - 1].v, z[j].v);
	}
	modinv(t.v, c[m - 1].v, &MODINV_P);	/* (c R)^-1 = c^-1 R^-1 */
	mont_mul(t.v, t.v, R2);
	mont_mul(t.v, t.v, R2);			/* c^-1 R */
	for (size_t j = m; j-- > 0;) {
		if (j > 0) {
			mont_mul(zi.v, t.v, c[j - 1].v);	/* Z_j^-1 R */
			mont_mul(t.v, t.v, z[j].v);		/* (Z_0 ... Z_{j-1})^-1 R */
		} else
			zi = t;
		affine_from_inverse(x[j], y != NULL ? y[j] : NULL, X[j], y != NULL ? Y[j] : NULL,
		    &zi);
	}
	explicit_bzero(z, sizeof(z));
	explicit_bzero(c, sizeof(c));
	scalar_wipe(&t);
	scalar_wipe(&zi);
}

/* 1 when c Z^2 = X mod p, for c < p and z2 = Z^2 R mod p. */
static int x_equals(const uint64_t X[4], const uint64_t z2[4], const uint64_t c[4])
{
	uint64_t t[4];

	mont_mul(t, c, z2);
	return memcmp(t, X, sizeof(t)) == 0;
}

int field_x_mod_n_is(const uint8_t X[32], const uint8_t Z[32], const uint8_t r[32])
{
	scalar x, z2, c;
	uint8_t rn[33];
	uint64_t d[4];

	scalar_from_bytes(&x, X);
	scalar_from_bytes(&z2, Z);
	if ((z2.v[0] | z2.v[1] | z2.v[2] | z2.v[3]) == 0)
		return 0;			/* the point at infinity: no x at all */
	mont_mul(z2.v, z2.v, R2);		/* Z R */
	mont_mul(z2.v, z2.v, z2.v);		/* Z^2 R */
	scalar_from_bytes(&c, r);
	if (x_equals(x.v, z2.v, c.v))
		return 1;
	/* the affine x may also be r + n, when that is below p */
	scalar_plus_n_bytes(rn, &c);
	scalar_from_bytes(&c, rn + 1);
	return rn[0] == 0 && sub_p(d, c.v) == 1 && x_equals(x.v, z2.v, c.v);
}

void fe_from_bytes(fe *r, const uint8_t a[32])
{
	scalar t;

	scalar_from_bytes(&t, a);
	mont_mul(r->v, t.v, R2);
}

void fe_to_bytes(uint8_t out[32], const fe *a)
{
	static const uint64_t one[4] = { 1, 0, 0, 0 };
	scalar t;

	mont_mul(t.v, a->v, one);
	scalar_to_bytes(out, &t);
}

/* Public values only (field.h): the scratch is not wiped, so it can stay in registers. */
void fe_mul(fe *r, const fe *a, const fe *b)
{
	uint64_t t[6], d[4];

	mont_product(r->v, a->v, b->v, t, d);
}

void fe_add(fe *r, const fe *a, const fe *b)
{
	uint64_t t[4], d[4], carry = 0;

#pragma GCC unroll 4
	for (int j = 0; j < 4; j++) {
		u128 c = (u128)a->v[j] + b->v[j] + carry;
		t[j] = (uint64_t)c;
		carry = (uint64_t)(c >> 64);
	}
	reduce_once(r->v, t, carry, d);		/* a + b < 2p */
}

void fe_sub(fe *r, const fe *a, const fe *b)
{
	uint64_t t[4], borrow = 0, carry = 0, mask;

#pragma GCC unroll 4
	for (int j = 0; j < 4; j++) {
		u128 c = (u128)a->v[j] - b->v[j] - borrow;
		t[j] = (uint64_t)c;
		borrow = (uint64_t)(c >> 64) & 1;
	}
	mask = (uint64_t)0 - borrow;		/* a < b: add p back */
#pragma GCC unroll 4
	for (int j = 0; j < 4; j++) {
		u128 c = (u128)t[j] + (P[j] & mask) + carry;
		r->v[j] = (uint64_t)c;
		carry = (uint64_t)(c >> 64);
	}
}

int fe_is_zero(const fe *a)
{
	return (a->v[0] | a->v[1] | a->v[2] | a->v[3]) == 0;
}
