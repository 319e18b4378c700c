/* SPDX-License-Identifier: ISC */
/*
 * Precomputed nonces (p256.h, docs/signing.md): entries (k^-1, r, r*d) made ahead for one key,
 * each used once. The entries and their counts live in pages of their own that are locked,
 * left out of core dumps and wiped in a fork's child, so that no copy of the process can use an
 * entry its parent also uses.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ct.h"
#include "drbg.h"
#include "ec.h"
#include "field.h"
#include "sign-internal.h"

#define SEED_LEN POOL_SEED_LEN
/* As in sign.c: a hundred rejected candidates in a row mean a broken DRBG, not bad luck. */
#define MAX_TRIES 100

/* One nonce made ahead: everything of s = k^-1 (e + r*d) that does not depend on the digest. */
struct pool_entry {
	scalar kinv_mont;	/* k^-1 * R */
	scalar rs;		/* r = x(kG) mod n */
	scalar rd;		/* r * d mod n */
};

/* The new entries of one refill, before and after their common inversions: as secret as the
 * entries, so kept in the same pages. */
struct refill {
	uint8_t seeds[P256_BATCH_MAX * SEED_LEN];
	uint8_t X[P256_BATCH_MAX][32], Z[P256_BATCH_MAX][32], x[P256_BATCH_MAX][32];
	scalar k_mont[P256_BATCH_MAX], prefix[P256_BATCH_MAX], kinv[P256_BATCH_MAX];
	scalar ds, d_mont, k;
};

/*
 * What MADV_WIPEONFORK clears in a child: `live` reads 0 there, and a pool that is not live
 * has nothing to give and makes nothing (its child's pages would not even be locked).
 */
struct pool_pages {
	uint64_t live;
	uint64_t made, used, wiped;
	uint64_t ready;		/* entries e[0 .. ready) are unused */
	struct refill scratch;
	struct pool_entry e[];
};

struct p256_pool {
	const struct p256_key *key;
	size_t capacity;
	size_t bytes;		/* the mapping: whole pages */
	struct pool_pages *pages;
};

int p256_pool_new(struct p256_pool **out, const struct p256_key *key, size_t capacity)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct p256_pool *pool = NULL;
	void *p = MAP_FAILED;
	scalar ds;
	int r = P256_ERR_LENGTH, saved;

	*out = NULL;
	if (capacity == 0 || capacity > P256_POOL_MAX)
		goto out;
	if ((r = sign_load_private(&ds, key->d)) != 0)
		goto out;
	r = P256_ERR_INTERNAL;
	if ((pool = calloc(1, sizeof(*pool))) == NULL)
		goto out;
	pool->key = key;
	pool->capacity = capacity;
	pool->bytes = (sizeof(struct pool_pages) + capacity * sizeof(struct pool_entry) + page - 1) /
	    page * page;
	p = mmap(NULL, pool->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || madvise(p, pool->bytes, MADV_DONTDUMP) != 0 ||
	    madvise(p, pool->bytes, MADV_WIPEONFORK) != 0 || mlock(p, pool->bytes) != 0)
		goto out;
	pool->pages = p;
	pool->pages->live = 1;
	*out = pool;
	pool = NULL;
	r = 0;
out:
	saved = errno;
	if (pool != NULL && p != MAP_FAILED)
		munmap(p, pool->bytes);
	free(pool);
	scalar_wipe(&ds);
	errno = saved;
	return r;
}

size_t p256_pool_missing(const struct p256_pool *pool)
{
	return pool->pages->live ? pool->capacity - pool->pages->ready : 0;
}

/*
 * Entry number `count`'s nonce: RFC 6979's HMAC-DRBG over the key, with the count in place of
 * the digest and the entry's 32 fresh bytes as additional data, its candidates taken until one
 * is in [1, n). The key makes k secret even to someone who learns the random bytes; the count
 * makes two entries differ even if the random bytes repeat.
 */
static int make_nonce(const uint8_t d[32], uint64_t count, const uint8_t seed[SEED_LEN],
	scalar *k)
{
	uint8_t h1[32] = { 0 }, kb[32];
	struct drbg *g = NULL;
	uint64_t ok = 0;
	int r;

	for (int i = 0; i < 8; i++)
		h1[31 - i] = (uint8_t)(count >> (8 * i));
	if ((r = drbg_new(&g, d, h1, seed, SEED_LEN)) != 0)
		goto out;
	for (int tries = 0; tries < MAX_TRIES && !ok; tries++) {
		if ((r = drbg_next(g, kb)) != 0)
			goto out;
		scalar_from_bytes(k, kb);
		ok = scalar_in_range(k);
		ct_declassify(&ok, sizeof(ok));		/* a rejected candidate is discarded */
	}
	r = ok ? 0 : P256_ERR_INTERNAL;
out:
	drbg_free(g);
	explicit_bzero(kb, sizeof(kb));
	return r;
}

/* Entry i of f from its seed: k in k_mont[i] and kG in Jacobian coordinates. */
static int make_point(const struct p256_pool *pool, struct refill *f, size_t i)
{
	int r;

	if ((r = make_nonce(pool->key->d, pool->pages->made + i, f->seeds + SEED_LEN * i,
		    &f->k)) == 0 &&
	    (r = ec_base_mul_jacobian(&f->k, f->X[i], NULL, f->Z[i])) == 0)
		scalar_to_mont(&f->k_mont[i], &f->k);
	return r;
}

int pool_refill_with_seeds(struct p256_pool *pool, size_t max, const uint8_t *seeds)
{
	struct pool_pages *pg = pool->pages;
	struct refill *f = &pg->scratch;
	size_t want = p256_pool_missing(pool), m = 0;
	int r = 0;

	want = want < max ? want : max;
	want = want < P256_BATCH_MAX ? want : P256_BATCH_MAX;
	if (want == 0)
		return 0;
	if ((r = sign_load_private(&f->ds, pool->key->d)) != 0)
		goto out;
	if (seeds != NULL)
		memcpy(f->seeds, seeds, SEED_LEN * want);
	else if ((r = sign_draw_random(f->seeds, SEED_LEN * want)) != 0)
		goto out;
	scalar_to_mont(&f->d_mont, &f->ds);
	for (size_t i = 0; i < want; i++)
		if ((r = make_point(pool, f, i)) != 0)
			goto out;
	/* One inversion mod p for all the points' x, one mod n for all the k. */
	field_affine_batch(f->x, NULL, (const uint8_t (*)[32])f->X, NULL,
	    (const uint8_t (*)[32])f->Z, want);
	sign_invert_all(f->k_mont, f->prefix, f->kinv, want);
	for (size_t i = 0; i < want; i++) {
		struct pool_entry *e = &pg->e[pg->ready + m];
		uint64_t ok;

		scalar_from_bytes(&e->rs, f->x[i]);
		scalar_reduce(&e->rs, &e->rs);
		/* r = 0 (probability about 2^-256): the entry is dropped. r stays secret until its
		 * signature is released; only whether it is zero is made public. */
		ok = scalar_in_range(&e->rs);
		ct_declassify(&ok, sizeof(ok));
		if (!ok) {
			scalar_wipe(&e->rs);
			continue;
		}
		e->kinv_mont = f->kinv[i];
		scalar_mont_mul(&e->rd, &e->rs, &f->d_mont);	/* r*d (d in Montgomery form) */
		m++;
	}
	pg->ready += m;
	pg->made += m;
out:
	explicit_bzero(f, sizeof(*f));
	return r;
}

int p256_pool_refill(struct p256_pool *pool, size_t max)
{
	return pool_refill_with_seeds(pool, max, NULL);
}

int p256_pool_sign(struct p256_pool *pool, const uint8_t digest[P256_DIGEST_LEN], int checked,
	uint8_t sig[P256_SIG_LEN])
{
	struct pool_pages *pg = pool->pages;
	struct pool_entry *e;
	scalar h, u;
	int r;

	memset(sig, 0, P256_SIG_LEN);
	if (!pg->live || pg->ready == 0)
		return 1;
	e = &pg->e[--pg->ready];	/* the index is a count: public */
	pg->used++;
	scalar_from_bytes(&h, digest);
	scalar_reduce(&h, &h);
	scalar_add(&u, &h, &e->rd);	/* e + r*d */
	r = signing_finish(&e->rs, &u, &e->kinv_mont, sig);
	explicit_bzero(e, sizeof(*e));
	pg->wiped++;
	scalar_wipe(&u);
	if (r == 1)		/* s = 0 (probability about 2^-256): the caller signs on demand */
		explicit_bzero(sig, P256_SIG_LEN);
	else if (checked)
		r = sign_verify_own(pool->key, digest, sig, NULL);
	return r;
}

void p256_pool_counts(const struct p256_pool *pool, struct p256_pool_counts *c)
{
	c->made = pool->pages->made;
	c->used = pool->pages->used;
	c->wiped = pool->pages->wiped;
	c->ready = pool->pages->ready;
}

void p256_pool_free(struct p256_pool *pool)
{
	if (pool == NULL)
		return;
	explicit_bzero(pool->pages, pool->bytes);
	munlock(pool->pages, pool->bytes);
	munmap(pool->pages, pool->bytes);
	explicit_bzero(pool, sizeof(*pool));
	free(pool);
}
