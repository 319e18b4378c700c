/* SPDX-License-Identifier: ISC */
/*
 * The provider through libcrypto's API, against the real p256signd (tests/client/daemon-runner.c):
 * init without a daemon, the store loader and its errors, the key's parameters, match and the
 * refused private export, key-reference files (PEM_read_bio_PrivateKey, as TLS servers read
 * their key), signatures (one-shot, update/final with a copied context, pre-hashed)
 * verified by OpenSSL's default provider, no daemon I/O at signature init, and a signature that
 * fails while the daemon is down and works again once it is back; one connection per thread and
 * per process after a fork, the timeout from openssl.cnf, and a signature asked for while the
 * daemon restarts that waits for it; signatures inside OpenSSL ASYNC jobs, many in flight in one
 * thread, one woken by its deadline, and jobs whose TLS connection is freed while they are
 * paused.
 * Usage: test-provider-api P256SIGND KEY.pem MODULE_DIR
 */
#include <dirent.h>
#include <errno.h>
#include <openssl/async.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/provider.h>
#include <openssl/ssl.h>
#include <openssl/store.h>
#include <openssl/x509.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "daemon-runner.h"
#include "p256sign.h"

static OSSL_LIB_CTX *libctx;
static struct daemon_proc signd;	/* "daemon" is taken by unistd.h */
static char uri[256];

/* The key behind uri, from the store loader; NULL if it does not load. */
static EVP_PKEY *load(const char *u)
{
	OSSL_STORE_CTX *s = OSSL_STORE_open_ex(u, libctx, NULL, NULL, NULL, NULL, NULL, NULL);
	OSSL_STORE_INFO *info;
	EVP_PKEY *k = NULL;

	if (s == NULL)
		return NULL;
	while (k == NULL && !OSSL_STORE_eof(s) && (info = OSSL_STORE_load(s)) != NULL) {
		if (OSSL_STORE_INFO_get_type(info) == OSSL_STORE_INFO_PKEY)
			k = OSSL_STORE_INFO_get1_PKEY(info);
		OSSL_STORE_INFO_free(info);
	}
	OSSL_STORE_close(s);
	return k;
}

/* The last error's text contains want; the error queue is emptied. */
static void check_error(const char *want)
{
	char text[512] = "";
	const char *data = "";
	unsigned long e;

	while ((e = ERR_get_error_all(NULL, NULL, NULL, &data, NULL)) != 0) {
		ERR_error_string_n(e, text, sizeof(text));
		strncat(text, ": ", sizeof(text) - strlen(text) - 1);
		strncat(text, data, sizeof(text) - strlen(text) - 1);
		if (strstr(text, want) != NULL) {
			ERR_clear_error();
			return;
		}
	}
	fprintf(stderr, "no error containing \"%s\" (last: %s)\n", want, text);
	exit(1);
}

static EVP_PKEY *file_key(const char *path)
{
	FILE *f = fopen(path, "r");
	EVP_PKEY *k;

	CHECK(f != NULL);
	k = PEM_read_PrivateKey_ex(f, NULL, NULL, NULL, libctx, "provider=default");
	fclose(f);
	CHECK(k != NULL);
	return k;
}

/* sig verifies over msg (hashed with md) under the default provider's copy of the key. */
static int verifies(EVP_PKEY *pub, const char *md, const void *msg, size_t len,
	const uint8_t *sig, size_t sig_len)
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	int ok;

	CHECK(c != NULL);
	CHECK(EVP_DigestVerifyInit_ex(c, NULL, md, libctx, "provider=default", pub, NULL) == 1);
	ok = EVP_DigestVerify(c, sig, sig_len, msg, len) == 1;
	EVP_MD_CTX_free(c);
	ERR_clear_error();
	return ok;
}

static void case_no_daemon(void)
{
	/* The provider loaded (in main) with no daemon running: init does not need it. */
	CHECK(OSSL_PROVIDER_available(libctx, "p256sign"));
	CHECK(load("p256sign:web;socket=/nonexistent/s.sock") == NULL);
	check_error("cannot connect");
	CHECK(load("p256sign:id=00") == NULL);
	check_error("id= needs 64 hex digits");
	CHECK(load("p256sign:web;color=red") == NULL);
	check_error("the only attribute is socket=PATH");
	CHECK(load("p256sign:") == NULL);
	check_error("a key name has 1 to 64 characters");
}

static void case_params(EVP_PKEY *k, EVP_PKEY *pub)
{
	uint8_t point[P256SIGN_POINT_LEN], want[P256SIGN_POINT_LEN];
	char name[64];
	size_t len;
	OSSL_PARAM *params = NULL;
	EVP_PKEY *other;

	CHECK(EVP_PKEY_is_a(k, "EC"));
	CHECK(strcmp(OSSL_PROVIDER_get0_name(EVP_PKEY_get0_provider(k)), "p256sign") == 0);
	CHECK(EVP_PKEY_get_bits(k) == 256);
	CHECK(EVP_PKEY_get_security_bits(k) == 128);
	CHECK(EVP_PKEY_get_size(k) == 72);
	CHECK(EVP_PKEY_get_group_name(k, name, sizeof(name), &len) == 1);
	CHECK(strcmp(name, "prime256v1") == 0);
	CHECK(EVP_PKEY_get_default_digest_name(k, name, sizeof(name)) > 0);
	CHECK(strcmp(name, "SHA256") == 0);
	CHECK(EVP_PKEY_get_octet_string_param(k, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, point,
		sizeof(point), &len) == 1 && len == sizeof(point));
	CHECK(EVP_PKEY_get_octet_string_param(pub, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, want,
		sizeof(want), &len) == 1 && len == sizeof(want));
	CHECK(memcmp(point, want, sizeof(point)) == 0);
	/* match: the key file's public half is the same key, a fresh key is not */
	CHECK(EVP_PKEY_eq(k, pub) == 1);
	CHECK((other = EVP_PKEY_Q_keygen(libctx, "provider=default", "EC", "P-256")) != NULL);
	CHECK(EVP_PKEY_eq(k, other) != 1);
	EVP_PKEY_free(other);
	/* the private half never leaves; the public half does */
	CHECK(EVP_PKEY_todata(k, EVP_PKEY_KEYPAIR, &params) != 1);
	CHECK(EVP_PKEY_todata(k, EVP_PKEY_PUBLIC_KEY, &params) == 1);
	CHECK(OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_PUB_KEY) != NULL);
	OSSL_PARAM_free(params);
	ERR_clear_error();
}

static void case_digest_sign(EVP_PKEY *k, EVP_PKEY *pub)
{
	static const char msg[] = "TLS 1.3, server CertificateVerify";
	uint8_t sig[P256SIGN_SIG_MAX];
	size_t len = 0;
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	const char *mds[] = { "SHA256", "SHA384", "SHA512" };

	CHECK(c != NULL);
	for (size_t i = 0; i < 3; i++) {
		CHECK(EVP_DigestSignInit_ex(c, NULL, mds[i], libctx, NULL, k, NULL) == 1);
		CHECK(EVP_DigestSign(c, NULL, &len, (const uint8_t *)msg, sizeof(msg)) == 1);
		CHECK(len == 72);
		CHECK(EVP_DigestSign(c, sig, &len, (const uint8_t *)msg, sizeof(msg)) == 1);
		CHECK(len <= 72 && sig[0] == 0x30);
		CHECK(verifies(pub, mds[i], msg, sizeof(msg), sig, len));
		CHECK(!verifies(pub, mds[i], msg, sizeof(msg) - 1, sig, len));
	}
	/* SHA-1 is refused at init, so libssl picks another signature algorithm */
	CHECK(EVP_DigestSignInit_ex(c, NULL, "SHA1", libctx, NULL, k, NULL) != 1);
	check_error("unsupported digest");
	EVP_MD_CTX_free(c);
}

/* update/final, and a copy of the context half-way that continues on its own (dupctx). */
static void case_dupctx(EVP_PKEY *k, EVP_PKEY *pub)
{
	uint8_t sig1[P256SIGN_SIG_MAX], sig2[P256SIGN_SIG_MAX];
	size_t len1 = sizeof(sig1), len2 = sizeof(sig2);
	EVP_MD_CTX *c = EVP_MD_CTX_new(), *copy = EVP_MD_CTX_new();

	CHECK(c != NULL && copy != NULL);
	CHECK(EVP_DigestSignInit_ex(c, NULL, "SHA256", libctx, NULL, k, NULL) == 1);
	CHECK(EVP_DigestSignUpdate(c, "common ", 7) == 1);
	CHECK(EVP_MD_CTX_copy_ex(copy, c) == 1);
	CHECK(EVP_DigestSignUpdate(c, "one", 3) == 1);
	CHECK(EVP_DigestSignUpdate(copy, "two", 3) == 1);
	CHECK(EVP_DigestSignFinal(c, sig1, &len1) == 1);
	CHECK(EVP_DigestSignFinal(copy, sig2, &len2) == 1);
	CHECK(verifies(pub, "SHA256", "common one", 10, sig1, len1));
	CHECK(verifies(pub, "SHA256", "common two", 10, sig2, len2));
	CHECK(!verifies(pub, "SHA256", "common two", 10, sig1, len1));
	EVP_MD_CTX_free(copy);
	EVP_MD_CTX_free(c);
}

/* EVP_PKEY_sign on a digest computed by the caller (openssl pkeyutl -sign). */
static void case_prehashed(EVP_PKEY *k, EVP_PKEY *pub)
{
	uint8_t digest[64], sig[P256SIGN_SIG_MAX];
	unsigned int dlen;
	size_t len = sizeof(sig);
	EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(libctx, k, NULL);
	EVP_PKEY_CTX *v = EVP_PKEY_CTX_new_from_pkey(libctx, pub, "provider=default");

	CHECK(c != NULL && v != NULL);
	CHECK(EVP_Digest("abc", 3, digest, &dlen, EVP_sha384(), NULL) == 1 && dlen == 48);
	CHECK(EVP_PKEY_sign_init(c) == 1);
	CHECK(EVP_PKEY_sign(c, NULL, &len, digest, dlen) == 1 && len == 72);
	CHECK(EVP_PKEY_sign(c, sig, &len, digest, dlen) == 1);
	CHECK(EVP_PKEY_verify_init(v) == 1);
	CHECK(EVP_PKEY_verify(v, sig, len, digest, dlen) == 1);
	/* a length that is no SHA-2 digest, and one that does not match the digest set */
	len = sizeof(sig);
	CHECK(EVP_PKEY_sign(c, sig, &len, digest, 20) != 1);
	check_error("input is not a digest of the expected length");
	CHECK(EVP_PKEY_CTX_set_signature_md(c, EVP_sha256()) == 1);
	CHECK(EVP_PKEY_sign(c, sig, &len, digest, dlen) != 1);
	check_error("input is not a digest of the expected length");
	EVP_PKEY_CTX_free(v);
	EVP_PKEY_CTX_free(c);
}

/* Init does no I/O; a sign with the daemon gone fails cleanly, and works once it is back. */
static void case_daemon_restart(EVP_PKEY *k, EVP_PKEY *pub)
{
	uint8_t sig[P256SIGN_SIG_MAX];
	size_t len = sizeof(sig);
	EVP_MD_CTX *c = EVP_MD_CTX_new();

	CHECK(c != NULL);
	daemon_kill(&signd);
	CHECK(EVP_DigestSignInit_ex(c, NULL, "SHA256", libctx, NULL, k, NULL) == 1);
	CHECK(EVP_DigestSign(c, NULL, &len, (const uint8_t *)"x", 1) == 1 && len == 72);
	CHECK(EVP_DigestSign(c, sig, &len, (const uint8_t *)"x", 1) != 1);
	check_error("signing with key web");
	daemon_restart(&signd);
	CHECK(EVP_DigestSignInit_ex(c, NULL, "SHA256", libctx, NULL, k, NULL) == 1);
	len = sizeof(sig);
	CHECK(EVP_DigestSign(c, sig, &len, (const uint8_t *)"x", 1) == 1);
	CHECK(verifies(pub, "SHA256", "x", 1, sig, len));
	EVP_MD_CTX_free(c);
}

/*
 * A key-reference PEM of kd, as p256signctl export-key-ref writes it, read as a private key;
 * after another PEM block (a certificate, as in a haproxy crt file) when `after` is set.
 */
static EVP_PKEY *read_keyref(const struct p256sign_keyref *kd, const uint8_t *der, size_t der_len,
	const uint8_t *after, size_t after_len)
{
	uint8_t buf[P256SIGN_KEYREF_DER_MAX];
	size_t len;
	BIO *b = BIO_new(BIO_s_mem());
	EVP_PKEY *k;

	CHECK(b != NULL);
	CHECK(after == NULL || PEM_write_bio(b, "CERTIFICATE", "", after, (long)after_len) > 0);
	if (kd != NULL) {
		CHECK(p256sign_keyref_encode(kd, buf, sizeof(buf), &len) == 0);
		der = buf;
		der_len = len;
	}
	CHECK(PEM_write_bio(b, P256SIGN_KEYREF_PEM_LABEL, "", der, (long)der_len) > 0);
	k = PEM_read_bio_PrivateKey_ex(b, NULL, NULL, NULL, libctx, NULL);
	BIO_free(b);
	return k;
}

static void case_keyref_file(EVP_PKEY *pub, const char *key_file)
{
	struct p256sign_keyref kd = { 0 };
	static const uint8_t version2[] = { 0x30, 0x0a, 0x02, 0x01, 0x02, 0x80, 0x01, 'w', 0x0c, 0x02,
		'/', 's' };
	EVP_PKEY *k;
	FILE *f;

	memcpy(kd.name, "web", 4);
	memcpy(kd.socket, signd.socket, strlen(signd.socket) + 1);
	CHECK((k = read_keyref(&kd, NULL, 0, NULL, 0)) != NULL);
	CHECK(strcmp(OSSL_PROVIDER_get0_name(EVP_PKEY_get0_provider(k)), "p256sign") == 0);
	CHECK(EVP_PKEY_eq(k, pub) == 1);
	EVP_PKEY_free(k);
	CHECK((k = read_keyref(&kd, NULL, 0, version2, sizeof(version2))) != NULL);
	CHECK(EVP_PKEY_eq(k, pub) == 1);
	EVP_PKEY_free(k);
	ERR_clear_error();	/* what the other decoders said about the first block */
	memcpy(kd.name, "nokey", 6);
	CHECK(read_keyref(&kd, NULL, 0, NULL, 0) == NULL);
	check_error("no such key");
	CHECK(read_keyref(NULL, version2, sizeof(version2), NULL, 0) == NULL);
	check_error("unsupported key reference version");
	/* An ordinary key file still loads, from the default provider: ours says "not mine". */
	CHECK((f = fopen(key_file, "r")) != NULL);
	k = PEM_read_PrivateKey_ex(f, NULL, NULL, NULL, libctx, NULL);
	fclose(f);
	CHECK(k != NULL && strcmp(OSSL_PROVIDER_get0_name(EVP_PKEY_get0_provider(k)), "default") == 0);
	EVP_PKEY_free(k);
}

/* A number in the daemon's STATUS ("connections_total", ...), through the test's own handle. */
static unsigned long status_number(struct p256sign *h, const char *field)
{
	char *json = NULL, *p, key[64];
	unsigned long n;

	snprintf(key, sizeof(key), "\"%s\":", field);
	CHECK_RC(p256sign_status(h, &json), 0);
	CHECK((p = strstr(json, key)) != NULL);
	n = strtoul(p + strlen(key), NULL, 10);
	free(json);
	return n;
}

static unsigned long connections_total(struct p256sign *h)
{
	return status_number(h, "connections_total");
}

/* One DigestSign of msg that the default provider verifies; 1 when both worked. */
static int sign_once(EVP_PKEY *k, EVP_PKEY *pub, const char *msg)
{
	uint8_t sig[P256SIGN_SIG_MAX];
	size_t len = sizeof(sig);
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	int ok = c != NULL &&
		EVP_DigestSignInit_ex(c, NULL, "SHA256", libctx, NULL, k, NULL) == 1 &&
		EVP_DigestSign(c, sig, &len, (const uint8_t *)msg, strlen(msg)) == 1 &&
		verifies(pub, "SHA256", msg, strlen(msg), sig, len);

	EVP_MD_CTX_free(c);
	return ok;
}

#define THREADS 4
#define PER_THREAD 25

/* A thread that makes n signatures and counts those that verify. */
struct worker {
	pthread_t t;
	EVP_PKEY *k, *pub;
	int n, good;
};

static void *sign_many(void *arg)
{
	struct worker *w = arg;
	char msg[32];

	for (int i = 0; i < w->n; i++) {
		snprintf(msg, sizeof(msg), "thread %p %d", (void *)w, i);
		w->good += sign_once(w->k, w->pub, msg);
	}
	return NULL;
}

/* Threads sign at once on one key, each on a connection of its own, opened once. */
static void case_threads(EVP_PKEY *k, EVP_PKEY *pub, struct p256sign *status)
{
	struct worker w[THREADS];
	unsigned long before = connections_total(status);

	for (int i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ .k = k, .pub = pub, .n = PER_THREAD };
		CHECK(pthread_create(&w[i].t, NULL, sign_many, &w[i]) == 0);
	}
	for (int i = 0; i < THREADS; i++) {
		CHECK(pthread_join(w[i].t, NULL) == 0);
		CHECK(w[i].good == PER_THREAD);
	}
	CHECK(connections_total(status) - before == THREADS);
}

/* A forked child signs on a connection of its own; the parent's keeps working. */
static void case_fork(EVP_PKEY *k, EVP_PKEY *pub, struct p256sign *status)
{
	unsigned long before;
	int st;
	pid_t pid;

	CHECK(sign_once(k, pub, "parent before"));
	before = connections_total(status);
	CHECK((pid = fork()) >= 0);
	if (pid == 0)
		_exit(sign_once(k, pub, "child one") && sign_once(k, pub, "child two") ? 0 : 1);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(connections_total(status) - before == 1);
	CHECK(sign_once(k, pub, "parent after"));
	CHECK(connections_total(status) - before == 1);
}

/* A signature asked for while the daemon is away waits for it (a restart), within a window. */
static void case_restart_gap(EVP_PKEY *k, EVP_PKEY *pub)
{
	struct worker w = { .k = k, .pub = pub, .n = 1 };

	daemon_kill(&signd);
	CHECK(pthread_create(&w.t, NULL, sign_many, &w) == 0);
	nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000 * 1000 }, NULL);
	daemon_restart(&signd);
	CHECK(pthread_join(w.t, NULL) == 0);
	CHECK(w.good == 1);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A library context configured by an openssl.cnf with the provider's timeout_ms = value. */
static OSSL_LIB_CTX *configured(const char *module_dir, const char *value)
{
	char path[256];
	OSSL_LIB_CTX *ctx;
	FILE *f;

	snprintf(path, sizeof(path), "%s/openssl.cnf", signd.dir);
	CHECK((f = fopen(path, "w")) != NULL);
	fprintf(f, "openssl_conf = init\n[init]\nproviders = provs\n"
		"[provs]\ndefault = dflt\np256sign = p256\n[dflt]\nactivate = 1\n"
		"[p256]\nmodule = %s/p256sign.so\ntimeout_ms = %s\nactivate = 1\n",
		module_dir, value);
	CHECK(fclose(f) == 0);
	CHECK((ctx = OSSL_LIB_CTX_new()) != NULL);
	CHECK(OSSL_LIB_CTX_load_config(ctx, path) == 1);
	return ctx;
}

/* openssl.cnf's timeout_ms bounds a signature of a stopped daemon; a bad value is reported. */
static void case_timeout(EVP_PKEY *pub, const char *module_dir)
{
	OSSL_LIB_CTX *saved = libctx;
	uint8_t sig[P256SIGN_SIG_MAX];
	size_t len = sizeof(sig);
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	EVP_PKEY *k;
	int64_t start;

	CHECK(c != NULL);
	libctx = configured(module_dir, "abc");
	CHECK(load(uri) == NULL);
	check_error("timeout_ms: abc is not a number of milliseconds");
	OSSL_LIB_CTX_free(libctx);
	libctx = configured(module_dir, "300");
	CHECK((k = load(uri)) != NULL);
	daemon_signal(&signd, SIGSTOP);
	CHECK(EVP_DigestSignInit_ex(c, NULL, "SHA256", libctx, NULL, k, NULL) == 1);
	start = now_ms();
	CHECK(EVP_DigestSign(c, sig, &len, (const uint8_t *)"x", 1) != 1);
	CHECK(now_ms() - start < 3000);	/* the default would be 5000 */
	check_error("no response from the daemon before the timeout");
	daemon_signal(&signd, SIGCONT);
	CHECK(sign_once(k, pub, "after the timeout"));
	EVP_PKEY_free(k);
	EVP_MD_CTX_free(c);
	OSSL_LIB_CTX_free(libctx);
	libctx = saved;
}

#define JOBS 16

/* One ASYNC job: a signature that must verify. */
struct job {
	ASYNC_JOB *job;
	ASYNC_WAIT_CTX *wctx;
	EVP_PKEY *k, *pub;
	char msg[32];
	int ret, done;
};

static int job_sign(void *arg)
{
	struct job *j = *(struct job **)arg;

	return sign_once(j->k, j->pub, j->msg);
}

/* Starts or resumes job j; returns 1 once it finished. */
static int run_job(struct job *j)
{
	int r = ASYNC_start_job(&j->job, j->wctx, &j->ret, job_sign, &j, sizeof(j));

	CHECK(r == ASYNC_PAUSE || r == ASYNC_FINISH);
	return j->done = r == ASYNC_FINISH;
}

/* Resumes every paused job whose wait descriptors are ready, within timeout_ms. */
static void resume_ready(struct job *jobs, size_t n, int timeout_ms)
{
	struct pollfd pfd[JOBS];
	size_t owner[JOBS], nfds = 0, count;
	OSSL_ASYNC_FD fds[1];

	for (size_t i = 0; i < n; i++) {
		if (jobs[i].done)
			continue;
		CHECK(ASYNC_WAIT_CTX_get_all_fds(jobs[i].wctx, NULL, &count) == 1 && count == 1);
		CHECK(ASYNC_WAIT_CTX_get_all_fds(jobs[i].wctx, fds, &count) == 1);
		for (size_t f = 0; f < count; f++) {
			pfd[nfds] = (struct pollfd){ .fd = fds[f], .events = POLLIN };
			owner[nfds++] = i;
		}
	}
	CHECK(poll(pfd, nfds, timeout_ms) > 0);
	for (size_t f = 0; f < nfds; f++)
		if ((pfd[f].revents & POLLIN) && !jobs[owner[f]].done)
			(void)run_job(&jobs[owner[f]]);
}

/* Resumes the jobs as their descriptors say until every one has finished. */
static void finish_jobs(struct job *jobs, size_t n)
{
	size_t left = n;

	while (left > 0) {
		resume_ready(jobs, n, 5000);
		left = 0;
		for (size_t i = 0; i < n; i++)
			left += !jobs[i].done;
	}
}

/*
 * JOBS signatures in flight in one thread: with the daemon stopped every job must pause (the
 * provider sent its request and gave the thread back), all on the one connection the thread's
 * jobs share (the daemon accepted one connection for all JOBS requests in flight together);
 * resumed as their descriptors say, all finish once the daemon runs again, and every signature
 * verifies. A second batch reuses the connection.
 */
static void async_batch(EVP_PKEY *k, EVP_PKEY *pub)
{
	struct job jobs[JOBS];

	daemon_signal(&signd, SIGSTOP);
	for (int i = 0; i < JOBS; i++) {
		jobs[i] = (struct job){ .k = k, .pub = pub };
		snprintf(jobs[i].msg, sizeof(jobs[i].msg), "job %d", i);
		CHECK((jobs[i].wctx = ASYNC_WAIT_CTX_new()) != NULL);
		CHECK(run_job(&jobs[i]) == 0);	/* paused */
	}
	daemon_signal(&signd, SIGCONT);
	finish_jobs(jobs, JOBS);
	for (int i = 0; i < JOBS; i++) {
		CHECK(jobs[i].ret == 1);
		ASYNC_WAIT_CTX_free(jobs[i].wctx);
	}
}

static void case_async(EVP_PKEY *k, EVP_PKEY *pub, struct p256sign *status)
{
	unsigned long before = connections_total(status);

	for (int batch = 0; batch < 2; batch++)
		async_batch(k, pub);
	CHECK(connections_total(status) - before == 1);
}

/* A job whose daemon does not answer is woken by its deadline and fails with the timeout. */
static void case_async_timeout(EVP_PKEY *pub, const char *module_dir)
{
	OSSL_LIB_CTX *saved = libctx;
	struct job j = { .pub = pub, .msg = "stopped daemon" };

	libctx = configured(module_dir, "300");
	CHECK((j.k = load(uri)) != NULL);
	CHECK((j.wctx = ASYNC_WAIT_CTX_new()) != NULL);
	daemon_signal(&signd, SIGSTOP);
	CHECK(run_job(&j) == 0);
	resume_ready(&j, 1, 3000);	/* woken by the reader at the deadline, 300 ms */
	daemon_signal(&signd, SIGCONT);
	CHECK(j.done && j.ret == 0);
	check_error("no response from the daemon before the timeout");
	ASYNC_WAIT_CTX_free(j.wctx);
	EVP_PKEY_free(j.k);
	OSSL_LIB_CTX_free(libctx);
	libctx = saved;
}

/* The descriptors this process has open (/proc/self/fd, less the listing's own). */
static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	CHECK(d != NULL);
	while (readdir(d) != NULL)
		n++;
	CHECK(closedir(d) == 0);
	return n - 3;	/* ".", ".." and d's descriptor */
}

/* Returns once the daemon has released `signatures` in all and has no request in flight. */
static void daemon_answered(struct p256sign *status, unsigned long signatures)
{
	int64_t end = now_ms() + 5000;

	while (status_number(status, "signatures") < signatures ||
	    status_number(status, "inflight") != 0) {
		CHECK(now_ms() < end);
		nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
	}
}

/*
 * What libssl 3.0 leaves of a TLS connection freed while its job was paused: SSL_free frees the
 * wait context (ASYNC_WAIT_CTX_free, which calls the provider's cleanup) and never looks at the
 * job, which stays paused for ever with its stack. libssl loses the pointer with the SSL; here
 * the info callback notes it from inside the job, to keep it reachable so that the leak checks
 * speak of the provider's memory only (volatile: no code reads it, only the leak checkers do).
 */
static ASYNC_JOB *volatile abandoned[2];
static ASYNC_JOB *volatile abandoned_by_thread;
static size_t n_abandoned;
static ASYNC_JOB *server_job;

/* The server's info callback: runs inside the handshake's job, whose pointer it notes. */
static void note_job(const SSL *ssl, int where, int ret)
{
	(void)ssl, (void)where, (void)ret;
	if (ASYNC_get_current_job() != NULL)
		server_job = ASYNC_get_current_job();
}

/* A self-signed certificate of key (the default provider's copy, the daemon's key). */
static X509 *self_signed(EVP_PKEY *key)
{
	X509 *x = X509_new_ex(libctx, NULL);
	X509_NAME *name;

	CHECK(x != NULL);
	CHECK(X509_set_version(x, X509_VERSION_3) == 1);
	CHECK(ASN1_INTEGER_set(X509_get_serialNumber(x), 1) == 1);
	CHECK(X509_gmtime_adj(X509_getm_notBefore(x), 0) != NULL);
	CHECK(X509_gmtime_adj(X509_getm_notAfter(x), 86400) != NULL);
	CHECK((name = X509_get_subject_name(x)) != NULL);
	CHECK(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
		(const unsigned char *)"localhost", -1, -1, 0) == 1);
	CHECK(X509_set_issuer_name(x, name) == 1);
	CHECK(X509_set_pubkey(x, key) == 1);
	CHECK(X509_sign(x, key, EVP_sha256()) > 0);
	return x;
}

/* A TLS context of libctx: a TLS 1.3 server with SSL_MODE_ASYNC and k (cert set), or a client. */
static SSL_CTX *tls_ctx(EVP_PKEY *k, X509 *cert)
{
	SSL_CTX *c = SSL_CTX_new_ex(libctx, NULL, cert ? TLS_server_method() : TLS_client_method());

	CHECK(c != NULL);
	CHECK(SSL_CTX_set_min_proto_version(c, TLS1_3_VERSION) == 1);
	if (cert == NULL)
		return c;
	CHECK(SSL_CTX_use_certificate(c, cert) == 1);
	CHECK(SSL_CTX_use_PrivateKey(c, k) == 1);
	SSL_CTX_set_mode(c, SSL_MODE_ASYNC);
	SSL_CTX_set_info_callback(c, note_job);
	return c;
}

/*
 * A TLS server frees the connection of a client gone while the handshake's job is paused in the
 * provider (SSL_free, libssl's own; a client and a server in this thread, over a BIO pair):
 * before the daemon answered (answered = 0), or after the answer woke the job's descriptor, the
 * job never resumed (answered = 1: haproxy's ssl_async_fd_free waits for that, then calls
 * SSL_free). The eventfd is closed (no descriptor more than before), the answer is dropped
 * without touching freed memory (valgrind and ASan watch) nor the closed descriptor: its
 * number, taken again at once, is never written to. The thread's next signatures, async and
 * blocking, still verify.
 */
static void async_freed(EVP_PKEY *k, EVP_PKEY *pub, struct p256sign *status, int answered)
{
	struct job next = { .k = k, .pub = pub, .msg = "after the free" };
	X509 *cert = self_signed(pub);
	SSL_CTX *sctx = tls_ctx(k, cert), *cctx = tls_ctx(NULL, NULL);
	SSL *srv = SSL_new(sctx), *cli = SSL_new(cctx);
	unsigned long signatures;
	int fds, probe;
	OSSL_ASYNC_FD wait_fd;
	BIO *sb, *cb;
	size_t count;
	uint64_t n;

	CHECK(srv != NULL && cli != NULL && BIO_new_bio_pair(&sb, 0, &cb, 0) == 1);
	SSL_set_bio(srv, sb, sb);
	SSL_set_bio(cli, cb, cb);
	SSL_set_accept_state(srv);
	SSL_set_connect_state(cli);
	/* The thread's connections are open (the jobs' from case_async): counted from here. */
	CHECK(sign_once(k, pub, "blocking before the free"));
	fds = open_fds();
	signatures = status_number(status, "signatures");
	daemon_signal(&signd, SIGSTOP);
	CHECK(SSL_do_handshake(cli) == -1 && SSL_get_error(cli, -1) == SSL_ERROR_WANT_READ);
	server_job = NULL;
	CHECK(SSL_do_handshake(srv) == -1 && SSL_get_error(srv, -1) == SSL_ERROR_WANT_ASYNC);
	CHECK(SSL_waiting_for_async(srv) && server_job != NULL);	/* paused, its request sent */
	CHECK(SSL_get_all_async_fds(srv, NULL, &count) == 1 && count == 1);
	CHECK(SSL_get_all_async_fds(srv, &wait_fd, &count) == 1);
	if (answered) {
		daemon_signal(&signd, SIGCONT);
		CHECK(poll(&(struct pollfd){ .fd = wait_fd, .events = POLLIN }, 1, 5000) == 1);
	}
	CHECK(n_abandoned < sizeof(abandoned) / sizeof(abandoned[0]));
	abandoned[n_abandoned++] = server_job;
	SSL_free(srv);
	CHECK(open_fds() == fds);
	/* The lowest free number: a write meant for the withdrawn request would land here. */
	CHECK((probe = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) == wait_fd);
	if (!answered)
		daemon_signal(&signd, SIGCONT);
	/* The late answer is on the thread's connection before the next request is sent, so the
	 * reader has dealt with it once the next job's answer has come. */
	daemon_answered(status, signatures + 1);
	CHECK((next.wctx = ASYNC_WAIT_CTX_new()) != NULL);
	if (!run_job(&next))
		finish_jobs(&next, 1);
	CHECK(next.ret == 1);
	ASYNC_WAIT_CTX_free(next.wctx);
	CHECK(read(probe, &n, sizeof(n)) < 0 && errno == EAGAIN);
	CHECK(close(probe) == 0);
	CHECK(sign_once(k, pub, "blocking after the free"));
	CHECK(open_fds() == fds);
	CHECK(status_number(status, "inflight") == 0);
	SSL_free(cli);
	SSL_CTX_free(cctx);
	SSL_CTX_free(sctx);
	X509_free(cert);
}

static void case_async_freed(EVP_PKEY *k, EVP_PKEY *pub, struct p256sign *status)
{
	async_freed(k, pub, status, 0);
	async_freed(k, pub, status, 1);
}

/* A thread that starts job j, which must pause (the daemon is stopped), and exits. */
static void *start_and_exit(void *arg)
{
	struct job *j = arg;

	CHECK(run_job(j) == 0);
	abandoned_by_thread = j->job;
	return NULL;
}

/*
 * A server thread exits while a job it started is paused in the provider (its lane, the
 * thread's daemon connection and reader, goes with it), and the job's wait context is freed
 * afterwards from another thread, as a server would free the TLS connection: the provider's
 * cleanup must find the request it withdraws still valid (valgrind and ASan watch), close the
 * eventfd, and the late answer harm nothing. The job itself is never resumed (it belongs to the
 * gone thread's ASYNC pool), so it stays reachable here, as libssl's abandoned ones above.
 */
static void case_async_thread_gone(EVP_PKEY *k, EVP_PKEY *pub, struct p256sign *status)
{
	struct job j = { .k = k, .pub = pub, .msg = "thread gone" };
	unsigned long signatures = status_number(status, "signatures");
	int fds = open_fds();
	pthread_t t;

	CHECK((j.wctx = ASYNC_WAIT_CTX_new()) != NULL);
	daemon_signal(&signd, SIGSTOP);
	CHECK(pthread_create(&t, NULL, start_and_exit, &j) == 0);
	CHECK(pthread_join(t, NULL) == 0);
	ASYNC_WAIT_CTX_free(j.wctx);		/* the provider's cleanup runs here */
	daemon_signal(&signd, SIGCONT);
	daemon_answered(status, signatures + 1);
	CHECK(open_fds() == fds);
	CHECK(sign_once(k, pub, "after the thread's exit"));
}

int main(int argc, char **argv)
{
	OSSL_PROVIDER *def, *ours;
	struct p256sign *status;
	EVP_PKEY *k, *pub;

	if (argc != 4) {
		fprintf(stderr, "usage: test-provider-api P256SIGND KEY.pem MODULE_DIR\n");
		return 2;
	}
	CHECK((libctx = OSSL_LIB_CTX_new()) != NULL);
	CHECK(OSSL_PROVIDER_set_default_search_path(libctx, argv[3]) == 1);
	CHECK((def = OSSL_PROVIDER_load(libctx, "default")) != NULL);
	CHECK((ours = OSSL_PROVIDER_load(libctx, "p256sign")) != NULL);
	case_no_daemon();

	daemon_start(&signd, argv[1], &(struct daemon_config){ .key_name = "web",
		.key_file = argv[2], .nonce = "hedged", .workers = 1,
		.max_inflight_per_connection = 64 });
	snprintf(uri, sizeof(uri), "p256sign:web;socket=%s", signd.socket);
	CHECK((k = load(uri)) != NULL);
	pub = file_key(argv[2]);
	CHECK(load("p256sign:id=0000000000000000000000000000000000000000000000000000000000000000"
		";socket=/nonexistent/s.sock") == NULL);
	check_error("loading key id=00000000");
	snprintf(uri, sizeof(uri), "p256sign:nokey;socket=%s", signd.socket);
	CHECK(load(uri) == NULL);
	check_error("no such key");

	case_params(k, pub);
	case_keyref_file(pub, argv[2]);
	case_digest_sign(k, pub);
	case_dupctx(k, pub);
	case_prehashed(k, pub);
	case_daemon_restart(k, pub);
	snprintf(uri, sizeof(uri), "p256sign:web;socket=%s", signd.socket);
	CHECK_RC(p256sign_connect(&status, signd.socket), 0);
	case_threads(k, pub, status);
	case_fork(k, pub, status);
	case_restart_gap(k, pub);
	case_timeout(pub, argv[3]);
	case_async(k, pub, status);
	case_async_freed(k, pub, status);
	case_async_thread_gone(k, pub, status);
	p256sign_close(status);
	case_async_timeout(pub, argv[3]);

	daemon_stop(&signd);
	EVP_PKEY_free(pub);
	EVP_PKEY_free(k);
	OSSL_PROVIDER_unload(ours);
	OSSL_PROVIDER_unload(def);
	OSSL_LIB_CTX_free(libctx);
	printf("ok\n");
	return 0;
}
