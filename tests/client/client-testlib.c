/* SPDX-License-Identifier: ISC */
/* Helpers shared by the libp256sign tests (client-testlib.h). */
#include "client-testlib.h"

#include <openssl/sha.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "p256.h"

void test_digest(unsigned i, uint8_t digest[32])
{
	char text[32];

	snprintf(text, sizeof(text), "message %u", i);
	SHA256((const uint8_t *)text, strlen(text), digest);
}

void test_check_sig(const uint8_t point[65], const uint8_t digest[32], int format,
	const uint8_t *sig, size_t len)
{
	uint8_t rs[64];

	if (format == P256SIGN_RAW) {
		CHECK(len == 64);
		memcpy(rs, sig, 64);
	} else {
		CHECK(p256_sig_from_der(sig, len, rs) == 0);
	}
	CHECK(p256_verify(point, 65, digest, rs, 0) == 0);
}

int64_t test_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t test_now_ms(void)
{
	return test_now_us() / 1000;
}

struct p256sign *test_connect(const char *path)
{
	struct p256sign *h;

	CHECK_RC(p256sign_connect(&h, path), 0);
	CHECK_RC(p256sign_set_timeout(h, 60000), 0);
	return h;
}

#define THREADS 8
#define PER_THREAD 100

struct worker {
	const char *path;
	const struct p256sign_key *key;
	const uint8_t *point;
	struct p256sign *shared;	/* NULL: the thread opens its own handle */
	pthread_mutex_t *lock;
	unsigned seed;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct p256sign *h = w->shared ? w->shared : test_connect(w->path);
	uint8_t digest[32], sig[P256SIGN_SIG_MAX];
	size_t len;

	for (unsigned i = 0; i < PER_THREAD; i++) {
		test_digest(w->seed * 1000 + i, digest);
		if (w->lock)
			CHECK(pthread_mutex_lock(w->lock) == 0);
		CHECK_RC(p256sign_sign_digest(h, w->key, digest, P256SIGN_RAW, sig, sizeof(sig), &len), 0);
		if (w->lock)
			CHECK(pthread_mutex_unlock(w->lock) == 0);
		test_check_sig(w->point, digest, P256SIGN_RAW, sig, len);
	}
	if (!w->shared)
		p256sign_close(h);
	return NULL;
}

void test_threads(const char *path, const struct p256sign_key *key, const uint8_t point[65])
{
	pthread_t t[THREADS];
	struct worker w[THREADS];
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct p256sign *shared = test_connect(path);

	for (int round = 0; round < 2; round++) {
		for (unsigned i = 0; i < THREADS; i++) {
			w[i] = (struct worker){ .path = path, .key = key, .point = point, .seed = i + 1 };
			if (round == 1) {
				w[i].shared = shared;
				w[i].lock = &lock;
			}
			CHECK(pthread_create(&t[i], NULL, worker_main, &w[i]) == 0);
		}
		for (unsigned i = 0; i < THREADS; i++)
			CHECK(pthread_join(t[i], NULL) == 0);
	}
	p256sign_close(shared);
}

void test_submit_signs(struct p256sign *h, const struct p256sign_key *key, uint32_t *ids,
	unsigned n)
{
	uint8_t digest[32];

	for (unsigned i = 0; i < n; i++) {
		test_digest(i, digest);
		CHECK_RC(p256sign_submit_sign(h, key, digest, i % 2 ? P256SIGN_RAW : P256SIGN_DER,
			&ids[i]), 0);
		CHECK(ids[i] != 0 && (i == 0 || ids[i] == ids[i - 1] + 1));
	}
}

void test_collect(struct p256sign *h, const uint32_t *ids, unsigned n, int want_error,
	const uint8_t point[65])
{
	struct p256sign_result res;
	unsigned got = 0;
	uint8_t digest[32];
	char *seen = calloc(n, 1);

	CHECK(seen != NULL);
	while (got < n) {
		struct pollfd pfd = { .fd = p256sign_fd(h), .events = POLLIN };

		if (p256sign_want_write(h))
			pfd.events |= POLLOUT;
		CHECK(pfd.fd >= 0);
		CHECK(poll(&pfd, 1, p256sign_next_timeout(h)) >= 0);
		CHECK(p256sign_process(h) >= 0);
		while (p256sign_next_result(h, &res) == 0) {
			unsigned i = res.id - ids[0];

			CHECK(i < n && ids[i] == res.id && !seen[i]);
			seen[i] = 1;
			got++;
			CHECK_RC(res.error, want_error);
			if (want_error == 0) {
				CHECK(res.op == P256SIGN_OP_SIGN);
				CHECK(res.format == (i % 2 ? P256SIGN_RAW : P256SIGN_DER));
				test_digest(i, digest);
				test_check_sig(point, digest, res.format, res.sig, res.sig_len);
			}
			p256sign_result_clear(&res);
		}
	}
	CHECK(p256sign_next_timeout(h) == -1);
	free(seen);
}
