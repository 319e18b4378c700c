/* SPDX-License-Identifier: ISC */
#ifndef P256SIGN_SHA256_H
#define P256SIGN_SHA256_H

#include <stddef.h>
#include <stdint.h>

/*
 * SHA-256 for requests and audit records, through OpenSSL with the algorithm fetched once per
 * process: with EVP_sha256(), OpenSSL 3 looks the implementation up again on every call (the
 * "implicit fetch" that crypto(7), "Performance", advises against where speed matters; the same
 * change made the RFC 6979 DRBG 1.1 us faster, docs/performance.md).
 */

struct sha256_part {
	const void *data;
	size_t len;
};

/* out = SHA-256 of the n parts one after the other. 0, or -1 when OpenSSL fails. */
int sha256_parts(const struct sha256_part *parts, size_t n, uint8_t out[32]);

/* out = SHA-256 of len bytes. 0, or -1 when OpenSSL fails. */
int sha256(const void *data, size_t len, uint8_t out[32]);

#endif
