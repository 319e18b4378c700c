/* SPDX-License-Identifier: ISC */
/*
 * The safegcd inversion of lib/modinv.c against OpenSSL's BN_mod_inverse, modulo n or p (the
 * argument, one test each so that they run in parallel): 500,000 random inputs per modulus from
 * a fixed seed, the edges 0, 1, 2, m-1, m-2, every power of two and every 2^k - 1, values made of
 * long runs of zero and one bits, and inputs constructed to need many divsteps (their count is
 * checked here by a reference divstep loop on BIGNUMs). For n also the scalar_inv wrapper.
 */
#include <openssl/bn.h>

#include "modinv.h"
#include "scalar.h"
#include "testutil.h"

#define RANDOM_PER_MODULUS 500000

static BN_CTX *ctx;

struct modulus {
	const struct modinv_modulus *mi;
	BIGNUM *bn;
};

/*
 * Inputs that need the most divsteps we could construct, for the proven bound of 590 (random
 * inputs need about 517, rarely more than 535): a beam search over the bits of the input from the
 * least significant up (the first i divsteps depend only on the low i bits), keeping the 160
 * prefixes whose random completions needed the most divsteps. The counts are checked below.
 */
static const struct {
	int modulus;		/* 0: n, 1: p */
	const char *hex;
	int steps;
} HARD[] = {
	{ 0, "e9a5778e8bba63339474f1bb7da911a0168eca127b3b46616ee5d1c487ac1392", 556 },
	{ 0, "5a6f3ac8ccd3fb452c4a7cd9110c77c45473bf319e620cdafd46f89ae5eaff82", 555 },
	{ 1, "ff38e31fb4fa96c647a78aac3943c17e17eec39f2b04a51a9f9b59b1f24ba036", 558 },
	{ 1, "672be2ae75ca4d1224ce65bbf738793848475b9ba82a6b4e65f6f2214796c209", 553 },
};

static BIGNUM *bn_of(const uint8_t b[32])
{
	BIGNUM *x = BN_bin2bn(b, 32, NULL);

	if (x == NULL)
		test_fatal("BN_bin2bn");
	return x;
}

/* Checks the inversion of the BIGNUM a (0 <= a < m) against BN_mod_inverse, also in place. */
static void check(const struct modulus *m, const BIGNUM *a)
{
	uint8_t in[32], want[32], got[32];
	scalar x, r;
	BIGNUM *inv = BN_new();

	if (inv == NULL || BN_bn2binpad(a, in, 32) != 32)
		test_fatal("BN_bn2binpad");
	if (BN_is_zero(a))
		memset(want, 0, 32);
	else if (BN_mod_inverse(inv, a, m->bn, ctx) == NULL || BN_bn2binpad(inv, want, 32) != 32)
		test_fatal("BN_mod_inverse");
	scalar_from_bytes(&x, in);
	modinv(r.v, x.v, m->mi);
	scalar_to_bytes(got, &r);
	CHECK_MEM(got, want, 32);
	r = x;
	modinv(r.v, r.v, m->mi);		/* in place */
	scalar_to_bytes(got, &r);
	CHECK_MEM(got, want, 32);
	BN_free(inv);
}

/* Checks a mod m, for any a < 2^256 given as a BIGNUM. */
static void check_reduced(const struct modulus *m, const BIGNUM *a)
{
	BIGNUM *t = BN_new();

	if (t == NULL || BN_nnmod(t, a, m->bn, ctx) != 1)
		test_fatal("BN_nnmod");
	check(m, t);
	BN_free(t);
}

static void check_random(const struct modulus *m, struct prng *g)
{
	uint8_t b[32];
	BIGNUM *a;

	for (long i = 0; i < RANDOM_PER_MODULUS; i++) {
		prng_bytes(g, b, 32);
		a = bn_of(b);
		check_reduced(m, a);
		BN_free(a);
	}
}

/* 0, 1, 2, m-1, m-2, 2^k and 2^k - 1, and runs of ones from bit lo to bit hi - 1 with their
 * complements (long runs of zeros), each reduced mod m. */
static void check_edges(const struct modulus *m)
{
	BIGNUM *a = BN_new(), *ones = BN_new(), *all = BN_new();

	if (a == NULL || ones == NULL || all == NULL || !BN_set_word(all, 1) ||
	    !BN_lshift(all, all, 256) || !BN_sub_word(all, 1))
		test_fatal("BN_new");
	for (unsigned long w = 0; w <= 2; w++) {
		BN_set_word(a, w);
		check(m, a);
		BN_sub(a, m->bn, a);
		if (w > 0)
			check(m, a);
	}
	for (int k = 0; k < 256; k++) {
		BN_zero(a);
		BN_set_bit(a, k);
		check_reduced(m, a);
		BN_sub_word(a, 1);
		check_reduced(m, a);
	}
	for (int lo = 0; lo < 256; lo += 4) {
		for (int hi = lo + 16; hi <= 256; hi += 12) {
			BN_zero(ones);
			for (int i = lo; i < hi; i++)
				BN_set_bit(ones, i);
			check_reduced(m, ones);
			BN_sub(a, all, ones);
			check_reduced(m, a);
		}
	}
	BN_free(a);
	BN_free(ones);
	BN_free(all);
}

/* The number of half-delta divsteps (modinv.c) that take (m, a) to g = 0, on BIGNUMs. */
static int reference_steps(const BIGNUM *m, const BIGNUM *a)
{
	BIGNUM *f = BN_dup(m), *g = BN_dup(a), *t = BN_new();
	int eta = 0, steps = 0;		/* eta = delta - 1/2 */

	if (f == NULL || g == NULL || t == NULL)
		test_fatal("BN_dup");
	while (!BN_is_zero(g)) {
		if (eta >= 0 && BN_is_odd(g)) {
			BN_sub(t, g, f);
			BN_copy(f, g);
			BN_copy(g, t);
			eta = -eta;
		} else {
			if (BN_is_odd(g))
				BN_add(g, g, f);
			eta++;
		}
		BN_rshift1(g, g);	/* g is even here; rshift1 of a negative BIGNUM is exact */
		steps++;
	}
	BN_free(f);
	BN_free(g);
	BN_free(t);
	return steps;
}

static void check_hard(const struct modulus *m, int which)
{
	for (size_t i = 0; i < sizeof(HARD) / sizeof(HARD[0]); i++) {
		uint8_t b[32];
		BIGNUM *a;

		if (HARD[i].modulus != which)
			continue;
		hex_exact(HARD[i].hex, b, 32);
		a = bn_of(b);
		CHECK(BN_cmp(a, m->bn) < 0);
		CHECK_INT(reference_steps(m->bn, a), HARD[i].steps);
		check(m, a);
		BN_free(a);
	}
}

/* The scalar wrappers are the mod-n inversions. */
static void check_scalar_wrappers(struct prng *g)
{
	for (int i = 0; i < 1000; i++) {
		scalar a, want, got;
		uint8_t b[32];

		prng_bytes(g, b, 32);
		scalar_from_bytes(&a, b);
		scalar_reduce(&a, &a);
		modinv(want.v, a.v, &MODINV_N);
		scalar_inv(&got, &a);
		CHECK_MEM(got.v, want.v, sizeof(got.v));
	}
}

int main(int argc, char **argv)
{
	struct prng g = { 0x1a7e65 };
	struct modulus m;
	int which;

	if (argc != 2 || (strcmp(argv[1], "n") != 0 && strcmp(argv[1], "p") != 0)) {
		fprintf(stderr, "usage: test-inverse n|p\n");
		return 2;
	}
	which = argv[1][0] == 'p';
	if ((ctx = BN_CTX_new()) == NULL)
		test_fatal("BN_CTX_new");
	m.mi = which ? &MODINV_P : &MODINV_N;
	m.bn = bn_of(which ? TEST_P : TEST_N);
	test_case = which ? "mod p" : "mod n";
	g.s += (uint64_t)which;
	check_edges(&m);
	check_random(&m, &g);
	check_hard(&m, which);
	if (!which)
		check_scalar_wrappers(&g);
	BN_free(m.bn);
	BN_CTX_free(ctx);
	return test_done(which ? "test-inverse p" : "test-inverse n");
}
