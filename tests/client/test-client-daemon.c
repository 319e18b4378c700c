/* SPDX-License-Identifier: ISC */
/*
 * libp256sign against the real p256signd: every call, the daemon's error codes as the library
 * reports them, and the failures of a real daemon (absent, stopped, killed mid-request,
 * restarted), fork, threads and 1,000 requests in flight.
 * Usage: test-client-daemon P256SIGND KEY-FILE CASE, with KEY-FILE the RFC 6979 A.2.5 key.
 */
#include <openssl/sha.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "client-testlib.h"
#include "daemon-runner.h"
#include "p256.h"
#include "p256sign.h"

static const char *daemon_bin, *key_file;
static const struct p256sign_key rfc = { .name = "rfc" };

/* RFC 6979 A.2.5: the key's point, and SHA-256("sample") with its deterministic signature. */
static uint8_t rfc_point[65];
static const char rfc_point_hex[] =
	"0460fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6"
	"7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299";
static const char rfc_sig_hex[] = "efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716"
	"f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8";
static const char rfc_key_id_hex[] =
	"5a7a78cca4a0f420d9bc62bb669c3c2759e39f723d3ae10dcbe0f0815a07ecd4";

static void unhex(const char *hex, uint8_t *out, size_t n)
{
	CHECK(strlen(hex) == 2 * n);
	for (size_t i = 0; i < n; i++)
		CHECK(sscanf(hex + 2 * i, "%2hhx", &out[i]) == 1);
}

/* The RFC key as "rfc", deterministic, verified after signing, on 2 workers. */
static void start_idle(struct daemon_proc *d, unsigned max_inflight_per_connection,
	unsigned idle_timeout_ms)
{
	struct daemon_config cfg = {
		.key_name = "rfc",
		.key_file = key_file,
		.nonce = "deterministic",
		.verify_after_sign = 1,
		.workers = 2,
		.max_inflight_per_connection = max_inflight_per_connection,
		.idle_timeout_ms = idle_timeout_ms,
	};

	daemon_start(d, daemon_bin, &cfg);
}

static void start(struct daemon_proc *d, unsigned max_inflight_per_connection)
{
	start_idle(d, max_inflight_per_connection, 0);
}

/* A STATUS member as an integer. */
static long status_member(struct p256sign *h, const char *name)
{
	char *json, *p, key[64];
	long v;

	CHECK_RC(p256sign_status(h, &json), 0);
	snprintf(key, sizeof(key), "\"%s\":", name);
	CHECK((p = strstr(json, key)) != NULL);
	v = strtol(p + strlen(key), NULL, 10);
	free(json);
	return v;
}

/* Every call, with the RFC's known answers. */
static void case_calls(void)
{
	struct daemon_proc d;
	struct p256sign *h;
	struct p256sign_pubkey pub;
	uint8_t digest[32], sig[P256SIGN_SIG_MAX], want[64], id[32], spki[91], bad_point[65];
	size_t len;
	char *json;
	int valid;

	start(&d, 256);
	h = test_connect(d.socket);
	unhex(rfc_sig_hex, want, 64);
	unhex(rfc_key_id_hex, id, 32);
	SHA256((const uint8_t *)"sample", 6, digest);
	CHECK_RC(p256sign_ping(h), 0);
	CHECK_RC(p256sign_sign_digest(h, &rfc, digest, P256SIGN_RAW, sig, sizeof(sig), &len), 0);
	CHECK(len == 64 && memcmp(sig, want, 64) == 0);
	CHECK_RC(p256sign_sign_message(h, &rfc, "sample", 6, P256SIGN_RAW, sig, sizeof(sig), &len), 0);
	CHECK(len == 64 && memcmp(sig, want, 64) == 0);
	CHECK_RC(p256sign_sign_digest(h, &(struct p256sign_key){ .id = id }, digest, P256SIGN_DER,
		sig, sizeof(sig), &len), 0);
	test_check_sig(rfc_point, digest, P256SIGN_DER, sig, len);
	CHECK_RC(p256sign_verify(h, &rfc, digest, P256SIGN_DER, sig, len, &valid), 0);
	CHECK(valid == 1);
	CHECK_RC(p256sign_verify(h, &(struct p256sign_key){ .point = rfc_point }, digest,
		P256SIGN_DER, sig, len, &valid), 0);
	CHECK(valid == 1);
	digest[0] ^= 1;
	CHECK_RC(p256sign_verify(h, &rfc, digest, P256SIGN_DER, sig, len, &valid), 0);
	CHECK(valid == 0);

	CHECK_RC(p256sign_get_pubkey(h, &rfc, &pub), 0);
	p256_spki(rfc_point, spki);
	CHECK(memcmp(pub.point, rfc_point, 65) == 0 && memcmp(pub.key_id, id, 32) == 0 &&
	      memcmp(pub.spki, spki, 91) == 0);
	CHECK_RC(p256sign_list_keys(h, &json), 0);
	CHECK(strstr(json, rfc_key_id_hex) != NULL && strstr(json, "\"deterministic\"") != NULL);
	free(json);
	CHECK(status_member(h, "signatures") == 3);

	/* The daemon's refusals, each with its own code. */
	CHECK_RC(p256sign_sign_digest(h, &(struct p256sign_key){ .name = "nope" }, digest,
		P256SIGN_DER, sig, sizeof(sig), &len), P256SIGN_E_UNKNOWN_KEY);
	memcpy(bad_point, rfc_point, 65);
	bad_point[64] ^= 1;
	CHECK_RC(p256sign_verify(h, &(struct p256sign_key){ .point = bad_point }, digest,
		P256SIGN_DER, sig, len, &valid), P256SIGN_E_BAD_POINT);
	CHECK_RC(p256sign_verify(h, &rfc, digest, P256SIGN_DER, (const uint8_t *)"\x30\x00", 2,
		&valid), P256SIGN_E_BAD_SIGNATURE);
	CHECK_RC(p256sign_ping(h), 0);
	p256sign_close(h);
	daemon_stop(&d);
}

/* Over the daemon's per-connection limit, requests are refused with P256SIGN_E_OVERLOADED. */
static void case_overloaded(void)
{
	struct p256sign_result res;
	struct daemon_proc d;
	struct p256sign *h;
	uint32_t ids[200];
	unsigned ok = 0, overloaded = 0;

	start(&d, 4);
	h = test_connect(d.socket);
	test_submit_signs(h, &rfc, ids, 200);
	for (unsigned i = 0; i < 200; i++) {
		CHECK(p256sign_wait(h, ids[i], &res) == res.error);
		CHECK(res.error == 0 || res.error == P256SIGN_E_OVERLOADED);
		if (res.error == 0)
			ok++;
		else
			overloaded++;
	}
	CHECK(ok >= 4 && overloaded > 0);
	CHECK_RC(p256sign_ping(h), 0);	/* the connection stays usable */
	p256sign_close(h);
	daemon_stop(&d);
}

/* No daemon at the path; then a daemon that went away for good. */
static void case_absent(void)
{
	struct daemon_proc d;
	struct p256sign *h;

	start(&d, 256);
	h = test_connect(d.socket);
	daemon_stop(&d);
	CHECK_RC(p256sign_ping(h), P256SIGN_E_CONNECT);
	p256sign_close(h);
	CHECK_RC(p256sign_connect(&h, d.socket), P256SIGN_E_CONNECT);
	CHECK(h == NULL);
}

/* A stopped (stuck) daemon: the call times out; once it runs again the next call works. */
static void case_timeout(void)
{
	struct daemon_proc d;
	struct p256sign *h;
	int64_t t0, dt;

	start(&d, 256);
	h = test_connect(d.socket);
	CHECK_RC(p256sign_set_timeout(h, 300), 0);
	CHECK_RC(p256sign_ping(h), 0);
	daemon_signal(&d, SIGSTOP);
	t0 = test_now_ms();
	CHECK_RC(p256sign_ping(h), P256SIGN_E_TIMEOUT);
	dt = test_now_ms() - t0;
	CHECK(dt >= 295 && dt < 3000);
	daemon_signal(&d, SIGCONT);
	CHECK_RC(p256sign_set_timeout(h, 60000), 0);
	CHECK_RC(p256sign_ping(h), 0);
	p256sign_close(h);
	daemon_stop(&d);
}

/* Killed with requests written and unanswered: they fail with P256SIGN_E_CLOSED, no SIGPIPE. */
static void case_killed(void)
{
	struct daemon_proc d;
	struct p256sign *h;
	uint32_t ids[20];

	start(&d, 256);
	h = test_connect(d.socket);
	CHECK_RC(p256sign_ping(h), 0);
	daemon_signal(&d, SIGSTOP);
	test_submit_signs(h, &rfc, ids, 20);
	daemon_kill(&d);
	test_collect(h, ids, 20, P256SIGN_E_CLOSED, rfc_point);
	daemon_restart(&d);
	CHECK_RC(p256sign_ping(h), 0);
	p256sign_close(h);
	daemon_stop(&d);
}

/*
 * The daemon closed an idle connection, or restarted on the same socket: the old handle
 * reconnects by itself.
 */
static void case_reconnect(void)
{
	struct daemon_proc d;
	struct p256sign *h;
	uint8_t digest[32], sig[P256SIGN_SIG_MAX];
	size_t len;
	long before;

	start_idle(&d, 256, 200);
	h = test_connect(d.socket);
	before = status_member(h, "connections_total");
	nanosleep(&(struct timespec){ .tv_nsec = 500 * 1000 * 1000 }, NULL);
	CHECK(status_member(h, "connections_total") == before + 1);	/* closed when idle */
	CHECK_RC(p256sign_ping(h), 0);
	daemon_kill(&d);
	daemon_restart(&d);
	test_digest(7, digest);
	CHECK_RC(p256sign_sign_digest(h, &rfc, digest, P256SIGN_DER, sig, sizeof(sig), &len), 0);
	test_check_sig(rfc_point, digest, P256SIGN_DER, sig, len);
	/* And after a clean stop and start. */
	daemon_signal(&d, SIGTERM);
	CHECK(waitpid(d.pid, NULL, 0) == d.pid);
	daemon_restart(&d);
	CHECK_RC(p256sign_ping(h), 0);
	p256sign_close(h);
	daemon_stop(&d);
}

/* The child of a fork opens a connection of its own; the parent's keeps working. */
static void case_fork(void)
{
	struct daemon_proc d;
	struct p256sign *h;
	long before;
	int status;
	pid_t child;

	start(&d, 256);
	h = test_connect(d.socket);
	before = status_member(h, "connections_total");
	child = fork();
	CHECK(child >= 0);
	if (child == 0) {
		CHECK(status_member(h, "connections_total") == before + 1);
		p256sign_close(h);
		_exit(0);
	}
	CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(status_member(h, "connections_total") == before + 1);
	p256sign_close(h);
	daemon_stop(&d);
}

static void case_threads(void)
{
	struct daemon_proc d;

	start(&d, 256);
	test_threads(d.socket, &rfc, rfc_point);
	daemon_stop(&d);
}

/* 1,000 requests in flight on one connection. */
static void case_async(void)
{
	static uint32_t ids[1000];
	struct daemon_proc d;
	struct p256sign *h;

	start(&d, 1000);
	h = test_connect(d.socket);
	test_submit_signs(h, &rfc, ids, 1000);
	test_collect(h, ids, 1000, 0, rfc_point);
	p256sign_close(h);
	daemon_stop(&d);
}

static const struct {
	const char *name;
	void (*run)(void);
} cases[] = {
	{ "calls", case_calls },
	{ "overloaded", case_overloaded },
	{ "absent", case_absent },
	{ "timeout", case_timeout },
	{ "killed", case_killed },
	{ "reconnect", case_reconnect },
	{ "fork", case_fork },
	{ "threads", case_threads },
	{ "async", case_async },
};

int main(int argc, char **argv)
{
	if (argc == 4) {
		daemon_bin = argv[1];
		key_file = argv[2];
		unhex(rfc_point_hex, rfc_point, 65);
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			if (strcmp(argv[3], cases[i].name) == 0) {
				cases[i].run();
				return 0;
			}
		}
	}
	fprintf(stderr, "usage: test-client-daemon P256SIGND KEY-FILE CASE\n");
	return 2;
}
