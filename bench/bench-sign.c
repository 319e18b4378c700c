/* SPDX-License-Identifier: ISC */
/*
 * Latency of the signing core next to OpenSSL's own ECDSA on the same key, digests and signatures
 * (verification with the point given and with the key's precomputed table; the core's safegcd
 * inversion alone; a batch of 16 signatures per signature), and
 * the signing rate of p256_sign on several
 * threads.
 *
 *   bench-sign [--rounds N] [--batch N] [--json]
 *   bench-sign --throughput [--threads N] [--seconds S] [--json]
 *
 * Latency mode runs the measured functions in turn in every round (each a batch of calls timed
 * with CLOCK_MONOTONIC), so that they share the machine's noise, and reports the median
 * microseconds per operation over the rounds.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench-clock.h"
#include "modinv.h"
#include "p256.h"

#define DIGESTS 64	/* digests cycled through; a signature per digest for the verifiers */

struct fixture {
	struct p256_key key;
	EVP_PKEY *pkey;			/* the same private key for OpenSSL */
	EVP_PKEY_CTX *sign_ctx;		/* EVP_PKEY_sign_init done once */
	EVP_PKEY_CTX *verify_ctx;	/* EVP_PKEY_verify_init done once */
	uint8_t digest[DIGESTS][P256_DIGEST_LEN];
	uint8_t sig[DIGESTS][P256_SIG_LEN];		/* p256_sign output, r||s */
	uint8_t der[DIGESTS][P256_SIG_DER_MAX];		/* the same signatures in DER */
	size_t der_len[DIGESTS];
};

/* One measured operation on digest i; returns 0 on success. */
typedef int (*bench_fn)(struct fixture *f, int i);

static int op_sign_hedged(struct fixture *f, int i)
{
	uint8_t sig[P256_SIG_LEN];

	return p256_sign(f->key.d, f->digest[i], P256_NONCE_HEDGED, NULL, 0, sig);
}

static int op_sign_deterministic(struct fixture *f, int i)
{
	uint8_t sig[P256_SIG_LEN];

	return p256_sign(f->key.d, f->digest[i], P256_NONCE_DETERMINISTIC, NULL, 0, sig);
}

static int op_sign_checked(struct fixture *f, int i)
{
	uint8_t sig[P256_SIG_LEN];

	return p256_sign_checked(&f->key, f->digest[i], P256_NONCE_HEDGED, NULL, 0, sig);
}

static int op_verify(struct fixture *f, int i)
{
	return p256_verify(f->key.pub, P256_POINT_LEN, f->digest[i], f->sig[i], 0);
}

/* The key's own table (p256_pubkey_precompute), as VERIFY of a configured key and sign_checked use. */
static int op_verify_precomputed(struct fixture *f, int i)
{
	return p256_verify_precomputed(f->key.verifier, f->digest[i], f->sig[i], 0);
}

static int op_openssl_sign(struct fixture *f, int i)
{
	uint8_t der[P256_SIG_DER_MAX];
	size_t len = sizeof(der);

	return EVP_PKEY_sign(f->sign_ctx, der, &len, f->digest[i], P256_DIGEST_LEN) == 1 ? 0 : -1;
}

static int op_openssl_verify(struct fixture *f, int i)
{
	return EVP_PKEY_verify(f->verify_ctx, f->der[i], f->der_len[i], f->digest[i],
		P256_DIGEST_LEN) == 1 ? 0 : -1;
}

#define BATCH_SIGNS 16	/* sign_batch16_us: p256_sign_batch of this many, per signature */

/* p256_sign_batch of BATCH_SIGNS hedged items, each verified before release when checked. */
static int sign_batch16(struct fixture *f, int i, int checked)
{
	struct p256_batch_item items[BATCH_SIGNS];
	int r = 0;

	for (int j = 0; j < BATCH_SIGNS; j++)
		items[j] = (struct p256_batch_item){
			.key = &f->key,
			.digest = f->digest[(i + j) % DIGESTS],
			.mode = P256_NONCE_HEDGED,
			.checked = checked,
		};
	if (p256_sign_batch(items, BATCH_SIGNS) != 0)
		return -1;
	for (int j = 0; j < BATCH_SIGNS; j++)
		r |= items[j].result;
	return r;
}

static int op_sign_batch16(struct fixture *f, int i)
{
	return sign_batch16(f, i, 0);
}

static int op_sign_checked_batch16(struct fixture *f, int i)
{
	return sign_batch16(f, i, 1);
}

/* The safegcd inversion alone (lib/modinv.c), of the digest's bytes below the modulus. */
static int inverse(struct fixture *f, int i, const struct modinv_modulus *m)
{
	uint64_t a[4], r[4];

	memcpy(a, f->digest[i], sizeof(a));
	a[3] >>= 1;				/* below n and p */
	modinv(r, a, m);
	return r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 0 ? -1 : 0;
}

static int op_inverse_n(struct fixture *f, int i)
{
	return inverse(f, i, &MODINV_N);
}

static int op_inverse_p(struct fixture *f, int i)
{
	return inverse(f, i, &MODINV_P);
}

static const struct {
	const char *name;	/* JSON field, microseconds per operation */
	const char *label;
	bench_fn fn;
	int per_call;		/* operations one call does: the time is divided by it */
} OPS[] = {
	{ "sign_us", "p256_sign (hedged)", op_sign_hedged, 1 },
	{ "sign_deterministic_us", "p256_sign (deterministic)", op_sign_deterministic, 1 },
	{ "sign_checked_us", "p256_sign_checked (hedged)", op_sign_checked, 1 },
	{ "verify_us", "p256_verify", op_verify, 1 },
	{ "verify_precomputed_us", "p256_verify_precomputed", op_verify_precomputed, 1 },
	{ "openssl_sign_us", "OpenSSL EVP_PKEY_sign", op_openssl_sign, 1 },
	{ "openssl_verify_us", "OpenSSL EVP_PKEY_verify", op_openssl_verify, 1 },
	{ "inverse_n_us", "inversion mod n (safegcd)", op_inverse_n, 1 },
	{ "inverse_p_us", "inversion mod p (safegcd)", op_inverse_p, 1 },
	{ "sign_batch16_us", "p256_sign_batch of 16 (hedged)", op_sign_batch16, BATCH_SIGNS },
	{ "sign_checked_batch16_us", "p256_sign_batch of 16, checked", op_sign_checked_batch16,
	  BATCH_SIGNS },
};
#define NOPS (sizeof(OPS) / sizeof(OPS[0]))
enum { SIGN, SIGN_DET, SIGN_CHECKED, VERIFY, VERIFY_PRE, OSSL_SIGN, OSSL_VERIFY, INV_N, INV_P, SIGN_BATCH };

/* An OpenSSL EC private key holding d and its public point. */
static EVP_PKEY *openssl_key(const struct p256_key *key)
{
	OSSL_PARAM_BLD *bld = NULL;
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *ctx = NULL;
	EVP_PKEY *pkey = NULL;
	BIGNUM *d = NULL;

	if ((d = BN_bin2bn(key->d, P256_SCALAR_LEN, NULL)) == NULL ||
	    (bld = OSSL_PARAM_BLD_new()) == NULL ||
	    OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) != 1 ||
	    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, d) != 1 ||
	    OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, key->pub,
		P256_POINT_LEN) != 1 ||
	    (params = OSSL_PARAM_BLD_to_param(bld)) == NULL ||
	    (ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL)) == NULL ||
	    EVP_PKEY_fromdata_init(ctx) != 1 ||
	    EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_KEYPAIR, params) != 1)
		pkey = NULL;
	EVP_PKEY_CTX_free(ctx);
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	BN_clear_free(d);
	return pkey;
}

/* A random private key, digests, and their signatures; 0 or -1 with a message. */
static int fixture_init(struct fixture *f)
{
	uint8_t d[P256_SCALAR_LEN];
	int r;

	memset(f, 0, sizeof(*f));
	do {
		if (RAND_bytes(d, sizeof(d)) != 1)
			return fprintf(stderr, "bench-sign: RAND_bytes failed\n"), -1;
	} while ((r = p256_key_init(&f->key, d)) == P256_ERR_SCALAR_RANGE);
	explicit_bzero(d, sizeof(d));
	if (r != 0)
		return fprintf(stderr, "bench-sign: key: %s\n", p256_strerror(r)), -1;
	if (RAND_bytes(&f->digest[0][0], sizeof(f->digest)) != 1)
		return fprintf(stderr, "bench-sign: RAND_bytes failed\n"), -1;
	for (int i = 0; i < DIGESTS; i++)
		if ((r = p256_sign(f->key.d, f->digest[i], P256_NONCE_HEDGED, NULL, 0, f->sig[i])) != 0 ||
		    (r = p256_sig_to_der(f->sig[i], f->der[i], &f->der_len[i])) != 0)
			return fprintf(stderr, "bench-sign: sign: %s\n", p256_strerror(r)), -1;
	if ((f->pkey = openssl_key(&f->key)) == NULL ||
	    (f->sign_ctx = EVP_PKEY_CTX_new_from_pkey(NULL, f->pkey, NULL)) == NULL ||
	    EVP_PKEY_sign_init(f->sign_ctx) != 1 ||
	    (f->verify_ctx = EVP_PKEY_CTX_new_from_pkey(NULL, f->pkey, NULL)) == NULL ||
	    EVP_PKEY_verify_init(f->verify_ctx) != 1)
		return fprintf(stderr, "bench-sign: OpenSSL key setup failed\n"), -1;
	return 0;
}

static void fixture_clear(struct fixture *f)
{
	EVP_PKEY_CTX_free(f->sign_ctx);
	EVP_PKEY_CTX_free(f->verify_ctx);
	EVP_PKEY_free(f->pkey);
	p256_key_clear(&f->key);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Median microseconds per operation of every OPS entry into us[]; 0 or -1 if an operation failed. */
static int latency(struct fixture *f, int rounds, int batch, double us[NOPS])
{
	double *samples = calloc(NOPS * (size_t)rounds, sizeof(double));
	size_t op = 0;
	int idx = 0, r = -1;

	if (samples == NULL)
		return perror("calloc"), -1;
	for (op = 0; op < NOPS; op++)	/* warm-up: caches, lazy OpenSSL initialisation */
		for (int i = 0; i < batch; i++)
			if (OPS[op].fn(f, i % DIGESTS) != 0)
				goto out;
	for (int round = 0; round < rounds; round++, idx += batch) {
		for (op = 0; op < NOPS; op++) {
			double t0 = mono_us();
			for (int i = 0; i < batch; i++)
				if (OPS[op].fn(f, (idx + i) % DIGESTS) != 0)
					goto out;
			samples[op * (size_t)rounds + (size_t)round] =
				(mono_us() - t0) / batch / OPS[op].per_call;
		}
	}
	for (op = 0; op < NOPS; op++)
		us[op] = median(samples + op * (size_t)rounds, (size_t)rounds);
	r = 0;
out:
	if (r != 0)
		fprintf(stderr, "bench-sign: %s failed\n", OPS[op].label);
	free(samples);
	return r;
}

struct worker {
	pthread_t tid;
	const struct fixture *f;
	const atomic_int *stop;
	unsigned long signs;
	int err;
};

static void *sign_loop(void *arg)
{
	struct worker *w = arg;
	uint8_t sig[P256_SIG_LEN];

	while (!atomic_load_explicit(w->stop, memory_order_relaxed)) {
		int i = (int)(w->signs % DIGESTS);
		if ((w->err = p256_sign(w->f->key.d, w->f->digest[i], P256_NONCE_HEDGED, NULL, 0,
			sig)) != 0)
			break;
		w->signs++;
	}
	return NULL;
}

/* CPU time used by the whole process so far, in microseconds. */
static double cpu_us(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) {
		perror("clock_gettime");
		exit(2);
	}
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/*
 * Signs per second of p256_sign (hedged) summed over `threads` threads running for `seconds`, and
 * per CPU-second used: on a shared machine the threads may get less than a core each, which the
 * second figure does not depend on.
 */
static int throughput(const struct fixture *f, int threads, double seconds, double *per_s,
	double *per_cpu_s)
{
	struct worker *w = calloc((size_t)threads, sizeof(*w));
	struct timespec pause = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };
	atomic_int stop = 0;
	unsigned long total = 0;
	int started = 0, r = -1;
	double t0, t1, c0, c1;

	if (w == NULL)
		return perror("calloc"), -1;
	c0 = cpu_us();
	t0 = mono_us();
	for (; started < threads; started++) {
		w[started].f = f;
		w[started].stop = &stop;
		if ((errno = pthread_create(&w[started].tid, NULL, sign_loop, &w[started])) != 0) {
			perror("pthread_create");
			break;
		}
	}
	while (started == threads && nanosleep(&pause, &pause) != 0 && errno == EINTR)
		;
	atomic_store(&stop, 1);
	for (int i = 0; i < started; i++) {
		pthread_join(w[i].tid, NULL);
		total += w[i].signs;
		if (w[i].err != 0)
			fprintf(stderr, "bench-sign: p256_sign: %s\n", p256_strerror(w[i].err));
	}
	t1 = mono_us();
	c1 = cpu_us();
	r = started == threads ? 0 : -1;
	for (int i = 0; i < started; i++)
		if (w[i].err != 0)
			r = -1;
	*per_s = (double)total / ((t1 - t0) / 1e6);
	*per_cpu_s = (double)total / ((c1 - c0) / 1e6);
	free(w);
	return r;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: bench-sign [--rounds N] [--batch N] [--json]\n"
		"       bench-sign --throughput [--threads N] [--seconds S] [--json]\n");
	exit(2);
}

static long parse_long(const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "rounds", required_argument, NULL, 'r' },
		{ "batch", required_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "throughput", no_argument, NULL, 't' },
		{ "threads", required_argument, NULL, 'n' },
		{ "seconds", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int rounds = 300, batch = 8, json = 0, tput = 0, threads = cpus > 0 ? (int)cpus : 1;
	double seconds = 3, us[NOPS], per_s = 0, per_cpu_s = 0;
	struct fixture f;
	json_t *out;
	int c, r;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'r': rounds = (int)parse_long(optarg, 1, 1000000); break;
		case 'b': batch = (int)parse_long(optarg, 1, 100000); break;
		case 'j': json = 1; break;
		case 't': tput = 1; break;
		case 'n': threads = (int)parse_long(optarg, 1, 1024); break;
		case 's': seconds = (double)parse_long(optarg, 1, 3600); break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	if (fixture_init(&f) != 0)
		return 1;
	if (tput) {
		r = throughput(&f, threads, seconds, &per_s, &per_cpu_s);
		out = json_pack("{s:i, s:f, s:f, s:f}", "threads", threads, "seconds", seconds,
			"sign_per_s_all_cores", per_s, "sign_per_cpu_s", per_cpu_s);
		if (!json && r == 0)
			printf("p256_sign (hedged) on %d threads: %.0f signs/s, %.0f per CPU-second\n",
				threads, per_s, per_cpu_s);
	} else {
		r = latency(&f, rounds, batch, us);
		out = json_pack("{s:i, s:i}", "rounds", rounds, "batch", batch);
		for (size_t op = 0; op < NOPS && out != NULL && r == 0; op++)
			json_object_set_new(out, OPS[op].name, json_real(us[op]));
		if (out != NULL && r == 0) {
			json_object_set_new(out, "sign_ratio", json_real(us[SIGN] / us[OSSL_SIGN]));
			json_object_set_new(out, "sign_checked_ratio",
				json_real(us[SIGN_CHECKED] / us[OSSL_SIGN]));
			json_object_set_new(out, "verify_ratio", json_real(us[VERIFY] / us[OSSL_VERIFY]));
			json_object_set_new(out, "verify_precomputed_ratio",
				json_real(us[VERIFY_PRE] / us[OSSL_VERIFY]));
			json_object_set_new(out, "sign_batch16_ratio",
				json_real(us[SIGN_BATCH] / us[OSSL_SIGN]));
		}
		if (!json && r == 0) {
			printf("median us per operation, %d rounds of %d:\n", rounds, batch);
			for (size_t op = 0; op < NOPS; op++)
				printf("  %-30s %8.2f\n", OPS[op].label, us[op]);
			printf("  sign / OpenSSL sign           %6.3f\n", us[SIGN] / us[OSSL_SIGN]);
			printf("  sign_checked / OpenSSL sign   %6.3f\n",
				us[SIGN_CHECKED] / us[OSSL_SIGN]);
			printf("  verify / OpenSSL verify       %6.3f\n", us[VERIFY] / us[OSSL_VERIFY]);
			printf("  verify_precomputed / OpenSSL  %6.3f\n",
				us[VERIFY_PRE] / us[OSSL_VERIFY]);
			printf("  sign_batch16 / OpenSSL sign   %6.3f\n",
				us[SIGN_BATCH] / us[OSSL_SIGN]);
		}
	}
	if (out == NULL) {
		fprintf(stderr, "bench-sign: out of memory\n");
		r = -1;
	} else if (json && r == 0) {
		char *s = json_dumps(out, JSON_COMPACT | JSON_REAL_PRECISION(6));
		if (s == NULL || puts(s) < 0)
			r = -1;
		free(s);
	}
	json_decref(out);
	fixture_clear(&f);
	return r == 0 ? 0 : 1;
}
