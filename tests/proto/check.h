/* SPDX-License-Identifier: ISC */
#ifndef P256_TEST_CHECK_H
#define P256_TEST_CHECK_H

#include <stdio.h>

/*
 * The protocol tests' assertion: reports the failed condition with its place and the case being
 * tested (test_case, set by the test) and counts it; main returns non-zero if any failed.
 */
static int test_failures;
static const char *test_case = "";

#define CHECK(cond) do { \
		if (!(cond)) { \
			fprintf(stderr, "%s:%d: [%s] check failed: %s\n", __FILE__, __LINE__, \
			    test_case, #cond); \
			test_failures++; \
		} \
	} while (0)

#endif
