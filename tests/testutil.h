/* SPDX-License-Identifier: ISC */
#ifndef P256_TESTUTIL_H
#define P256_TESTUTIL_H

/*
 * Shared by the C tests: failure counting checks that keep going after a failure (naming the case
 * being tested, test_case, when a test sets it), hex decoding of test vectors and a fixed-seed
 * PRNG (splitmix64) so that every random test is reproducible.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hex.h"

static int test_failures;
static const char *test_case __attribute__((unused)) = "";

#define CHECK(cond) \
	do { \
		if (!(cond)) { \
			fprintf(stderr, "%s:%d: [%s] check failed: %s\n", __FILE__, __LINE__, \
				test_case, #cond); \
			test_failures++; \
		} \
	} while (0)

/* Two integer expressions (error codes, lengths) that must be equal. */
#define CHECK_INT(got, want) \
	do { \
		long long got_ = (long long)(got), want_ = (long long)(want); \
		if (got_ != want_) { \
			fprintf(stderr, "%s:%d: %s = %lld, expected %s = %lld\n", __FILE__, \
				__LINE__, #got, got_, #want, want_); \
			test_failures++; \
		} \
	} while (0)

/* Two byte strings of length n that must be equal. */
#define CHECK_MEM(got, want, n) \
	do { \
		if (memcmp((got), (want), (n)) != 0) { \
			fprintf(stderr, "%s:%d: %s differs from %s\n", __FILE__, __LINE__, #got, \
				#want); \
			test_failures++; \
		} \
	} while (0)

/* Prints the verdict; the return value is the test program's exit status. */
static inline int test_done(const char *name)
{
	if (test_failures != 0) {
		fprintf(stderr, "%s: %d check(s) failed\n", name, test_failures);
		return 1;
	}
	printf("%s: all checks passed\n", name);
	return 0;
}

/* 1 when n bytes at p are all zero (a wiped buffer). */
static inline int all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != 0)
			return 0;
	return 1;
}

/* Ends the test at once: for a broken fixture (unreadable vector file), not for a failed check. */
_Noreturn static inline void test_fatal(const char *what)
{
	fprintf(stderr, "fatal: %s\n", what);
	exit(2);
}

/* Decodes hex into a new buffer (caller frees); *len gets its length. Dies on malformed hex. */
static inline uint8_t *hex_alloc(const char *hex, size_t *len)
{
	size_t n = strlen(hex);
	uint8_t *out;

	if ((out = malloc(n / 2 + 1)) == NULL || hex_decode(hex, n, out, n / 2, len) != 0)
		test_fatal("bad hex in a test vector");
	return out;
}

/* Decodes hex of exactly n bytes into out. Dies otherwise. */
static inline void hex_exact(const char *hex, uint8_t *out, size_t n)
{
	size_t len;
	uint8_t *p = hex_alloc(hex, &len);

	if (len != n)
		test_fatal("test vector field has the wrong length");
	memcpy(out, p, n);
	free(p);
}

/* splitmix64: a tiny PRNG with a fixed seed, for reproducible random tests (not for keys). */
struct prng {
	uint64_t s;
};

static inline uint64_t prng_u64(struct prng *g)
{
	uint64_t z = (g->s += 0x9e3779b97f4a7c15);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
	return z ^ (z >> 31);
}

static inline void prng_bytes(struct prng *g, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = (uint8_t)prng_u64(g);
}

/* The P-256 field prime p, big-endian. */
static const uint8_t TEST_P[32] = {
	0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
};

/* The P-256 group order n, big-endian. */
static const uint8_t TEST_N[32] = {
	0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51
};

#endif
