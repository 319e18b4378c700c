/* SPDX-License-Identifier: ISC */
#ifndef P256_MODINV_H
#define P256_MODINV_H

#include <stdint.h>

/*
 * Modular inversion by Bernstein and Yang's divsteps ("Fast constant-time gcd computation and
 * modular inversion", 2019), for an odd modulus below 2^256 on four 64-bit limbs (least
 * significant first). docs/signing.md describes the algorithm and why it is constant time.
 */

/* An odd modulus m < 2^256 in five signed 62-bit limbs, and m^-1 mod 2^62. */
struct modinv_modulus {
	int64_t m[5];
	uint64_t m_inv62;
};

/* n, the order of the P-256 base point, and p, the field prime. */
extern const struct modinv_modulus MODINV_N, MODINV_P;

/*
 * r = a^-1 mod m for a < m, and r = 0 for a = 0. Constant time: a fixed 590 divsteps, no branch
 * or memory index depends on a. r may alias a.
 */
void modinv(uint64_t r[4], const uint64_t a[4], const struct modinv_modulus *m);

#endif
