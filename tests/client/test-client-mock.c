/* SPDX-License-Identifier: ISC */
/*
 * libp256sign against the mock server (mock-server.h): every call, every daemon error code and
 * the error paths a correct daemon does not produce. Usage: test-client-mock CASE.
 */
#include <errno.h>
#include <openssl/sha.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "libp256sign-private.h"	/* case_id_wrap sets the id counter */
#include "client-testlib.h"
#include "mock-server.h"
#include "p256.h"
#include "p256sign.h"
#include "scratch-dir.h"

static const struct p256sign_key key1 = { .name = MOCK_KEY_NAME };

/* The mock key's point, for checking signatures. */
static uint8_t mock_point[65];

static void check_sig(const uint8_t digest[32], int format, const uint8_t *sig, size_t len)
{
	test_check_sig(mock_point, digest, format, sig, len);
}

static struct p256sign *connect_mock(const struct mock *m)
{
	return test_connect(m->path);
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
	test_digest(1, digest);
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
	for (int code = 1; code <= PROTO_E_MAX + 1; code++) {
		snprintf(name, sizeof(name), "err-%d", code);
		CHECK_RC(p256sign_sign_digest(h, &(struct p256sign_key){ .name = name }, digest,
			P256SIGN_DER, sig, sizeof(sig), &len), code > PROTO_E_MAX ? P256SIGN_E_DAEMON : -code);
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
		-14, -15, -16, -17, -18, -19, -20, -21, -22, -23, -100, -101, -102, -103, -104, -105,
		-106, -107, -108, -109, -110, -111, -112, -113, -114, -115, -116, -117, -118, -119 };
	size_t n = sizeof(codes) / sizeof(codes[0]);

	for (size_t i = 0; i < n; i++) {
		CHECK(strcmp(p256sign_strerror(codes[i]), "unknown error") != 0);
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(p256sign_strerror(codes[i]), p256sign_strerror(codes[j])) != 0);
	}
	CHECK(strcmp(p256sign_strerror(-99), "unknown error") == 0);
	CHECK(strcmp(p256sign_strerror(-24), "unknown error") == 0);
	CHECK(strcmp(p256sign_strerror(-120), "unknown error") == 0);
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
	t0 = test_now_ms();
	CHECK_RC(p256sign_ping(h), P256SIGN_E_TIMEOUT);
	dt = test_now_ms() - t0;
	CHECK(dt >= 195 && dt < 2000);
	CHECK(p256sign_fd(h) == -1);	/* a stuck connection is dropped */
	CHECK_RC(p256sign_ping(h), P256SIGN_E_TIMEOUT);
	/*
	 * Never early, however the request falls within the clock's millisecond: submitted at
	 * phases spread over it, and processed every 50 us, as an event loop may.
	 */
	CHECK_RC(p256sign_set_timeout(h, 3), 0);
	for (int i = 0; i < 20; i++) {
		struct p256sign_result res;
		uint32_t id;
		int64_t us;

		usleep((useconds_t)(137 * i % 1000));
		us = test_now_us();
		CHECK_RC(p256sign_submit_ping(h, &id), 0);
		while (p256sign_process(h) == 0)
			usleep(50);
		us = test_now_us() - us;
		CHECK_RC(p256sign_next_result(h, &res), 0);
		CHECK(res.id == id && res.error == P256SIGN_E_TIMEOUT);
		if (us < 3000)
			fprintf(stderr, "a 3 ms timeout after %lld us\n", (long long)us);
		CHECK(us >= 3000);
	}
	p256sign_close(h);
	mock_stop(&m);
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/*
 * A signal during a connect that waits for a full backlog does not end the wait: the connect is
 * tried again until the timeout, so the call fails with P256SIGN_E_CONNECT and a timeout's errno,
 * never EINTR. The listener here never accepts beyond what the test takes; backlog 0 holds one.
 */
static void case_connect_signals(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct itimerval every_20ms = { { 0, 20000 }, { 0, 20000 } }, off = { { 0, 0 }, { 0, 0 } };
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char dir[] = "/tmp/p256sign-test-XXXXXX";
	struct p256sign *h;
	int l, c, filler, rc, saved;

	CHECK(scratch_dir(dir) == 0);	/* removed at exit too: a failed CHECK exits */
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/s.sock", dir);
	l = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK(l >= 0 && bind(l, (struct sockaddr *)&addr, sizeof(addr)) == 0 && listen(l, 0) == 0);
	CHECK_RC(p256sign_connect(&h, addr.sun_path), 0);	/* the backlog's one place */
	CHECK_RC(p256sign_set_timeout(h, 300), 0);
	c = accept(l, NULL, NULL);
	CHECK(c >= 0 && close(c) == 0);				/* that connection ends */
	filler = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK(filler >= 0 && connect(filler, (struct sockaddr *)&addr, sizeof(addr)) == 0);
	CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
	CHECK(setitimer(ITIMER_REAL, &every_20ms, NULL) == 0);
	CHECK(p256sign_ping(h) != 0);		/* finds the connection closed */
	alarms = 0;
	rc = p256sign_ping(h);			/* reconnects into the full backlog */
	saved = errno;
	CHECK(setitimer(ITIMER_REAL, &off, NULL) == 0);
	CHECK_RC(rc, P256SIGN_E_CONNECT);
	CHECK(saved != EINTR);
	CHECK(alarms >= 3);			/* the wait went on through several signals */
	p256sign_close(h);
	close(filler);
	close(l);
	CHECK(scratch_dir_remove(dir) == 0);
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

/*
 * A daemon over its connection limit: the one unrequested frame (ERROR too-many-connections, id
 * 0) fails every request pending on the connection with that code, blocking or submitted.
 */
static void case_too_many(void)
{
	struct p256sign_result res;
	uint32_t ids[3];
	struct mock m;
	struct p256sign *h;

	mock_start(&m, MOCK_TOO_MANY);
	h = connect_mock(&m);
	CHECK_RC(p256sign_ping(h), P256SIGN_E_TOO_MANY_CONNECTIONS);
	for (size_t i = 0; i < 3; i++)
		CHECK_RC(p256sign_submit_ping(h, &ids[i]), 0);
	for (size_t i = 0; i < 3; i++) {
		CHECK_RC(p256sign_wait(h, ids[i], &res), P256SIGN_E_TOO_MANY_CONNECTIONS);
		CHECK(res.id == ids[i] && res.error == P256SIGN_E_TOO_MANY_CONNECTIONS);
	}
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

/* 8 threads with a handle each, then 8 threads sharing one handle under their own lock. */
static void case_threads(void)
{
	struct mock m;

	mock_start(&m, MOCK_NORMAL);
	test_threads(m.path, &key1, mock_point);
	mock_stop(&m);
}

#define IN_FLIGHT 1000

/* 1,000 requests in flight on one connection, answered in order and then in reverse order. */
static void case_async(void)
{
	static const enum mock_mode modes[] = { MOCK_NORMAL, MOCK_REVERSE };
	static uint32_t ids[IN_FLIGHT];
	struct p256sign_result res;
	struct mock m;
	struct p256sign *h;

	for (size_t k = 0; k < 2; k++) {
		mock_start(&m, modes[k]);
		h = connect_mock(&m);
		CHECK_RC(p256sign_next_result(h, &res), P256SIGN_E_AGAIN);
		CHECK(p256sign_next_timeout(h) == -1);
		test_submit_signs(h, &key1, ids, IN_FLIGHT);
		CHECK(p256sign_next_timeout(h) > 0);
		test_collect(h, ids, IN_FLIGHT, 0, mock_point);
		/* Mixed with a blocking call, which leaves the others' results queued. */
		CHECK_RC(p256sign_submit_ping(h, &ids[0]), 0);
		CHECK_RC(p256sign_ping(h), 0);
		CHECK_RC(p256sign_wait(h, ids[0], &res), 0);
		CHECK(res.op == P256SIGN_OP_PING && res.id == ids[0]);
		CHECK_RC(p256sign_wait(h, ids[0], &res), P256SIGN_E_INVALID);
		/* Polling for one result: AGAIN until it is there, other results stay queued. */
		CHECK_RC(p256sign_submit_ping(h, &ids[0]), 0);
		CHECK_RC(p256sign_submit_ping(h, &ids[1]), 0);
		while (p256sign_poll_result(h, ids[1], &res) == P256SIGN_E_AGAIN) {
			CHECK(res.id == 0);
			CHECK(poll(&(struct pollfd){ .fd = p256sign_fd(h), .events = POLLIN }, 1,
				5000) == 1);
		}
		CHECK(res.error == 0 && res.op == P256SIGN_OP_PING && res.id == ids[1]);
		CHECK_RC(p256sign_wait(h, ids[0], &res), 0);
		CHECK(res.id == ids[0]);
		CHECK_RC(p256sign_poll_result(h, ids[0], &res), P256SIGN_E_INVALID);
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
	t0 = test_now_ms();
	for (unsigned i = 0; i < 100; i++) {
		CHECK_RC(p256sign_submit_sign_message(h, &key1, msg, sizeof(msg), P256SIGN_RAW, &ids[i]), 0);
		CHECK(ids[i] == ids[0] + i);
	}
	CHECK(p256sign_want_write(h) == 1);
	test_collect(h, ids, 100, P256SIGN_E_TIMEOUT, mock_point);
	CHECK(test_now_ms() - t0 >= 295);
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
	test_collect(h, ids, 50, P256SIGN_E_CLOSED, mock_point);
	p256sign_close(h);
}

/*
 * The daemon answers a request and closes, and only then does the next request find the
 * connection gone: the answer already sent is delivered, and the unwritten request goes to a new
 * connection.
 */
static void case_async_drained(void)
{
	struct p256sign_result res;
	struct pollfd pfd;
	struct mock m;
	struct p256sign *h;
	uint32_t first, second;

	mock_start(&m, MOCK_ANSWER_CLOSE);
	h = connect_mock(&m);
	CHECK_RC(p256sign_submit_ping(h, &first), 0);
	/* Wait for the hang-up without letting the library read the answer. */
	pfd = (struct pollfd){ .fd = p256sign_fd(h), .events = POLLRDHUP };
	do
		CHECK(poll(&pfd, 1, 10000) == 1);
	while (!(pfd.revents & (POLLRDHUP | POLLHUP)));
	CHECK_RC(p256sign_submit_ping(h, &second), 0);
	CHECK_RC(p256sign_wait(h, first, &res), 0);
	CHECK(res.id == first && res.op == P256SIGN_OP_PING);
	CHECK_RC(p256sign_wait(h, second, &res), 0);
	CHECK(res.id == second);
	p256sign_close(h);
	mock_stop(&m);
}

/*
 * Ids wrap after 2^32 - 1 requests: the next id may not name a request still outstanding. The
 * handle's counter is set directly to reach the wrap at once.
 */
static void case_id_wrap(void)
{
	struct p256sign_result res;
	struct mock m;
	struct p256sign *h;
	uint32_t oldest, id = 0;

	mock_start(&m, MOCK_STUCK);
	h = connect_mock(&m);
	h->next_id = UINT32_MAX;
	CHECK_RC(p256sign_submit_ping(h, &oldest), 0);
	CHECK(oldest == UINT32_MAX && h->next_id == 1);
	h->next_id = oldest;	/* as after 2^32 - 2 more submissions */
	CHECK_RC(p256sign_submit_ping(h, &id), P256SIGN_E_OVERLOADED);
	CHECK(id == 0);
	/* Once the oldest is done, its id is free again. */
	h->pending[0].deadline = test_now_ms();
	CHECK_RC(p256sign_wait(h, oldest, &res), P256SIGN_E_TIMEOUT);
	CHECK_RC(p256sign_submit_ping(h, &id), 0);
	CHECK(id == oldest);
	p256sign_close(h);
	mock_stop(&m);
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
	{ "connect-signals", case_connect_signals },
	{ "closed", case_closed },
	{ "too-many", case_too_many },
	{ "garbage", case_garbage },
	{ "reconnect", case_reconnect },
	{ "fork", case_fork },
	{ "threads", case_threads },
	{ "async", case_async },
	{ "async-stuck", case_async_stuck },
	{ "async-killed", case_async_killed },
	{ "async-drained", case_async_drained },
	{ "id-wrap", case_id_wrap },
};

int main(int argc, char **argv)
{
	uint8_t id[32];

	mock_key_public(mock_point, id);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (argc == 2 && strcmp(argv[1], cases[i].name) == 0) {
			cases[i].run();
			return 0;
		}
	}
	fprintf(stderr, "usage: test-client-mock CASE\n");
	return 2;
}
