/* SPDX-License-Identifier: ISC */
/*
 * A sum of public points with short multipliers (point-sum.h), for the check of a signed batch
 * (lib/sign-batch-check.c): OpenSSL 3.0 has no fast path for it (EC_POINTs_mul takes 21 us a
 * point, constant time over all 256 bits), while 64-bit multipliers need only 65 doublings for
 * all the points together and about 13 additions per point. Variable time throughout: every
 * input is public. Points are Jacobian (X, Y, Z) with x = X / Z^2, y = Y / Z^3; Z = 0 is the
 * point at infinity. Formulas: "dbl-2001-b" (a = -3) and "add-1998-cmo-2" of the Explicit-Formulas
 * Database, with the equal and opposite cases of an addition handled apart.
 */
#include "point-sum.h"

#include <string.h>

#include "field.h"

struct jac {
	fe X, Y, Z;
};

/* The odd multiples P, 3P, 5P, 7P of each point: every digit of a width-4 NAF is one of them. */
#define ODD 4
/* A 64-bit multiplier has at most 65 digits in width-4 NAF. */
#define DIGITS 65

static int is_infinity(const struct jac *p)
{
	return fe_is_zero(&p->Z);
}

static void dbl(struct jac *r, const struct jac *p)
{
	fe delta, gamma, beta, alpha, t, u;

	if (is_infinity(p) || fe_is_zero(&p->Y)) {	/* 2P = infinity only for y = 0 */
		memset(r, 0, sizeof(*r));
		return;
	}
	fe_mul(&delta, &p->Z, &p->Z);
	fe_mul(&gamma, &p->Y, &p->Y);
	fe_mul(&beta, &p->X, &gamma);
	fe_sub(&t, &p->X, &delta);
	fe_add(&u, &p->X, &delta);
	fe_mul(&alpha, &t, &u);
	fe_add(&t, &alpha, &alpha);
	fe_add(&alpha, &alpha, &t);		/* alpha = 3 (X - delta)(X + delta) */
	fe_add(&r->Z, &p->Y, &p->Z);
	fe_mul(&r->Z, &r->Z, &r->Z);
	fe_sub(&r->Z, &r->Z, &gamma);
	fe_sub(&r->Z, &r->Z, &delta);		/* Z3 = (Y + Z)^2 - gamma - delta */
	fe_add(&beta, &beta, &beta);
	fe_add(&beta, &beta, &beta);		/* 4 beta */
	fe_mul(&r->X, &alpha, &alpha);
	fe_sub(&r->X, &r->X, &beta);
	fe_sub(&r->X, &r->X, &beta);		/* X3 = alpha^2 - 8 beta */
	fe_sub(&t, &beta, &r->X);
	fe_mul(&gamma, &gamma, &gamma);
	fe_add(&gamma, &gamma, &gamma);
	fe_add(&gamma, &gamma, &gamma);
	fe_add(&gamma, &gamma, &gamma);		/* 8 gamma^2 */
	fe_mul(&r->Y, &alpha, &t);
	fe_sub(&r->Y, &r->Y, &gamma);		/* Y3 = alpha (4 beta - X3) - 8 gamma^2 */
}

/* r = p + q; r may alias p or q. */
static void add(struct jac *r, const struct jac *p, const struct jac *q)
{
	fe z1z1, z2z2, u1, u2, s1, s2, h, rr, hh, hhh, v, t;

	if (is_infinity(p)) {
		*r = *q;
		return;
	}
	if (is_infinity(q)) {
		*r = *p;
		return;
	}
	fe_mul(&z1z1, &p->Z, &p->Z);
	fe_mul(&z2z2, &q->Z, &q->Z);
	fe_mul(&u1, &p->X, &z2z2);
	fe_mul(&u2, &q->X, &z1z1);
	fe_mul(&s1, &p->Y, &q->Z);
	fe_mul(&s1, &s1, &z2z2);		/* Y1 Z2^3 */
	fe_mul(&s2, &q->Y, &p->Z);
	fe_mul(&s2, &s2, &z1z1);		/* Y2 Z1^3 */
	fe_sub(&h, &u2, &u1);
	fe_sub(&rr, &s2, &s1);
	if (fe_is_zero(&h)) {			/* same x: the same point, or opposite ones */
		if (fe_is_zero(&rr))
			dbl(r, p);
		else
			memset(r, 0, sizeof(*r));
		return;
	}
	fe_mul(&hh, &h, &h);
	fe_mul(&hhh, &hh, &h);
	fe_mul(&v, &u1, &hh);
	fe_mul(&t, &p->Z, &q->Z);
	fe_mul(&r->Z, &t, &h);			/* Z3 = Z1 Z2 H */
	fe_mul(&r->X, &rr, &rr);
	fe_sub(&r->X, &r->X, &hhh);
	fe_sub(&r->X, &r->X, &v);
	fe_sub(&r->X, &r->X, &v);		/* X3 = r^2 - H^3 - 2 U1 H^2 */
	fe_sub(&t, &v, &r->X);
	fe_mul(&t, &rr, &t);
	fe_mul(&s1, &s1, &hhh);
	fe_sub(&r->Y, &t, &s1);			/* Y3 = r (U1 H^2 - X3) - S1 H^3 */
}

/* The width-4 NAF of a, least significant digit first: digits 0 or odd in [-7, 7], no two
 * nonzero ones within four places. Returns the number of digits. */
static size_t naf(int8_t d[DIGITS], uint64_t a)
{
	__extension__ unsigned __int128 k = a;
	size_t i = 0;

	while (k != 0) {
		int digit = 0;

		if (k & 1) {
			digit = (int)(k & 15);
			if (digit > 7)
				digit -= 16;
			if (digit > 0)
				k -= (unsigned)digit;
			else
				k += (unsigned)-digit;
		}
		d[i++] = (int8_t)digit;
		k >>= 1;
	}
	return i;
}

/* odd[0..3] = P, 3P, 5P, 7P for the affine point xy. */
static void odd_multiples(struct jac odd[ODD], const uint8_t xy[64])
{
	static const uint8_t one[32] = { [31] = 1 };
	struct jac twice;

	fe_from_bytes(&odd[0].X, xy);
	fe_from_bytes(&odd[0].Y, xy + 32);
	fe_from_bytes(&odd[0].Z, one);
	dbl(&twice, &odd[0]);
	for (int i = 1; i < ODD; i++)
		add(&odd[i], &odd[i - 1], &twice);
}

/* acc += digit * P from P's odd multiples, for a nonzero digit. */
static void add_digit(struct jac *acc, const struct jac odd[ODD], int digit)
{
	struct jac t;

	if (digit > 0) {
		add(acc, acc, &odd[digit / 2]);
		return;
	}
	t = odd[-digit / 2];
	fe_sub(&t.Y, &(fe){ { 0 } }, &t.Y);	/* -P = (X, -Y, Z) */
	add(acc, acc, &t);
}

/* 1 when the Jacobian points p and q (neither at infinity) are the same point. */
static int same_point(const struct jac *p, const struct jac *q)
{
	fe z1z1, z2z2, a, b;

	fe_mul(&z1z1, &p->Z, &p->Z);
	fe_mul(&z2z2, &q->Z, &q->Z);
	fe_mul(&a, &p->X, &z2z2);
	fe_mul(&b, &q->X, &z1z1);
	if (memcmp(&a, &b, sizeof(a)) != 0)
		return 0;
	fe_mul(&a, &p->Y, &z2z2);
	fe_mul(&a, &a, &q->Z);
	fe_mul(&b, &q->Y, &z1z1);
	fe_mul(&b, &b, &p->Z);
	return memcmp(&a, &b, sizeof(a)) == 0;
}

int point_sum_equals(const uint8_t (*xy)[64], const uint64_t *a, size_t m, const uint8_t X[32],
	const uint8_t Y[32], const uint8_t Z[32])
{
	struct jac odd[POINT_SUM_MAX][ODD], acc, want;
	int8_t d[POINT_SUM_MAX][DIGITS];
	size_t len[POINT_SUM_MAX], top = 0;

	if (m == 0 || m > POINT_SUM_MAX)
		return 0;
	for (size_t j = 0; j < m; j++) {
		odd_multiples(odd[j], xy[j]);
		len[j] = naf(d[j], a[j]);
		if (len[j] > top)
			top = len[j];
	}
	memset(&acc, 0, sizeof(acc));
	for (size_t i = top; i-- > 0;) {
		dbl(&acc, &acc);
		for (size_t j = 0; j < m; j++)
			if (i < len[j] && d[j][i] != 0)
				add_digit(&acc, odd[j], d[j][i]);
	}
	fe_from_bytes(&want.X, X);
	fe_from_bytes(&want.Y, Y);
	fe_from_bytes(&want.Z, Z);
	return !is_infinity(&acc) && !is_infinity(&want) && same_point(&acc, &want);
}
