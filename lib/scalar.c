/* SPDX-License-Identifier: ISC */
/* Constant-time arithmetic modulo the group order n (scalar.h). */
#include "scalar.h"

#include <string.h>

#include "modinv.h"

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

/* Word arithmetic; __int128 compiles to mul/add/adc/sbb without branches. */

/* *lo = low word of a*b + c + d; returns the high word (the sum cannot exceed 128 bits). */
static inline uint64_t mac(uint64_t *lo, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	u128 t = (u128)a * b + c + d;

	*lo = (uint64_t)t;
	return (uint64_t)(t >> 64);
}

/* mac with b = N[2] = 2^64 - 1: m*2^64 - m, a shift and a subtraction instead of a multiply. */
static inline uint64_t mac_n2(uint64_t *lo, uint64_t m, uint64_t c, uint64_t d)
{
	u128 t = (((u128)m << 64) | c) + d - m;

	*lo = (uint64_t)t;
	return (uint64_t)(t >> 64);
}

/* mac with b = N[3] = 2^64 - 2^32. */
static inline uint64_t mac_n3(uint64_t *lo, uint64_t m, uint64_t c, uint64_t d)
{
	u128 t = (((u128)m << 64) | c) + d - ((u128)m << 32);

	*lo = (uint64_t)t;
	return (uint64_t)(t >> 64);
}

/* *r = a + b + carry; returns the carry out. */
static inline uint64_t adc(uint64_t *r, uint64_t a, uint64_t b, uint64_t carry)
{
	u128 t = (u128)a + b + carry;

	*r = (uint64_t)t;
	return (uint64_t)(t >> 64);
}

/* *r = a - b - borrow; returns the borrow out. */
static inline uint64_t sbb(uint64_t *r, uint64_t a, uint64_t b, uint64_t borrow)
{
	u128 t = (u128)a - b - borrow;

	*r = (uint64_t)t;
	return (uint64_t)(t >> 64) & 1;
}

/* d = a - N; returns the final borrow (1 when a < N). */
static inline uint64_t sub_n(uint64_t d[4], const uint64_t a[4])
{
	uint64_t borrow;

	borrow = sbb(&d[0], a[0], N[0], 0);
	borrow = sbb(&d[1], a[1], N[1], borrow);
	borrow = sbb(&d[2], a[2], N[2], borrow);
	return sbb(&d[3], a[3], N[3], borrow);
}

/* r = a - N if (hi || a >= N) else a, by mask: the final step of addition and Montgomery
 * reduction, where the true value hi:a3:a2:a1:a0 is below 2N. */
static inline void reduce_once(uint64_t r[4], uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
	uint64_t hi)
{
	uint64_t d0, d1, d2, d3, borrow, mask;

	borrow = sbb(&d0, a0, N[0], 0);
	borrow = sbb(&d1, a1, N[1], borrow);
	borrow = sbb(&d2, a2, N[2], borrow);
	borrow = sbb(&d3, a3, N[3], borrow);
	mask = (uint64_t)0 - (hi | (borrow ^ 1));
	r[0] = (d0 & mask) | (a0 & ~mask);
	r[1] = (d1 & mask) | (a1 & ~mask);
	r[2] = (d2 & mask) | (a2 & ~mask);
	r[3] = (d3 & mask) | (a3 & ~mask);
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
	reduce_once(r->v, a->v[0], a->v[1], a->v[2], a->v[3], 0);
}

void scalar_add(scalar *r, const scalar *a, const scalar *b)
{
	uint64_t s[4], carry;

	carry = adc(&s[0], a->v[0], b->v[0], 0);
	carry = adc(&s[1], a->v[1], b->v[1], carry);
	carry = adc(&s[2], a->v[2], b->v[2], carry);
	carry = adc(&s[3], a->v[3], b->v[3], carry);
	reduce_once(r->v, s[0], s[1], s[2], s[3], carry);
}

void scalar_sub(scalar *r, const scalar *a, const scalar *b)
{
	scalar nb;	/* n - b, in (0, n]: a + (n - b) < 2n, which scalar_add reduces */
	uint64_t borrow;

	borrow = sbb(&nb.v[0], N[0], b->v[0], 0);
	borrow = sbb(&nb.v[1], N[1], b->v[1], borrow);
	borrow = sbb(&nb.v[2], N[2], b->v[2], borrow);
	(void)sbb(&nb.v[3], N[3], b->v[3], borrow);	/* b <= n: no borrow out */
	scalar_add(r, a, &nb);
}

/* One word of Montgomery reduction: adds m*N to t0..t4 with m = t0*N0, which clears t0; *top
 * is the carry into the word above t4. */
static inline void reduce_word(uint64_t *t0, uint64_t *t1, uint64_t *t2, uint64_t *t3, uint64_t *t4,
	uint64_t *top)
{
	uint64_t m = *t0 * N0, c;

	c = mac(t0, m, N[0], *t0, 0);
	c = mac(t1, m, N[1], *t1, c);
	c = mac_n2(t2, m, *t2, c);
	c = mac_n3(t3, m, *t3, c);
	*top = adc(t4, *t4, c, *top);
}

/*
 * r = t / R mod n for the 512-bit t = t7:...:t0 < n*R. The words are separate variables and
 * every step is written out: with arrays and loops gcc -O2 keeps t in memory and runs at two
 * thirds of the speed.
 */
static inline void mont_reduce(uint64_t r[4], uint64_t t0, uint64_t t1, uint64_t t2, uint64_t t3,
	uint64_t t4, uint64_t t5, uint64_t t6, uint64_t t7)
{
	uint64_t top = 0;

	reduce_word(&t0, &t1, &t2, &t3, &t4, &top);
	reduce_word(&t1, &t2, &t3, &t4, &t5, &top);
	reduce_word(&t2, &t3, &t4, &t5, &t6, &top);
	reduce_word(&t3, &t4, &t5, &t6, &t7, &top);
	reduce_once(r, t4, t5, t6, t7, top);
}

void scalar_mont_mul(scalar *r, const scalar *a, const scalar *b)
{
	const uint64_t *x = a->v, *y = b->v;
	uint64_t t0, t1, t2, t3, t4, t5, t6, t7, c;

	c = mac(&t0, x[0], y[0], 0, 0);
	c = mac(&t1, x[0], y[1], c, 0);
	c = mac(&t2, x[0], y[2], c, 0);
	t4 = mac(&t3, x[0], y[3], c, 0);
	c = mac(&t1, x[1], y[0], t1, 0);
	c = mac(&t2, x[1], y[1], t2, c);
	c = mac(&t3, x[1], y[2], t3, c);
	t5 = mac(&t4, x[1], y[3], t4, c);
	c = mac(&t2, x[2], y[0], t2, 0);
	c = mac(&t3, x[2], y[1], t3, c);
	c = mac(&t4, x[2], y[2], t4, c);
	t6 = mac(&t5, x[2], y[3], t5, c);
	c = mac(&t3, x[3], y[0], t3, 0);
	c = mac(&t4, x[3], y[1], t4, c);
	c = mac(&t5, x[3], y[2], t5, c);
	t7 = mac(&t6, x[3], y[3], t6, c);
	mont_reduce(r->v, t0, t1, t2, t3, t4, t5, t6, t7);
}

void scalar_to_mont(scalar *r, const scalar *a)
{
	scalar_mont_mul(r, a, &R2);
}

void scalar_inv(scalar *r, const scalar *a)
{
	modinv(r->v, a->v, &MODINV_N);
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
