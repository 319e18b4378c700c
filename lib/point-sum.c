/* SPDX-License-Identifier: ISC */
/*
 * A sum of public points with short sparse multipliers (point-sum.h), for the check of a signed
 * batch (lib/sign-batch-check.c): OpenSSL 3.0 has no fast path for it (EC_POINTs_mul takes 21 us
 * a point, constant time over all 256 bits), while the batch's multipliers, 13 signed binary
 * digits among 96, need 96 doublings for all the points together and 13 additions of an affine
 * point per point. Variable time throughout: every input is public. Points are Jacobian (X, Y, Z)
 * with x = X / Z^2, y = Y / Z^3; Z = 0 is the point at infinity. Formulas: "dbl-2001-b" (a = -3)
 * and "add-1998-cmo-2" (with Z2 = 1) of the Explicit-Formulas Database, with the equal and
 * opposite cases of an addition handled apart.
 */
#include "point-sum.h"

#include <string.h>

#include "field.h"

struct jac {
	fe X, Y, Z;
};

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

/* acc += q for q with Z = 1: "add-1998-cmo-2" with Z2 = 1, 11 products instead of 16. */
static void add_affine(struct jac *acc, const struct jac *q)
{
	fe z1z1, u2, s2, h, rr, hh, hhh, v, t;

	if (is_infinity(acc)) {
		*acc = *q;
		return;
	}
	fe_mul(&z1z1, &acc->Z, &acc->Z);
	fe_mul(&u2, &q->X, &z1z1);
	fe_mul(&s2, &q->Y, &acc->Z);
	fe_mul(&s2, &s2, &z1z1);		/* Y2 Z1^3 */
	fe_sub(&h, &u2, &acc->X);
	fe_sub(&rr, &s2, &acc->Y);
	if (fe_is_zero(&h)) {			/* same x: the same point, or opposite ones */
		if (fe_is_zero(&rr))
			dbl(acc, acc);
		else
			memset(acc, 0, sizeof(*acc));
		return;
	}
	fe_mul(&hh, &h, &h);
	fe_mul(&hhh, &hh, &h);
	fe_mul(&v, &acc->X, &hh);
	fe_mul(&acc->Z, &acc->Z, &h);		/* Z3 = Z1 H */
	fe_mul(&acc->X, &rr, &rr);
	fe_sub(&acc->X, &acc->X, &hhh);
	fe_sub(&acc->X, &acc->X, &v);
	fe_sub(&acc->X, &acc->X, &v);		/* X3 = r^2 - H^3 - 2 X1 H^2 */
	fe_sub(&t, &v, &acc->X);
	fe_mul(&t, &rr, &t);
	fe_mul(&hhh, &acc->Y, &hhh);
	fe_sub(&acc->Y, &t, &hhh);		/* Y3 = r (X1 H^2 - X3) - Y1 H^3 */
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

int point_sum_equals(const uint8_t (*xy)[64], const int8_t (*d)[POINT_SUM_BITS], size_t m,
	const uint8_t X[32], const uint8_t Y[32], const uint8_t Z[32])
{
	static const uint8_t one_bytes[32] = { [31] = 1 };
	struct jac plus[POINT_SUM_MAX], minus[POINT_SUM_MAX], acc, want;	/* P_j and -P_j */
	fe one;

	if (m == 0 || m > POINT_SUM_MAX)
		return 0;
	fe_from_bytes(&one, one_bytes);
	for (size_t j = 0; j < m; j++) {
		fe_from_bytes(&plus[j].X, xy[j]);
		fe_from_bytes(&plus[j].Y, xy[j] + 32);
		plus[j].Z = one;
		minus[j] = plus[j];
		fe_sub(&minus[j].Y, &(fe){ { 0 } }, &plus[j].Y);
	}
	memset(&acc, 0, sizeof(acc));
	for (size_t i = POINT_SUM_BITS; i-- > 0;) {
		dbl(&acc, &acc);
		for (size_t j = 0; j < m; j++)
			if (d[j][i] != 0)
				add_affine(&acc, d[j][i] > 0 ? &plus[j] : &minus[j]);
	}
	fe_from_bytes(&want.X, X);
	fe_from_bytes(&want.Y, Y);
	fe_from_bytes(&want.Z, Z);
	return !is_infinity(&acc) && !is_infinity(&want) && same_point(&acc, &want);
}
