/* SPDX-License-Identifier: ISC */
/*
 * libp256sign against the mock server (mock-server.h): every call, every daemon error code and
 * the error paths a correct daemon does not produce. Usage: test-client-mock CASE.
 */
#include <errno.h>
#include <openssl/sha.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "mock-server.h"
#include "p256.h"
#include "p256sign.h"

static const struct p256sign_key key1 = { .name = MOCK_KEY_NAME };

static void digest_of(unsigned i, uint8_t digest[32])
{
	char text[32];

	snprintf(text, sizeof(text), "message %u", i);
	SHA256((const uint8_t *)text, strlen(text), digest);
}

/* A signature in either format must verify under the mock key. */
static void check_sig(const uint8_t digest[32], int format, const uint8_t *sig, size_t len)
{
	uint8_t point[65], id[32], rs[64];

	mock_key_public(point, id);
	if (format == P256SIGN_RAW) {
		CHECK(len == 64);
		memcpy(rs, sig, 64);
	} else {
		CHECK(p256_sig_from_der(sig, len, rs) == 0);
	}
	CHECK(p256_verify(point, 65, digest, rs, 0) == 0);
}

static struct p256sign *connect_mock(const struct mock *m)
{
	struct p256sign *h;

	CHECK_RC(p256sign_connect(&h, m->path), 0);
	/* Generous: under valgrind the mock signs slowly; the timeout cases set their own. */
	CHECK_RC(p256sign_set_timeout(h, 60000), 0);
	return h;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Every blocking call, with its results checked. */
static void case_calls(void)
{
	struct mock m;
	struct p256sign *h;
	struct p256sign_pubkey pub;
	uint8_t digest[32], sig[P256SIGN_SIG_MAX], point[65], id[32], spki[91];
	size_t len;
	char *json;
	int valid;

	mock_start(&m, MOCK_NORMAL);
	h = connect_mock(&m);
	CHECK(strcmp(p256sign_socket_path(h), m.path) == 0);
	CHECK_RC(p256sign_ping(h), 0);
	digest_of(1, digest);
	CHECK_RC(p256sign_sign_digest(h, &key1, digest, P256SIGN_DER, sig, sizeof(sig), &len), 0);
	check_sig(digest, P256SIGN_DER, sig, len);
	CHECK_RC(p256sign_verify(h, &key1, digest, P256SIGN_DER, sig, len, &valid), 0);
	CHECK(valid == 1);
	CHECK_RC(p256sign_sign_digest(h, &key1, digest, P256SIGN_RAW, sig, sizeof(sig), &len), 0);
	check_sig(digest, P256SIGN_RAW, sig, len);
	CHECK_RC(p256sign_verify(h, &key1, digest, P256SIGN_RAW, sig, len, &valid), 0);
	CHECK(valid == 1);
	sig[10] ^= 1;
	CHECK_RC(p256sign_verify(h, &key1, digest, P256SIGN_RAW, sig, len, &valid), 0);
	CHECK(valid == 0);

	CHECK_RC(p256sign_sign_message(h, &key1, "hello", 5, P256SIGN_RAW, sig, sizeof(sig), &len), 0);
	SHA256((const uint8_t *)"hello", 5, digest);
	check_sig(digest, P256SIGN_RAW, sig, len);

	/* By key id and by explicit point. */
	mock_key_public(point, id);
	CHECK_RC(p256sign_get_pubkey(h, &key1, &pub), 0);
	p256_spki(point, spki);
	CHECK(memcmp(pub.point, point, 65) == 0 && memcmp(pub.key_id, id, 32) == 0 &&
	      memcmp(pub.spki, spki, 91) == 0);
	CHECK_RC(p256sign_sign_digest(h, &(struct p256sign_key){ .id = id }, digest, P256SIGN_DER,
		sig, sizeof(sig), &len), 0);
	check_sig(digest, P256SIGN_DER, sig, len);
	CHECK_RC(p256sign_verify(h, &(struct p256sign_key){ .point = point }, digest, P256SIGN_DER,
		sig, len, &valid), 0);
	CHECK(valid == 1);

	CHECK_RC(p256sign_list_keys(h, &json), 0);
	CHECK(strstr(json, "\"k1\"") != NULL);
	free(json);
	CHECK_RC(p256sign_status(h, &json), 0);
	CHECK(strstr(json, "peer_pid") != NULL);
	free(json);

	/* Errors found before anything is sent. */
	CHECK_RC(p256sign_sign_digest(h, &key1, digest, P256SIGN_DER, sig, 8, &len), P256SIGN_E_BUFFER);
	CHECK_RC(p256sign_sign_digest(h, &key1, digest, 7, sig, sizeof(sig), &len), P256SIGN_E_INVALID);
	CHECK_RC(p256sign_sign_digest(h, &(struct p256sign_key){ .name = "k1", .id = id }, digest,
		P256SIGN_DER, sig, sizeof(sig), &len), P256SIGN_E_INVALID);
	CHECK_RC(p256sign_sign_digest(h, &(struct p256sign_key){ .point = point }, digest,
		P256SIGN_DER, sig, sizeof(sig), &len), P256SIGN_E_INVALID);
	CHECK_RC(p256sign_sign_digest(h, &(struct p256sign_key){ .name = "a b" }, digest,
		P256SIGN_DER, sig, sizeof(sig), &len), P256SIGN_E_BAD_KEY_SELECTOR);
	CHECK_RC(p256sign_sign_digest(h, &(struct p256sign_key){ .name = "" }, digest,
		P256SIGN_DER, sig, sizeof(sig), &len), P256SIGN_E_BAD_KEY_SELECTOR);
	CHECK_RC(p256sign_sign_message(h, &key1, sig, P256SIGN_MESSAGE_MAX + 1, P256SIGN_DER, sig,
		sizeof(sig), &len), P256SIGN_E_MESSAGE_TOO_LARGE);
	CHECK_RC(p256sign_verify(h, &key1, digest, P256SIGN_RAW, sig, 63, &valid),
		P256SIGN_E_BAD_SIGNATURE);
	CHECK_RC(p256sign_set_timeout(h, 0), P256SIGN_E_INVALID);
	/* The handle still works after refusals. */
	CHECK_RC(p256sign_ping(h), 0);
	p256sign_close(h);
	mock_stop(&m);
}

/* Every wire error code arrives as its own library code; an unknown one as P256SIGN_E_DAEMON. */
static void case_daemon_errors(void)
{
	struct mock m;
	struct p256sign *h;
	uint8_t digest[32] = { 0 }, sig[P256SIGN_SIG_MAX];
	char name[16];
	size_t len;

	mock_start(&m, MOCK_NORMAL);
	h = connect_mock(&m);
	for (int code = 1; code <= 19; code++) {
		snprintf(name, sizeof(name), "err-%d", code);
		CHECK_RC(p256sign_sign_digest(h, &(struct p256sign_key){ .name = name }, digest,
			P256SIGN_DER, sig, sizeof(sig), &len), code == 19 ? P256SIGN_E_DAEMON : -code);
	}
	CHECK_RC(p256sign_sign_digest(h, &(struct p256sign_key){ .name = "nope" }, digest,
		P256SIGN_DER, sig, sizeof(sig), &len), P256SIGN_E_UNKNOWN_KEY);
	p256sign_close(h);
	mock_stop(&m);
}

/* Messages are distinct, never NULL, and known codes are not "unknown". */
static void case_strerror(void)
{
	static const int codes[] = { 0, -1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, -12, -13,
		-14, -15, -16, -17, -18, -100, -101, -102, -103, -104, -105, -106, -107, -108, -109 };
	size_t n = sizeof(codes) / sizeof(codes[0]);

	for (size_t i = 0; i < n; i++) {
		CHECK(strcmp(p256sign_strerror(codes[i]), "unknown error") != 0);
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(p256sign_strerror(codes[i]), p256sign_strerror(codes[j])) != 0);
	}
	CHECK(strcmp(p256sign_strerror(-99), "unknown error") == 0);
	CHECK(strcmp(p256sign_strerror(-110), "unknown error") == 0);
	CHECK(strcmp(p256sign_strerror(5), "unknown error") == 0);
}

/* No daemon, a path too long, and the socket path from the environment. */
static void case_absent(void)
{
	struct mock m;
	struct p256sign *h = (struct p256sign *)&m;
	char longpath[200];

	CHECK_RC(p256sign_connect(&h, "/nonexistent/p256sign.sock"), P256SIGN_E_CONNECT);
	CHECK(h == NULL && errno == ENOENT);
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[sizeof(longpath) - 1] = '\0';
	CHECK_RC(p256sign_connect(&h, longpath), P256SIGN_E_INVALID);
	CHECK_RC(p256sign_connect(NULL, NULL), P256SIGN_E_INVALID);

	mock_start(&m, MOCK_NORMAL);
	CHECK(setenv(P256SIGN_SOCKET_ENV, m.path, 1) == 0);
	CHECK_RC(p256sign_connect(&h, NULL), 0);
	CHECK(strcmp(p256sign_socket_path(h), m.path) == 0);
	CHECK_RC(p256sign_ping(h), 0);
	p256sign_close(h);
	CHECK(unsetenv(P256SIGN_SOCKET_ENV) == 0);
	CHECK_RC(p256sign_connect(&h, NULL), P256SIGN_E_CONNECT);	/* the default path */
	/* A daemon that disappears: the next call cannot reconnect. */
	h = connect_mock(&m);
	mock_stop(&m);
	CHECK_RC(p256sign_ping(h), P256SIGN_E_CONNECT);
	p256sign_close(h);
}

/* A stuck daemon: the call returns after the timeout, and so does the next one. */
static void case_timeout(void)
{
	struct mock m;
	struct p256sign *h;
	int64_t t0, dt;

	mock_start(&m, MOCK_STUCK);
	h = connect_mock(&m);
	CHECK_RC(p256sign_set_timeout(h, 200), 0);
	t0 = now_ms();
	CHECK_RC(p256sign_ping(h), P256SIGN_E_TIMEOUT);
	dt = now_ms() - t0;
	CHECK(dt >= 195 && dt < 2000);
	CHECK(p256sign_fd(h) == -1);	/* a stuck connection is dropped */
	CHECK_RC(p256sign_ping(h), P256SIGN_E_TIMEOUT);
	p256sign_close(h);
	mock_stop(&m);
}

/* The daemon dies with the request written: P256SIGN_E_CLOSED, no SIGPIPE, no re-send. */
static void case_closed(void)
{
	struct mock m;
	struct p256sign *h;

	mock_start(&m, MOCK_CLOSE);
	h = connect_mock(&m);
	CHECK_RC(p256sign_ping(h), P256SIGN_E_CLOSED);
	CHECK_RC(p256sign_ping(h), P256SIGN_E_CLOSED);	/* a new connection, closed again */
	p256sign_close(h);
	mock_stop(&m);
}

/* Responses that are not frames, name no request, or answer another type. */
static void case_garbage(void)
{
	static const enum mock_mode modes[] = { MOCK_GARBAGE, MOCK_WRONG_ID, MOCK_WRONG_TYPE };
	struct mock m;
	struct p256sign *h;

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		mock_start(&m, modes[i]);
		h = connect_mock(&m);
		CHECK_RC(p256sign_ping(h), P256SIGN_E_PROTOCOL);
		CHECK(p256sign_fd(h) == -1);
		CHECK_RC(p256sign_ping(h), P256SIGN_E_PROTOCOL);
		p256sign_close(h);
		mock_stop(&m);
	}
}

/* Served-requests count and peer pid from the mock's STATUS. */
static void status_of(struct p256sign *h, int *pid, unsigned *served)
{
	char *json;

	CHECK_RC(p256sign_status(h, &json), 0);
	CHECK(sscanf(json, "{\"peer_pid\": %d, \"served\": %u}", pid, served) == 2);
	free(json);
}

/* The daemon restarts on the same socket: the next call reconnects by itself. */
static void case_reconnect(void)
{
	struct mock m;
	struct p256sign *h;
	int pid;
	unsigned served;

	mock_start(&m, MOCK_NORMAL);
	h = connect_mock(&m);
	CHECK_RC(p256sign_ping(h), 0);
	status_of(h, &pid, &served);
	CHECK(served == 2);
	mock_kill(&m);
	mock_restart(&m, MOCK_NORMAL);
	CHECK_RC(p256sign_ping(h), 0);
	status_of(h, &pid, &served);
	CHECK(served == 2);	/* a new connection served both */
	p256sign_close(h);
	mock_stop(&m);
}

/* A forked child gets a connection of its own; the parent's keeps working. */
static void case_fork(void)
{
	struct mock m;
	struct p256sign *h;
	int pid, status;
	unsigned served;
	pid_t child;

	mock_start(&m, MOCK_NORMAL);
	h = connect_mock(&m);
	status_of(h, &pid, &served);
	CHECK(pid == getpid() && served == 1);
	child = fork();
	CHECK(child >= 0);
	if (child == 0) {
		status_of(h, &pid, &served);
		CHECK(pid == getpid() && served == 1);
		p256sign_close(h);
		_exit(0);
	}
	CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	status_of(h, &pid, &served);
	CHECK(pid == getpid() && served == 2);
	p256sign_close(h);
	mock_stop(&m);
}

#define THREADS 8
#define PER_THREAD 100

struct worker {
	const struct mock *m;
	struct p256sign *shared;	/* NULL: the thread opens its own handle */
	pthread_mutex_t *lock;
	unsigned seed;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct p256sign *h = w->shared ? w->shared : connect_mock(w->m);
	uint8_t digest[32], sig[P256SIGN_SIG_MAX];
	size_t len;

	for (unsigned i = 0; i < PER_THREAD; i++) {
		digest_of(w->seed * 1000 + i, digest);
		if (w->lock)
			CHECK(pthread_mutex_lock(w->lock) == 0);
		CHECK_RC(p256sign_sign_digest(h, &key1, digest, P256SIGN_RAW, sig, sizeof(sig), &len), 0);
		if (w->lock)
			CHECK(pthread_mutex_unlock(w->lock) == 0);
		check_sig(digest, P256SIGN_RAW, sig, len);
	}
	if (!w->shared)
		p256sign_close(h);
	return NULL;
}

/* 8 threads with a handle each, then 8 threads sharing one handle under their own lock. */
static void case_threads(void)
{
	struct mock m;
	pthread_t t[THREADS];
	struct worker w[THREADS];
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct p256sign *shared;

	mock_start(&m, MOCK_NORMAL);
	shared = connect_mock(&m);
	for (int round = 0; round < 2; round++) {
		for (unsigned i = 0; i < THREADS; i++) {
			w[i] = (struct worker){ .m = &m, .seed = i + 1 };
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
	mock_stop(&m);
}

#define IN_FLIGHT 1000

/* Waits with poll until `want` results were collected into seen[] (indexed by id). */
static void collect(struct p256sign *h, const uint32_t *ids, unsigned n, int want_error)
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
				digest_of(i, digest);
				check_sig(digest, res.format, res.sig, res.sig_len);
			}
			p256sign_result_clear(&res);
		}
	}
	CHECK(p256sign_next_timeout(h) == -1);
	free(seen);
}

/* 1,000 requests in flight on one connection, answered in order and then in reverse order. */
static void case_async(void)
{
	static const enum mock_mode modes[] = { MOCK_NORMAL, MOCK_REVERSE };
	static uint32_t ids[IN_FLIGHT];
	struct p256sign_result res;
	struct mock m;
	struct p256sign *h;
	uint8_t digest[32];

	for (size_t k = 0; k < 2; k++) {
		mock_start(&m, modes[k]);
		h = connect_mock(&m);
		CHECK_RC(p256sign_next_result(h, &res), P256SIGN_E_AGAIN);
		CHECK(p256sign_next_timeout(h) == -1);
		for (unsigned i = 0; i < IN_FLIGHT; i++) {
			digest_of(i, digest);
			CHECK_RC(p256sign_submit_sign(h, &key1, digest, i % 2 ? P256SIGN_RAW : P256SIGN_DER,
				&ids[i]), 0);
			CHECK(ids[i] != 0 && (i == 0 || ids[i] == ids[i - 1] + 1));
		}
		CHECK(p256sign_next_timeout(h) > 0);
		collect(h, ids, IN_FLIGHT, 0);
		/* Mixed with a blocking call, which leaves the others' results queued. */
		CHECK_RC(p256sign_submit_ping(h, &ids[0]), 0);
		CHECK_RC(p256sign_ping(h), 0);
		CHECK_RC(p256sign_wait(h, ids[0], &res), 0);
		CHECK(res.op == P256SIGN_OP_PING && res.id == ids[0]);
		CHECK_RC(p256sign_wait(h, ids[0], &res), P256SIGN_E_INVALID);
		p256sign_close(h);
		mock_stop(&m);
	}
}

/*
 * A daemon that reads nothing: large requests fill the socket, the handle asks for POLLOUT,
 * and at the deadline every outstanding request fails with P256SIGN_E_TIMEOUT.
 */
static void case_async_stuck(void)
{
	static uint8_t msg[P256SIGN_MESSAGE_MAX];
	static uint32_t ids[100];
	struct mock m;
	struct p256sign *h;
	int64_t t0;

	mock_start(&m, MOCK_STUCK);
	h = connect_mock(&m);
	CHECK_RC(p256sign_set_timeout(h, 300), 0);
	t0 = now_ms();
	for (unsigned i = 0; i < 100; i++) {
		CHECK_RC(p256sign_submit_sign_message(h, &key1, msg, sizeof(msg), P256SIGN_RAW, &ids[i]), 0);
		CHECK(ids[i] == ids[0] + i);
	}
	CHECK(p256sign_want_write(h) == 1);
	collect(h, ids, 100, P256SIGN_E_TIMEOUT);
	CHECK(now_ms() - t0 >= 295);
	CHECK(p256sign_fd(h) == -1 && p256sign_want_write(h) == 0);
	p256sign_close(h);
	mock_stop(&m);
}

/* The daemon dies with requests in flight: each written one fails with P256SIGN_E_CLOSED. */
static void case_async_killed(void)
{
	static uint32_t ids[50];
	struct mock m;
	struct p256sign *h;

	mock_start(&m, MOCK_STUCK);
	h = connect_mock(&m);
	for (unsigned i = 0; i < 50; i++)
		CHECK_RC(p256sign_submit_ping(h, &ids[i]), 0);
	mock_stop(&m);	/* whether the connection was accepted yet or not */
	collect(h, ids, 50, P256SIGN_E_CLOSED);
	p256sign_close(h);
}

static const struct {
	const char *name;
	void (*run)(void);
} cases[] = {
	{ "calls", case_calls },
	{ "daemon-errors", case_daemon_errors },
	{ "strerror", case_strerror },
	{ "absent", case_absent },
	{ "timeout", case_timeout },
	{ "closed", case_closed },
	{ "garbage", case_garbage },
	{ "reconnect", case_reconnect },
	{ "fork", case_fork },
	{ "threads", case_threads },
	{ "async", case_async },
	{ "async-stuck", case_async_stuck },
	{ "async-killed", case_async_killed },
};

int main(int argc, char **argv)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (argc == 2 && strcmp(argv[1], cases[i].name) == 0) {
			cases[i].run();
			return 0;
		}
	}
	fprintf(stderr, "usage: test-client-mock CASE\n");
	return 2;
}
