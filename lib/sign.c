/* SPDX-License-Identifier: ISC */
/* ECDSA signing: RFC 6979 (hedged) nonces, k*G through OpenSSL, the rest in constant-time scalar code. */
#include <string.h>
#include <sys/random.h>

#include "ct.h"
#include "drbg.h"
#include "ec.h"
#include "p256.h"
#include "scalar.h"
#include "sign-internal.h"
#include "verify-internal.h"

#define EXTRA_MAX 64
#define HEDGE_LEN SIGN_HEDGE_LEN
/* RFC 6979 loops until a candidate works; each try fails with probability about 2^-32, so a
 * hundred failures mean a broken DRBG, not bad luck. */
#define MAX_TRIES 100

int sign_load_private(scalar *ds, const uint8_t d[32])
{
	uint64_t ok;

	scalar_from_bytes(ds, d);
	ok = scalar_in_range(ds);
	ct_declassify(&ok, sizeof(ok));
	return ok ? 0 : P256_ERR_SCALAR_RANGE;
}

/* The additional data of RFC 6979 section 3.6: the caller's extra bytes, then the hedge. */
static int additional_data(enum p256_nonce mode, const uint8_t *extra, size_t extra_len,
	const uint8_t hedge[HEDGE_LEN], uint8_t ad[EXTRA_MAX + HEDGE_LEN], size_t *ad_len)
{
	if (extra_len > EXTRA_MAX || (extra_len > 0 && extra == NULL))
		return P256_ERR_LENGTH;
	if (extra_len > 0)
		memcpy(ad, extra, extra_len);
	*ad_len = extra_len;
	if (mode == P256_NONCE_DETERMINISTIC)
		return 0;
	if (!sign_mode_hedged(mode))
		return P256_ERR_LENGTH;
	memcpy(ad + extra_len, hedge, HEDGE_LEN);
	*ad_len += HEDGE_LEN;
	return 0;
}

static int is_zero(const uint8_t *p, size_t n)
{
	uint8_t acc = 0;

	for (size_t i = 0; i < n; i++)
		acc |= p[i];
	return acc == 0;
}

int signing_start(struct signing *s, const uint8_t d[32], const uint8_t digest[32],
	enum p256_nonce mode, const uint8_t *extra, size_t extra_len,
	const uint8_t hedge[SIGN_HEDGE_LEN])
{
	uint8_t h1[32], ad[EXTRA_MAX + HEDGE_LEN];
	size_t ad_len;
	scalar ds;
	int r;

	s->drbg = NULL;
	if ((r = sign_load_private(&ds, d)) != 0 ||
	    (r = additional_data(mode, extra, extra_len, hedge, ad, &ad_len)) != 0)
		goto out;
	scalar_from_bytes(&s->e, digest);
	scalar_reduce(&s->e, &s->e);		/* bits2octets: the digest mod n */
	scalar_to_bytes(h1, &s->e);
	if ((r = drbg_new(&s->drbg, d, h1, ad, ad_len)) != 0)
		goto out;
	scalar_to_mont(&s->d_mont, &ds);
out:
	explicit_bzero(ad, sizeof(ad));
	scalar_wipe(&ds);
	return r;
}

int signing_candidate(struct signing *s, scalar *k)
{
	uint8_t kb[32];
	uint64_t ok;
	int r;

	if ((r = drbg_next(s->drbg, kb)) != 0)
		goto out;
	scalar_from_bytes(k, kb);
	ok = scalar_in_range(k);
	ct_declassify(&ok, sizeof(ok));		/* a rejected candidate is discarded */
	r = ok ? 0 : 1;
out:
	explicit_bzero(kb, sizeof(kb));
	return r;
}

void signing_commit_x(const struct signing *s, const uint8_t x[32], scalar *rs, scalar *u)
{
	scalar t;

	scalar_from_bytes(rs, x);
	scalar_reduce(rs, rs);
	scalar_mont_mul(&t, rs, &s->d_mont);	/* r*d (one operand in Montgomery form) */
	scalar_add(u, &s->e, &t);		/* e + r*d */
	scalar_wipe(&t);
}

int signing_commit(const struct signing *s, const scalar *k, scalar *rs, scalar *u)
{
	uint8_t x[32];
	int r;

	if ((r = ec_base_mul(k, x, NULL)) == 0)
		signing_commit_x(s, x, rs, u);
	explicit_bzero(x, sizeof(x));
	return r;
}

int signing_finish(const scalar *rs, const scalar *u, const scalar *kinv_mont, uint8_t sig[64])
{
	scalar s;

	scalar_mont_mul(&s, u, kinv_mont);	/* (e + r*d) / k */
	scalar_to_bytes(sig, rs);
	scalar_to_bytes(sig + 32, &s);
	scalar_wipe(&s);
	ct_declassify(sig, 64);			/* the signature is public from here */
	return is_zero(sig, 32) || is_zero(sig + 32, 32);
}

void signing_end(struct signing *s)
{
	drbg_free(s->drbg);
	s->drbg = NULL;
	scalar_wipe(&s->d_mont);
	scalar_wipe(&s->e);
}

int sign_with_hedge(const uint8_t d[32], const uint8_t digest[32], enum p256_nonce mode,
	const uint8_t *extra, size_t extra_len, const uint8_t hedge[SIGN_HEDGE_LEN],
	uint8_t sig[64])
{
	struct signing st;
	scalar k, rs, u, kinv;
	int r;

	if ((r = signing_start(&st, d, digest, mode, extra, extra_len, hedge)) != 0)
		goto out;
	r = P256_ERR_INTERNAL;
	for (int tries = 0; tries < MAX_TRIES; tries++) {
		if ((r = signing_candidate(&st, &k)) < 0)
			goto out;
		if (r == 1) {
			r = P256_ERR_INTERNAL;	/* in case it is the last one */
			continue;
		}
		if ((r = signing_commit(&st, &k, &rs, &u)) != 0)
			goto out;
		scalar_inv(&kinv, &k);
		scalar_to_mont(&kinv, &kinv);	/* k^-1 * R */
		if ((r = signing_finish(&rs, &u, &kinv, sig)) != 1)
			break;
		r = P256_ERR_INTERNAL;
	}
out:
	if (r != 0)
		explicit_bzero(sig, P256_SIG_LEN);
	signing_end(&st);
	scalar_wipe(&k);
	scalar_wipe(&u);
	scalar_wipe(&kinv);
	return r;
}

int p256_sign(const uint8_t d[P256_SCALAR_LEN], const uint8_t digest[P256_DIGEST_LEN],
	enum p256_nonce mode, const uint8_t *extra, size_t extra_len, uint8_t sig[P256_SIG_LEN])
{
	uint8_t hedge[HEDGE_LEN] = { 0 };
	int r = 0;

	if (sign_mode_hedged(mode) && getrandom(hedge, HEDGE_LEN, 0) != HEDGE_LEN)
		r = P256_ERR_RANDOM;
	if (r == 0)
		r = sign_with_hedge(d, digest, mode, extra, extra_len, hedge, sig);
	else
		explicit_bzero(sig, P256_SIG_LEN);
	explicit_bzero(hedge, sizeof(hedge));
	return r;
}

int p256_public_from_private(const uint8_t d[P256_SCALAR_LEN], uint8_t pub[P256_POINT_LEN])
{
	scalar ds;
	int r;

	if ((r = sign_load_private(&ds, d)) != 0 || (r = ec_base_mul(&ds, pub + 1, pub + 33)) != 0)
		goto out;
	pub[0] = 0x04;
	ct_declassify(pub, P256_POINT_LEN);
out:
	scalar_wipe(&ds);
	return r;
}

static int key_init(struct p256_key *key, const uint8_t d[P256_SCALAR_LEN], int tabled)
{
	struct p256_verify_key *table = NULL;
	int r;

	memset(key, 0, sizeof(*key));
	if ((r = p256_public_from_private(d, key->pub)) != 0 ||
	    (tabled && (r = p256_pubkey_precompute(key->pub, P256_POINT_LEN, &table)) != 0))
		goto out;
	memcpy(key->d, d, P256_SCALAR_LEN);
	key->verifier = table;
out:
	if (r != 0)
		p256_key_clear(key);
	return r;
}

int p256_key_init(struct p256_key *key, const uint8_t d[P256_SCALAR_LEN])
{
	return key_init(key, d, 1);
}

int p256_key_init_untabled(struct p256_key *key, const uint8_t d[P256_SCALAR_LEN])
{
	return key_init(key, d, 0);
}

void p256_key_clear(struct p256_key *key)
{
	p256_verify_key_free(key->verifier);
	explicit_bzero(key, sizeof(*key));
}

int sign_verify_own(const struct p256_key *key, const uint8_t digest[32], uint8_t sig[64],
	const scalar *w)
{
	const EC_GROUP *table = key->verifier != NULL ? key->verifier->table : NULL;
	BN_CTX *ctx = NULL;
	EC_POINT *q = NULL;
	int r = P256_ERR_INTERNAL;

	if ((ctx = BN_CTX_new()) == NULL ||
	    (table == NULL && ec_point_decode(key->pub, P256_POINT_LEN, &q, ctx) != 0))
		goto out;
	/*
	 * Only OpenSSL failing is not a fault of the signature. Public values only go in: the
	 * signature (released if it verifies), the digest and the public point or its table; never
	 * d or k, so the variable-time parts of the verification reveal nothing secret.
	 */
	r = ec_verify_sig(q, table, digest, sig, w, ctx);
	if (r != 0 && r != P256_ERR_INTERNAL)
		r = P256_ERR_FAULT;
out:
	if (r != 0)
		explicit_bzero(sig, P256_SIG_LEN);
	EC_POINT_free(q);
	BN_CTX_free(ctx);
	return r;
}

int p256_sign_checked(const struct p256_key *key, const uint8_t digest[P256_DIGEST_LEN],
	enum p256_nonce mode, const uint8_t *extra, size_t extra_len, uint8_t sig[P256_SIG_LEN])
{
	int r;

	if ((r = p256_sign(key->d, digest, mode, extra, extra_len, sig)) == 0)
		r = sign_verify_own(key, digest, sig, NULL);
	return r;
}
