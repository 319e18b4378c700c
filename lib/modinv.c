/* SPDX-License-Identifier: ISC */
/*
 * Bernstein-Yang safegcd inversion. The half-delta divstep (delta starts at 1/2) on (f, g), with f
 * odd:
 *
 *     delta > 0 and g odd:  (delta, f, g) -> (1 - delta, g, (g - f) / 2)
 *     g odd:                                 (1 + delta, f, (g + f) / 2)
 *     g even:                                (1 + delta, f, g / 2)
 *
 * From f = m, g = a, after enough divsteps g = 0 and f = +-gcd(m, a) = +-1. 590 divsteps suffice
 * for every 0 <= a < m < 2^256: the bound proven for this variant by the convex-hull computation
 * published with libsecp256k1's safegcd (doc/safegcd_implementation.md, and the proofs of
 * github.com/sipa/safegcd-bounds); the paper's own bound for its delta = 1 variant (Theorem 11.2)
 * is 741. The divsteps run in 10 batches of 59: a batch decides its steps from the low 64 bits of
 * f and g alone and records them as a 2x2 matrix T of 64-bit integers, which is then applied to
 * the full f, g and to the Bezout coefficients d, e (with d*a = f, e*a = g mod m), two 4x5-limb
 * products instead of 59 passes over full-size numbers.
 *
 * Numbers in this file are five signed 62-bit limbs, value = sum v[i] 2^(62 i); "normalised"
 * means v[0..3] in [0, 2^62) and v[4] holding the sign. The spare bits take the carries of the
 * matrix products. Signed right shifts are arithmetic (gcc and clang define them so).
 */
#include "modinv.h"

#include <string.h>

__extension__ typedef __int128 i128;

#define M62 (((uint64_t)1 << 62) - 1)
#define BATCHES 10
#define STEPS 59

const struct modinv_modulus MODINV_N = {
	{ 0x33b9cac2fc632551, 0x339beab69c5e7a13, 0x3ffffffffffffffb, 0x3fffffc00000003f, 0xff },
	0x332e375511ff43b1
};

const struct modinv_modulus MODINV_P = {
	{ 0x3fffffffffffffff, 0x3ffffffff, 0, 0x3fffffc000000040, 0xff },
	0x3fffffffffffffff
};

struct num {
	int64_t v[5];
};

/* The transition matrix of a batch: 2^62 (f', g') = (u f + v g, q f + r g). */
struct trans {
	int64_t u, v, q, r;
};

static void from_limbs(struct num *s, const uint64_t a[4])
{
	s->v[0] = (int64_t)(a[0] & M62);
	s->v[1] = (int64_t)(((a[0] >> 62) | (a[1] << 2)) & M62);
	s->v[2] = (int64_t)(((a[1] >> 60) | (a[2] << 4)) & M62);
	s->v[3] = (int64_t)(((a[2] >> 58) | (a[3] << 6)) & M62);
	s->v[4] = (int64_t)(a[3] >> 56);
}

/* For a normalised s in [0, 2^256). */
static void to_limbs(uint64_t a[4], const struct num *s)
{
	const uint64_t *v = (const uint64_t *)s->v;

	a[0] = v[0] | (v[1] << 62);
	a[1] = (v[1] >> 2) | (v[2] << 60);
	a[2] = (v[2] >> 4) | (v[3] << 58);
	a[3] = (v[3] >> 6) | (v[4] << 56);
}

/*
 * STEPS divsteps on the low words of f and g. Every choice is a mask: odd = g is odd, swap = odd
 * and delta > 0. eta is delta - 1/2, an integer, so delta > 0 is eta >= 0, its sign bit clear.
 * The matrix starts at 8 times the identity, so that after 59 steps it maps to 2^62 (f', g'),
 * the limb size; |u| + |v| and |q| + |r| at most double per step, so they stay within 2^62.
 * Each step loses the top valid bit of g (the shift), which leaves bit 0 exact for 59 steps.
 */
static uint64_t divsteps(uint64_t eta, uint64_t f, uint64_t g, struct trans *t)
{
	uint64_t u = 8, v = 0, q = 0, r = 8, odd, swap, x;

	for (int i = 0; i < STEPS; i++) {
		odd = (uint64_t)0 - (g & 1);
		swap = odd & ((eta >> 63) - 1);
		/* g += f, or g -= f when swapping (then f takes the old g); the same for the rows */
		x = (f ^ g) & swap;
		g += ((f ^ swap) - swap) & odd;
		f ^= x;
		x = (u ^ q) & swap;
		q += ((u ^ swap) - swap) & odd;
		u ^= x;
		x = (v ^ r) & swap;
		r += ((v ^ swap) - swap) & odd;
		v ^= x;
		/* eta -> -eta when swapping, else eta + 1 */
		eta = ((eta ^ swap) - swap) + (~swap & 1);
		/* g halves; the f row doubles instead, to keep the common factor 2^i */
		g >>= 1;
		u <<= 1;
		v <<= 1;
	}
	t->u = (int64_t)u;
	t->v = (int64_t)v;
	t->q = (int64_t)q;
	t->r = (int64_t)r;
	return eta;
}

/* (f, g) = T (f, g) / 2^62, exact: the divsteps made the low 62 bits of both products zero. */
static void update_fg(struct num *f, struct num *g, const struct trans *t)
{
	i128 cf = (i128)t->u * f->v[0] + (i128)t->v * g->v[0];
	i128 cg = (i128)t->q * f->v[0] + (i128)t->r * g->v[0];

	cf >>= 62;
	cg >>= 62;
	for (int i = 1; i < 5; i++) {
		cf += (i128)t->u * f->v[i] + (i128)t->v * g->v[i];
		cg += (i128)t->q * f->v[i] + (i128)t->r * g->v[i];
		f->v[i - 1] = (int64_t)((uint64_t)cf & M62);
		g->v[i - 1] = (int64_t)((uint64_t)cg & M62);
		cf >>= 62;
		cg >>= 62;
	}
	f->v[4] = (int64_t)cf;
	g->v[4] = (int64_t)cg;
}

/*
 * s = s + m when s < 0, then s - m when that is >= m: for s in (-m, 2m) with carries to
 * propagate, the result is s mod m, normalised. If `negate` is all ones, s is negated first.
 */
static void reduce(struct num *s, int64_t negate, const struct modinv_modulus *m)
{
	struct num t;
	int64_t c = 0, mask;

	for (int i = 0; i < 5; i++) {
		c += (s->v[i] ^ negate) - negate;
		s->v[i] = i < 4 ? (int64_t)((uint64_t)c & M62) : c;
		c >>= 62;
	}
	mask = s->v[4] >> 63;
	c = 0;
	for (int i = 0; i < 5; i++) {
		c += s->v[i] + (m->m[i] & mask);
		s->v[i] = i < 4 ? (int64_t)((uint64_t)c & M62) : c;
		c >>= 62;
	}
	c = 0;
	for (int i = 0; i < 5; i++) {
		c += s->v[i] - m->m[i];
		t.v[i] = i < 4 ? (int64_t)((uint64_t)c & M62) : c;
		c >>= 62;
	}
	mask = ~(t.v[4] >> 63);		/* s >= m */
	for (int i = 0; i < 5; i++)
		s->v[i] ^= (s->v[i] ^ t.v[i]) & mask;
}

/*
 * (d, e) = T (d, e) / 2^62 mod m for d, e in [0, m). Adding md m and me m, with md, me in
 * [0, 2^62) chosen so that the low 62 bits cancel, makes the division exact; since |u| + |v| <=
 * 2^62, the quotient is in (-m, 2m), and reduce() brings it back to [0, m).
 */
static void update_de(struct num *d, struct num *e, const struct trans *t,
	const struct modinv_modulus *m)
{
	i128 cd = (i128)t->u * d->v[0] + (i128)t->v * e->v[0];
	i128 ce = (i128)t->q * d->v[0] + (i128)t->r * e->v[0];
	int64_t md = (int64_t)((0 - m->m_inv62 * (uint64_t)cd) & M62);
	int64_t me = (int64_t)((0 - m->m_inv62 * (uint64_t)ce) & M62);

	cd += (i128)md * m->m[0];
	ce += (i128)me * m->m[0];
	cd >>= 62;
	ce >>= 62;
	for (int i = 1; i < 5; i++) {
		cd += (i128)t->u * d->v[i] + (i128)t->v * e->v[i] + (i128)md * m->m[i];
		ce += (i128)t->q * d->v[i] + (i128)t->r * e->v[i] + (i128)me * m->m[i];
		d->v[i - 1] = (int64_t)((uint64_t)cd & M62);
		e->v[i - 1] = (int64_t)((uint64_t)ce & M62);
		cd >>= 62;
		ce >>= 62;
	}
	d->v[4] = (int64_t)cd;
	e->v[4] = (int64_t)ce;
	reduce(d, 0, m);
	reduce(e, 0, m);
}

void modinv(uint64_t r[4], const uint64_t a[4], const struct modinv_modulus *m)
{
	struct num d = { { 0 } }, e = { { 1 } }, f, g;
	struct trans t;
	uint64_t eta = 0;

	memcpy(f.v, m->m, sizeof(f.v));
	from_limbs(&g, a);
	for (int i = 0; i < BATCHES; i++) {
		eta = divsteps(eta, (uint64_t)f.v[0] | ((uint64_t)f.v[1] << 62),
			(uint64_t)g.v[0] | ((uint64_t)g.v[1] << 62), &t);
		update_de(&d, &e, &t, m);
		update_fg(&f, &g, &t);
	}
	/* f = +-1 (or f = m and d = 0 for a = 0): a^-1 = d f, d negated when f is negative */
	reduce(&d, f.v[4] >> 63, m);
	to_limbs(r, &d);
	explicit_bzero(&d, sizeof(d));
	explicit_bzero(&e, sizeof(e));
	explicit_bzero(&f, sizeof(f));
	explicit_bzero(&g, sizeof(g));
	explicit_bzero(&t, sizeof(t));
}
