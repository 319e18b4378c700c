/* SPDX-License-Identifier: ISC */
#include "scalar.h"

#include <string.h>

__extension__ typedef unsigned __int128 u128;

/* n, the order of the P-256 base point. */
static const uint64_t N[4] = {
	0xf3b9cac2fc632551, 0xbce6faada7179e84, 0xffffffffffffffff, 0xffffffff00000000
};
/* -n^-1 mod 2^64 */
static const uint64_t N0 = 0xccd1c8aaee00bc4f;
/* R^2 mod n */
static const scalar R2 = { { 0x83244c95be79eea2, 0x4699799c49bd6fa6, 0x2845b2392b6bec59,
	0x66e12d94f3d95620 } };
/* R mod n, the Montgomery form of 1 */
static const scalar ONE_MONT = { { 0x0c46353d039cdaaf, 0x4319055258e8617b, 0, 0xffffffff } };

void scalar_from_bytes(scalar *a, const uint8_t in[32])
{
	for (int i = 0; i < 4; i++) {
		uint64_t w = 0;
		for (int j = 0; j < 8; j++)
			w = (w << 8) | in[(3 - i) * 8 + j];
		a->v[i] = w;
	}
}

void scalar_to_bytes(uint8_t out[32], const scalar *a)
{
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 8; j++)
			out[(3 - i) * 8 + j] = (uint8_t)(a->v[i] >> (56 - 8 * j));
}

/* d = a - N; returns the final borrow (1 when a < N). */
static uint64_t sub_n(uint64_t d[4], const uint64_t a[4])
{
	uint64_t borrow = 0;

	for (int i = 0; i < 4; i++) {
		u128 t = (u128)a[i] - N[i] - borrow;
		d[i] = (uint64_t)t;
		borrow = (uint64_t)(t >> 64) & 1;
	}
	return borrow;
}

/* r = mask ? a : b, limb by limb. */
static void select4(uint64_t r[4], uint64_t mask, const uint64_t a[4], const uint64_t b[4])
{
	for (int i = 0; i < 4; i++)
		r[i] = (a[i] & mask) | (b[i] & ~mask);
}

/* r = a - N if (hi || a >= N) else a: the final step of addition and Montgomery reduction,
 * where the true value hi:a is below 2N. */
static void reduce_once(uint64_t r[4], const uint64_t a[4], uint64_t hi)
{
	uint64_t d[4];
	uint64_t borrow = sub_n(d, a);
	uint64_t use_d = hi | (borrow ^ 1);

	select4(r, (uint64_t)0 - use_d, d, a);
}

uint64_t scalar_in_range(const scalar *a)
{
	uint64_t d[4];
	uint64_t below_n = sub_n(d, a->v);
	uint64_t any = a->v[0] | a->v[1] | a->v[2] | a->v[3];
	uint64_t nonzero = (any | ((uint64_t)0 - any)) >> 63;

	return (uint64_t)0 - (below_n & nonzero);
}

void scalar_reduce(scalar *r, const scalar *a)
{
	reduce_once(r->v, a->v, 0);
}

void scalar_add(scalar *r, const scalar *a, const scalar *b)
{
	uint64_t s[4], carry = 0;

	for (int i = 0; i < 4; i++) {
		u128 t = (u128)a->v[i] + b->v[i] + carry;
		s[i] = (uint64_t)t;
		carry = (uint64_t)(t >> 64);
	}
	reduce_once(r->v, s, carry);
}

void scalar_mont_mul(scalar *r, const scalar *a, const scalar *b)
{
	uint64_t t[6] = { 0 };

	/* CIOS: interleave one row of a*b with one word of reduction. */
	for (int i = 0; i < 4; i++) {
		u128 c = 0;
		for (int j = 0; j < 4; j++) {
			c = (u128)a->v[j] * b->v[i] + t[j] + (uint64_t)(c >> 64);
			t[j] = (uint64_t)c;
		}
		c = (u128)t[4] + (uint64_t)(c >> 64);
		t[4] = (uint64_t)c;
		t[5] = (uint64_t)(c >> 64);

		uint64_t m = t[0] * N0;
		c = (u128)m * N[0] + t[0];
		for (int j = 1; j < 4; j++) {
			c = (u128)m * N[j] + t[j] + (uint64_t)(c >> 64);
			t[j - 1] = (uint64_t)c;
		}
		c = (u128)t[4] + (uint64_t)(c >> 64);
		t[3] = (uint64_t)c;
		t[4] = t[5] + (uint64_t)(c >> 64);
	}
	reduce_once(r->v, t, t[4]);
}

void scalar_to_mont(scalar *r, const scalar *a)
{
	scalar_mont_mul(r, a, &R2);
}

void scalar_mont_inv(scalar *r, const scalar *a)
{
	/* n - 2, most significant limb first; the exponent is public, so its nibbles may index. */
	static const uint64_t E[4] = {
		0xffffffff00000000, 0xffffffffffffffff, 0xbce6faada7179e84, 0xf3b9cac2fc63254f
	};
	scalar table[16], acc;

	table[0] = ONE_MONT;
	table[1] = *a;
	for (int i = 2; i < 16; i++)
		scalar_mont_mul(&table[i], &table[i - 1], a);

	acc = ONE_MONT;
	for (int i = 0; i < 4; i++) {
		for (int shift = 60; shift >= 0; shift -= 4) {
			for (int s = 0; s < 4; s++)
				scalar_mont_mul(&acc, &acc, &acc);
			scalar_mont_mul(&acc, &acc, &table[(E[i] >> shift) & 0xf]);
		}
	}
	*r = acc;
	explicit_bzero(table, sizeof(table));
	explicit_bzero(&acc, sizeof(acc));
}

void scalar_plus_n_bytes(uint8_t out[33], const scalar *a)
{
	scalar s;
	uint64_t carry = 0;

	for (int i = 0; i < 4; i++) {
		u128 t = (u128)a->v[i] + N[i] + carry;
		s.v[i] = (uint64_t)t;
		carry = (uint64_t)(t >> 64);
	}
	out[0] = (uint8_t)carry;
	scalar_to_bytes(out + 1, &s);
	scalar_wipe(&s);
}

void scalar_wipe(scalar *a)
{
	explicit_bzero(a, sizeof(*a));
}
