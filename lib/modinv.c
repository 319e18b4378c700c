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
 * products instead of 59 passes over full-size numbers. d and e stay in (-2m, m) and are reduced
 * once, at the end.
 *
 * Numbers in this file are five signed 62-bit limbs, value = sum v[i] 2^(62 i); "normalised"
 * means v[0..3] in [0, 2^62) and v[4] holding the sign. The spare bits take the carries of the
 * matrix products. Signed right shifts are arithmetic (gcc and clang define them so). Nothing
 * here branches on or indexes by a value: the loops have fixed counts, choices are masks.
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
 * `steps` (at most 30) divsteps on the low words of f and g; t gets their matrix, with
 * 2^steps (f', g') = (u f + v g, q f + r g). Every choice is a mask: pos = delta > 0, odd = g is
 * odd, swap = both. eta is delta - 1/2, an integer, so delta > 0 is eta >= 0, its sign bit clear.
 * g gains f, or loses it when pos (that negation depends on eta alone, so it is ready before g's
 * parity is); when swapping, f then takes the old g, which is f + (g - f). The rows of the matrix
 * follow the same updates, two entries at a time: U = u + 2^32 v and Q = q + 2^32 r, exact
 * integers, since |u| + |v| and |q| + |r| at most double per step and stay within 2^30. g halves;
 * the f row doubles instead, to keep the common factor 2^i. Each step loses the top valid bit of
 * g (the shift), which leaves bit 0 exact for more steps than a batch has.
 */
static uint64_t divsteps_half(uint64_t eta, uint64_t f, uint64_t g, int steps, struct trans *t)
{
	uint64_t U = 1, Q = (uint64_t)1 << 32, pos, odd, swap;

	for (int i = 0; i < steps; i++) {
		pos = (eta >> 63) - 1;
		odd = (uint64_t)0 - (g & 1);
		swap = pos & odd;
		g += ((f ^ pos) - pos) & odd;
		Q += ((U ^ pos) - pos) & odd;
		f += g & swap;
		U += Q & swap;
		eta = (eta ^ swap) + 1;		/* -eta when swapping, else eta + 1 */
		g >>= 1;
		U <<= 1;
	}
	t->u = (int32_t)(uint32_t)U;
	t->v = (int64_t)(U - (uint64_t)t->u) >> 32;
	t->q = (int32_t)(uint32_t)Q;
	t->r = (int64_t)(Q - (uint64_t)t->q) >> 32;
	return eta;
}

/*
 * STEPS = 30 + 29 divsteps as one matrix: the second half starts from the low words that the
 * first half's matrix gives, and the product is scaled by 8 so that it maps to 2^62 (f', g'),
 * the limb size; its rows stay within 2^62 in absolute sum.
 */
static uint64_t divsteps(uint64_t eta, uint64_t f, uint64_t g, struct trans *t)
{
	struct trans a, b;
	uint64_t f2, g2;

	eta = divsteps_half(eta, f, g, 30, &a);
	f2 = ((uint64_t)a.u * f + (uint64_t)a.v * g) >> 30;
	g2 = ((uint64_t)a.q * f + (uint64_t)a.r * g) >> 30;
	eta = divsteps_half(eta, f2, g2, STEPS - 30, &b);
	t->u = 8 * (b.u * a.u + b.v * a.q);
	t->v = 8 * (b.u * a.v + b.v * a.r);
	t->q = 8 * (b.q * a.u + b.r * a.q);
	t->r = 8 * (b.q * a.v + b.r * a.r);
	return eta;
}

/*
 * (x, y) = (T (x, y) + (mx, my) m) / 2^62, with T's rows (u, v) for x and (q, r) for y: exact,
 * because the caller's mx, my make the low 62 bits cancel (for f and g they are 0: the divsteps
 * did it). Always inlined: with mx = my = 0 for f and g the compiler drops those products, which
 * a call kept (1.89 against 1.73 us per inversion in bench-sign).
 */
static inline __attribute__((always_inline)) void apply(struct num *x, struct num *y,
	const struct trans *t, int64_t mx, int64_t my, const int64_t m[5])
{
	i128 cx = (i128)t->u * x->v[0] + (i128)t->v * y->v[0] + (i128)mx * m[0];
	i128 cy = (i128)t->q * x->v[0] + (i128)t->r * y->v[0] + (i128)my * m[0];

	cx >>= 62;
	cy >>= 62;
	for (int i = 1; i < 5; i++) {
		cx += (i128)t->u * x->v[i] + (i128)t->v * y->v[i] + (i128)mx * m[i];
		cy += (i128)t->q * x->v[i] + (i128)t->r * y->v[i] + (i128)my * m[i];
		x->v[i - 1] = (int64_t)((uint64_t)cx & M62);
		y->v[i - 1] = (int64_t)((uint64_t)cy & M62);
		cx >>= 62;
		cy >>= 62;
	}
	x->v[4] = (int64_t)cx;
	y->v[4] = (int64_t)cy;
}

/* s += m when s < 0, for a normalised s; the result is normalised. */
static void add_if_negative(struct num *s, const struct modinv_modulus *m)
{
	int64_t c = 0, mask = s->v[4] >> 63;

	for (int i = 0; i < 5; i++) {
		c += s->v[i] + (m->m[i] & mask);
		s->v[i] = i < 4 ? (int64_t)((uint64_t)c & M62) : c;
		c >>= 62;
	}
}

/* s = s mod m in [0, m) for a normalised s in (-2m, m), negated first when `negate` is all ones. */
static void normalize(struct num *s, int64_t negate, const struct modinv_modulus *m)
{
	int64_t c = 0;

	add_if_negative(s, m);			/* (-m, m) */
	for (int i = 0; i < 5; i++) {
		c += (s->v[i] ^ negate) - negate;
		s->v[i] = i < 4 ? (int64_t)((uint64_t)c & M62) : c;
		c >>= 62;
	}
	add_if_negative(s, m);
}

/*
 * (d, e) = T (d, e) / 2^62 mod m, for d, e in (-2m, m), the result in the same range. md, me
 * count the multiples of m added: one for d (or e) if it is negative, which brings it into
 * (-m, m), minus the k in [0, 2^62) that makes the low 62 bits cancel, so that the division is
 * exact. As |u| + |v| <= 2^62, u (d + m) + v e is in (-2^62 m, 2^62 m), and with -k m the
 * quotient is in (-2m, m) again. No reduction is needed until the end.
 */
static void update_de(struct num *d, struct num *e, const struct trans *t,
	const struct modinv_modulus *m)
{
	uint64_t sd = (uint64_t)(d->v[4] >> 63), se = (uint64_t)(e->v[4] >> 63);
	uint64_t md = ((uint64_t)t->u & sd) + ((uint64_t)t->v & se);
	uint64_t me = ((uint64_t)t->q & sd) + ((uint64_t)t->r & se);
	/* the low 64 bits of T (d, e); m_inv62 m = 1 mod 2^62, so subtracting
	 * (m_inv62 (cd + md m) mod 2^62) from md makes cd + md m a multiple of 2^62 */
	uint64_t cd = (uint64_t)t->u * (uint64_t)d->v[0] + (uint64_t)t->v * (uint64_t)e->v[0];
	uint64_t ce = (uint64_t)t->q * (uint64_t)d->v[0] + (uint64_t)t->r * (uint64_t)e->v[0];

	md -= (m->m_inv62 * cd + md) & M62;
	me -= (m->m_inv62 * ce + me) & M62;
	apply(d, e, t, (int64_t)md, (int64_t)me, m->m);
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
		apply(&f, &g, &t, 0, 0, m->m);
	}
	/* f = +-1 (or f = m and d = 0 for a = 0): a^-1 = d f, d negated when f is negative */
	normalize(&d, f.v[4] >> 63, m);
	to_limbs(r, &d);
	explicit_bzero(&d, sizeof(d));
	explicit_bzero(&e, sizeof(e));
	explicit_bzero(&f, sizeof(f));
	explicit_bzero(&g, sizeof(g));
	explicit_bzero(&t, sizeof(t));
}
