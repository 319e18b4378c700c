/* SPDX-License-Identifier: ISC */
#ifndef CLIENT_TESTLIB_H
#define CLIENT_TESTLIB_H

#include <stdint.h>

#include "p256sign.h"

/* What the mock-server and the real-daemon tests of libp256sign share. Failures exit the test. */

/* SHA-256 of "message I": a distinct digest per index. */
void test_digest(unsigned i, uint8_t digest[32]);

/* A signature in either format must verify over digest under point (65 bytes). */
void test_check_sig(const uint8_t point[65], const uint8_t digest[32], int format,
	const uint8_t *sig, size_t len);

/* CLOCK_MONOTONIC in milliseconds, and in microseconds. */
int64_t test_now_ms(void);
int64_t test_now_us(void);

/* Connects to path with a generous timeout (slow runs under valgrind must not time out). */
struct p256sign *test_connect(const char *path);

/*
 * 8 threads with a handle each, then 8 threads sharing one handle under their own lock, each
 * signing 100 digests with key and checking every signature under point.
 */
void test_threads(const char *path, const struct p256sign_key *key, const uint8_t point[65]);

/*
 * Event loop until the n sign requests ids[0..n) (consecutive ids; request i signed
 * test_digest(i)) have completed, each with error want_error; successful signatures are checked
 * under point.
 */
void test_collect(struct p256sign *h, const uint32_t *ids, unsigned n, int want_error,
	const uint8_t point[65]);

/* Submits n sign requests of test_digest(0..n), alternating DER and raw, into ids. */
void test_submit_signs(struct p256sign *h, const struct p256sign_key *key, uint32_t *ids,
	unsigned n);

#endif
