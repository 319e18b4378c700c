/* SPDX-License-Identifier: ISC */
/*
 * A dudect-style timing test of p256_sign (Reparaz, Balasch, Verbauwhede, "Dude, is my code
 * constant time?", DATE 2017): two classes of inputs are measured in random order and Welch's
 * t-test compares their timing distributions. Two tests, each against random keys:
 *   fixed: one fixed random key (class 0) vs a fresh random key per signature (class 1);
 *   one:   the key d = 1 (class 0) vs a fresh random key per signature (class 1).
 * Digests are random in both classes, the nonce mode is deterministic (no getrandom noise).
 * --path pool measures instead the request path of precomputed nonces, p256_pool_sign: before
 * each measurement, in both classes alike, the class's key gets a new pool with one entry (the
 * same work for either class, so that caches are left alike), and only the signature from it is
 * timed. --path batch16 measures p256_sign_batch on 16 items (the signer's batch path), each
 * item's key drawn at random from its class's 4,096 keys made at start (copies of the class's
 * key in class 0, random keys in class 1) and copied into the same 16 places for either class,
 * so that only the values differ; digests are random for every item. As in dudect, the t
 * statistic is also computed on measurements cropped at 100 percentiles and for the
 * second-order (centred, squared) values; the largest |t| is reported. |t| < 4.5 passes.
 *
 *   dudect-sign [--measurements N] [--test fixed|one|all] [--path sign|pool|batch16]
 *
 * Exit status 0 when every test passes, 1 when one fails, 2 on a usage or setup error.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench-clock.h"
#include "p256.h"

#define BATCH 10000		/* measurements prepared and taken together */
#define WARMUP 10		/* the first measurements of a batch are dropped, as in dudect */
#define PERCENTILES 100
#define TESTS (1 + PERCENTILES + 1)	/* raw, cropped at each percentile, second order */
#define ENOUGH 10000		/* a t value counts once its test has this many measurements */
#define T_THRESHOLD 4.5

/* Welch's t-test, accumulated online (Welford). */
struct ttest {
	double mean[2], m2[2], n[2];
};

static void t_push(struct ttest *t, double x, int cls)
{
	double delta = x - t->mean[cls];

	t->n[cls]++;
	t->mean[cls] += delta / t->n[cls];
	t->m2[cls] += delta * (x - t->mean[cls]);
}

static double t_value(const struct ttest *t)
{
	double v0 = t->m2[0] / (t->n[0] - 1), v1 = t->m2[1] / (t->n[1] - 1);
	double den = sqrt(v0 / t->n[0] + v1 / t->n[1]);

	return den > 0 ? (t->mean[0] - t->mean[1]) / den : 0;
}

struct batch {
	uint8_t key[BATCH][P256_SCALAR_LEN];
	uint8_t digest[BATCH][P256_DIGEST_LEN];
	uint8_t cls[BATCH];
	double ns[BATCH];
};

/* n - 1, the largest private key */
static const uint8_t N_MINUS_1[32] = {
	0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x50
};

/* A uniformly random key in [1, n - 1]. */
static int random_key(uint8_t key[32])
{
	static const uint8_t zero[32];

	do {
		if (RAND_bytes(key, 32) != 1)
			return -1;
	} while (memcmp(key, N_MINUS_1, 32) > 0 || memcmp(key, zero, 32) == 0);
	return 0;
}

/* Random classes and digests; class 0 gets fixed_key, class 1 a fresh random key. */
static int prepare(struct batch *b, const uint8_t fixed_key[32])
{
	if (RAND_bytes(b->cls, sizeof(b->cls)) != 1 ||
	    RAND_bytes(&b->digest[0][0], sizeof(b->digest)) != 1)
		return -1;
	for (int i = 0; i < BATCH; i++) {
		b->cls[i] &= 1;
		if (b->cls[i] == 0)
			memcpy(b->key[i], fixed_key, 32);
		else if (random_key(b->key[i]) != 0)
			return -1;
	}
	return 0;
}

/* Which function is measured (--path). */
static enum { PATH_SIGN, PATH_POOL, PATH_BATCH16 } path;
static const char *const path_fn[] = { "p256_sign", "p256_pool_sign", "p256_sign_batch" };

#define BATCH_ITEMS 16
#define KEY_SET 4096

/* --path batch16: each class's keys, and per measurement each item's key and digest. */
static struct p256_key batch_keys[2][KEY_SET];
static uint16_t batch_key[BATCH][BATCH_ITEMS];
static uint8_t batch_digest[BATCH][BATCH_ITEMS][P256_DIGEST_LEN];

/* Makes the batch path's keys: class 0 copies of class0_key, class 1 random; 0 or -1. */
static int batch_keys_init(const uint8_t class0_key[32])
{
	uint8_t d[32];
	int r = 0;

	for (int i = 0; i < 2 * KEY_SET && r == 0; i++) {
		struct p256_key *k = &batch_keys[i / KEY_SET][i % KEY_SET];

		p256_key_clear(k);
		if (i < KEY_SET)
			memcpy(d, class0_key, 32);
		else if (random_key(d) != 0)
			r = -1;
		if (r == 0 && p256_key_init_untabled(k, d) != 0)
			r = -1;
	}
	explicit_bzero(d, sizeof(d));
	return r;
}

/* Each item's digest and key, drawn at random (the key among its class's). */
static int batch_prepare(void)
{
	if (RAND_bytes(&batch_digest[0][0][0], sizeof(batch_digest)) != 1 ||
	    RAND_bytes((uint8_t *)batch_key, sizeof(batch_key)) != 1)
		return -1;
	for (int i = 0; i < BATCH; i++)
		for (int j = 0; j < BATCH_ITEMS; j++)
			batch_key[i][j] %= KEY_SET;
	return 0;
}

/*
 * Measurement i of the batch path: one p256_sign_batch of 16 items; its time in *ns. The items'
 * keys are copied into the same 16 places for either class first: signing straight from the
 * class's own array made the two classes differ by where their keys lie in memory (a test with
 * random keys in both classes failed at |t| = 28), not by their values.
 */
static int measure_batch(const struct batch *b, int i, double *ns)
{
	static struct p256_key slot[BATCH_ITEMS];
	struct p256_batch_item items[BATCH_ITEMS];
	uint64_t t0;
	int r = 0;

	for (int j = 0; j < BATCH_ITEMS; j++) {
		slot[j] = batch_keys[b->cls[i]][batch_key[i][j]];
		items[j] = (struct p256_batch_item){ .key = &slot[j],
			.digest = batch_digest[i][j], .mode = P256_NONCE_DETERMINISTIC };
	}
	t0 = mono_ns();
	if (p256_sign_batch(items, BATCH_ITEMS) != 0)
		r = -1;
	*ns = (double)(mono_ns() - t0);
	for (int j = 0; j < BATCH_ITEMS && r == 0; j++)
		r = items[j].result;
	explicit_bzero(items, sizeof(items));
	return r;
}

/* One p256_pool_sign from a pool of one entry made for key just before; its time in *ns. */
static int measure_pool(const uint8_t key[32], const uint8_t digest[32], double *ns)
{
	struct p256_key k;
	struct p256_pool *pool = NULL;
	uint8_t sig[P256_SIG_LEN];
	uint64_t t0;
	int r;

	if ((r = p256_key_init_untabled(&k, key)) != 0 || (r = p256_pool_new(&pool, &k, 1)) != 0 ||
	    (r = p256_pool_refill(pool, 1)) != 0)
		goto out;
	t0 = mono_ns();
	r = p256_pool_sign(pool, digest, 0, sig);
	*ns = (double)(mono_ns() - t0);
out:
	p256_pool_free(pool);
	p256_key_clear(&k);
	return r;
}

static int measure(struct batch *b)
{
	uint8_t sig[P256_SIG_LEN];

	for (int i = 0; i < BATCH; i++) {
		uint64_t t0 = mono_ns();
		int r;

		if (path == PATH_POOL)
			r = measure_pool(b->key[i], b->digest[i], &b->ns[i]);
		else if (path == PATH_BATCH16)
			r = measure_batch(b, i, &b->ns[i]);
		else {
			r = p256_sign(b->key[i], b->digest[i], P256_NONCE_DETERMINISTIC, NULL, 0,
			    sig);
			b->ns[i] = (double)(mono_ns() - t0);
		}
		if (r != 0) {
			fprintf(stderr, "dudect-sign: %s: %s\n", path_fn[path],
			    r > 0 ? "empty pool" : p256_strerror(r));
			return -1;
		}
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* dudect's crop thresholds: percentiles 1 - 0.5^(10 (i+1) / 100) of the first batch. */
static void set_thresholds(const struct batch *b, double thr[PERCENTILES])
{
	static double sorted[BATCH];

	memcpy(sorted, b->ns, sizeof(sorted));
	qsort(sorted, BATCH, sizeof(double), cmp_double);
	for (int i = 0; i < PERCENTILES; i++)
		thr[i] = sorted[(size_t)((1 - pow(0.5, 10.0 * (i + 1) / PERCENTILES)) * BATCH)];
}

static void update(struct ttest t[TESTS], const struct batch *b, const double thr[PERCENTILES])
{
	for (int i = WARMUP; i < BATCH; i++) {
		double x = b->ns[i];
		int c = b->cls[i];

		t_push(&t[0], x, c);
		for (int p = 0; p < PERCENTILES; p++)
			if (x < thr[p])
				t_push(&t[1 + p], x, c);
		if (t[0].n[0] + t[0].n[1] > ENOUGH) {
			double centred = x - t[0].mean[c];
			t_push(&t[TESTS - 1], centred * centred, c);
		}
	}
}

/* The largest |t| among tests with enough measurements; *which = its index. */
static double max_t(const struct ttest t[TESTS], int *which)
{
	double best = 0;

	*which = -1;
	for (int i = 0; i < TESTS; i++) {
		double v;
		if (t[i].n[0] + t[i].n[1] < ENOUGH)
			continue;
		v = fabs(t_value(&t[i]));
		if (*which < 0 || v > best) {
			best = v;
			*which = i;
		}
	}
	return best;
}

/* Runs one test of `measurements` signatures; 0 pass, 1 fail, -1 error. */
static int run_test(const char *name, const uint8_t class0_key[32], long measurements)
{
	static struct batch b;
	static struct ttest t[TESTS];
	double thr[PERCENTILES], start = mono_s(), tmax;
	char kind[48];
	long done = 0;
	int which;

	memset(t, 0, sizeof(t));
	if (path == PATH_BATCH16 && batch_keys_init(class0_key) != 0)
		return -1;
	/* the first batch only sets the crop thresholds */
	if (prepare(&b, class0_key) != 0 || (path == PATH_BATCH16 && batch_prepare() != 0) ||
	    measure(&b) != 0)
		return -1;
	set_thresholds(&b, thr);
	while (done < measurements) {
		if (prepare(&b, class0_key) != 0 ||
		    (path == PATH_BATCH16 && batch_prepare() != 0) || measure(&b) != 0)
			return -1;
		update(t, &b, thr);
		done += BATCH - WARMUP;
	}
	tmax = max_t(t, &which);
	if (which == 0)
		snprintf(kind, sizeof(kind), "raw");
	else if (which == TESTS - 1)
		snprintf(kind, sizeof(kind), "second order");
	else
		snprintf(kind, sizeof(kind), "cropped below %.0f ns", thr[which - 1]);
	printf("%-5s %ld measurements (%.0f class 0, %.0f class 1) in %.0f s: max |t| = %.2f (%s), "
		"mean %.2f / %.2f us: %s\n",
		name, done, t[0].n[0], t[0].n[1], mono_s() - start, tmax, kind,
		t[0].mean[0] / 1e3, t[0].mean[1] / 1e3, tmax < T_THRESHOLD ? "pass" : "FAIL");
	fflush(stdout);
	return tmax < T_THRESHOLD ? 0 : 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: dudect-sign [--measurements N] [--test fixed|one|all] "
	    "[--path sign|pool|batch16]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "measurements", required_argument, NULL, 'm' },
		{ "test", required_argument, NULL, 't' },
		{ "path", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	static const uint8_t ONE[32] = { [31] = 1 };
	uint8_t fixed[32];
	long measurements = 1000000;
	const char *which = "all";
	char *end;
	int c, r, status = 0;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			errno = 0;
			measurements = strtol(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || measurements < ENOUGH)
				usage();
			break;
		case 't':
			which = optarg;
			break;
		case 'p':
			if (strcmp(optarg, "sign") == 0)
				path = PATH_SIGN;
			else if (strcmp(optarg, "pool") == 0)
				path = PATH_POOL;
			else if (strcmp(optarg, "batch16") == 0)
				path = PATH_BATCH16;
			else
				usage();
			break;
		default:
			usage();
		}
	}
	if (optind != argc || (strcmp(which, "fixed") != 0 && strcmp(which, "one") != 0 &&
	    strcmp(which, "all") != 0))
		usage();
	if (random_key(fixed) != 0) {
		fprintf(stderr, "dudect-sign: RAND_bytes failed\n");
		return 2;
	}
	if (strcmp(which, "one") != 0) {
		if ((r = run_test("fixed", fixed, measurements)) < 0)
			return 2;
		status |= r;
	}
	if (strcmp(which, "fixed") != 0) {
		if ((r = run_test("one", ONE, measurements)) < 0)
			return 2;
		status |= r;
	}
	return status;
}
