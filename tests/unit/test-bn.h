/* SPDX-License-Identifier: ISC */
#ifndef P256SIGN_TEST_BN_H
#define P256SIGN_TEST_BN_H

/* 32-byte big-endian values to and from OpenSSL's BIGNUMs, for the tests that build signatures
 * and points with OpenSSL's arithmetic; a failure ends the test. */

#include <openssl/bn.h>
#include <stdint.h>

#include "testutil.h"

static inline BIGNUM *test_bn(const uint8_t b[32])
{
	BIGNUM *x = BN_bin2bn(b, 32, NULL);

	if (x == NULL)
		test_fatal("BN_bin2bn");
	return x;
}

static inline void test_bn_put(uint8_t out[32], const BIGNUM *x)
{
	if (BN_bn2binpad(x, out, 32) != 32)
		test_fatal("BN_bn2binpad");
}

#endif
