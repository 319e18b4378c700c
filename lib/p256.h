/* SPDX-License-Identifier: ISC */
#ifndef P256_H
#define P256_H

#include <stddef.h>
#include <stdint.h>

#include "errors.h"

/*
 * The signing core: ECDSA over NIST P-256 with SHA-256 digests. Bytes in, bytes out; every
 * function returns 0 or a negative enum p256_err code. Nothing else in the project signs or
 * parses signatures. Scalars, digests and coordinates are 32-byte big-endian; a signature is r||s
 * (64 bytes) unless a function says DER.
 */

#define P256_SCALAR_LEN 32
#define P256_DIGEST_LEN 32
#define P256_SIG_LEN 64		/* r || s */
#define P256_SIG_DER_MAX 72	/* SEQUENCE { INTEGER r, INTEGER s } at its longest */
#define P256_POINT_LEN 65	/* SEC 1 uncompressed: 0x04 || x || y */
#define P256_POINT_COMPRESSED_LEN 33 /* SEC 1 compressed: 0x02 or 0x03 (y even or odd) || x */
#define P256_SPKI_LEN 91	/* DER SubjectPublicKeyInfo of a P-256 point */
#define P256_KEY_ID_LEN 32	/* SHA-256 of the SPKI */

/* How sign derives its nonce. */
enum p256_nonce {
	/* RFC 6979 HMAC-DRBG with 32 fresh getrandom bytes as the section 3.6 additional data. */
	P256_NONCE_HEDGED = 0,
	/* RFC 6979 exactly (no additional data): the same key and digest give the same signature. */
	P256_NONCE_DETERMINISTIC = 1,
	/* A key's pool of nonces made ahead (p256_pool_*); without one, signs as HEDGED does. */
	P256_NONCE_PRECOMPUTED = 2,
};

/*
 * ECDSA signature of `digest` under private scalar d (1 <= d < n). `extra` (extra_len bytes, may
 * be 0/NULL) is RFC 6979 section 3.6 additional data fed to the nonce DRBG: with
 * P256_NONCE_HEDGED 32 random bytes are appended after it, with P256_NONCE_DETERMINISTIC only
 * `extra` is used (none: RFC 6979 A.2.5 exactly). Constant time in d and in the nonce. Writes r||s
 * to sig. Errors: P256_ERR_SCALAR_RANGE, P256_ERR_RANDOM, P256_ERR_LENGTH (extra_len > 64),
 * P256_ERR_INTERNAL.
 */
int p256_sign(const uint8_t d[P256_SCALAR_LEN], const uint8_t digest[P256_DIGEST_LEN],
	enum p256_nonce mode, const uint8_t *extra, size_t extra_len, uint8_t sig[P256_SIG_LEN]);

/*
 * A private key ready for sign_checked: the scalar, its public point and a verifier built once
 * for it (p256_pubkey_precompute: the precomputed multiples of the public point, about 150 KiB
 * and 25 ms).
 * Initialise with p256_key_init (or p256_key_init_untabled), release with p256_key_clear (which
 * wipes d). The fields are visible so that tests can inject faults; callers must not write them.
 */
struct p256_verify_key;

struct p256_key {
	uint8_t d[P256_SCALAR_LEN];
	uint8_t pub[P256_POINT_LEN];
	struct p256_verify_key *verifier;	/* pub's table (p256_pubkey_precompute), or NULL */
};

/* Checks d's range, computes its public point (constant time) and builds the verifier. */
int p256_key_init(struct p256_key *key, const uint8_t d[P256_SCALAR_LEN]);

/*
 * p256_key_init without the verifier's table (verifier NULL), for a key that signs mostly with
 * p256_sign: p256_sign_checked still verifies fully, multiplying the public point without a
 * table (about 30 us more per signature).
 */
int p256_key_init_untabled(struct p256_key *key, const uint8_t d[P256_SCALAR_LEN]);

/* Wipes d and frees the verifier; safe on a zeroed or cleared key. */
void p256_key_clear(struct p256_key *key);

/*
 * p256_sign with key->d, then a full ECDSA verification of the result under key->pub (the
 * range of r and s, then (e/s)G + (r/s)Q, Q from its precomputed table if it has one) before it
 * is released: a signature that does not verify (a fault during signing) is wiped and
 * P256_ERR_FAULT returned.
 */
int p256_sign_checked(const struct p256_key *key, const uint8_t digest[P256_DIGEST_LEN],
	enum p256_nonce mode, const uint8_t *extra, size_t extra_len, uint8_t sig[P256_SIG_LEN]);

/* The most signatures p256_sign_batch takes at once. */
#define P256_BATCH_MAX 64

/* One signature of a batch: the inputs of p256_sign_checked or p256_sign, and its outcome. */
struct p256_batch_item {
	const struct p256_key *key;	/* key->d signs; pub and verifier are used when checked */
	const uint8_t *digest;		/* P256_DIGEST_LEN bytes */
	enum p256_nonce mode;
	int checked;			/* nonzero: verify the result as p256_sign_checked does */
	const uint8_t *extra;		/* as p256_sign's, may be NULL with extra_len 0 */
	size_t extra_len;
	uint8_t sig[P256_SIG_LEN];	/* out: r||s, zero on failure */
	int result;			/* out: what p256_sign(_checked) would return for this item */
};

/*
 * Signs n <= P256_BATCH_MAX items at once, each with its own key, digest, mode and extra bytes.
 * Every item gets its own result and signature, bit-identical to p256_sign (checked: to
 * p256_sign_checked) given the same inputs and the same hedge; a failing item does not affect
 * the others. Shared across the batch: one getrandom call for the hedges of all the hedged items
 * (32 bytes each) and one inversion mod n for all the nonces (Montgomery's trick). Constant time
 * in every key and nonce; n, the modes, extra_len and which items fail are public. Returns 0
 * when the items were signed (see each result), P256_ERR_LENGTH (and every result
 * P256_ERR_LENGTH) when n > P256_BATCH_MAX.
 */
int p256_sign_batch(struct p256_batch_item *items, size_t n);

/*
 * Precomputed nonces (the key's "nonce": "precomputed", docs/signing.md): a pool of entries
 * (k^-1, r, r*d) made ahead, in idle time, for one key. An entry's k comes from RFC 6979's
 * HMAC-DRBG seeded with the key, a count of the pool's entries and 32 fresh getrandom bytes; it
 * does not depend on any message. A signature then costs s = k^-1 (e + r*d). The pool lives in
 * pages of its own, locked in memory (mlock), left out of core dumps (MADV_DONTDUMP) and
 * emptied in any child of a fork (MADV_WIPEONFORK: a child sees an empty pool and signs on
 * demand). Each entry is used once and wiped. Not thread-safe: one pool, one thread.
 */
struct p256_pool;

/* The most entries a pool holds. */
#define P256_POOL_MAX 4096

/*
 * An empty pool of `capacity` (1..P256_POOL_MAX) entries for key, which must outlive it. 0,
 * P256_ERR_LENGTH (capacity), P256_ERR_SCALAR_RANGE (key->d) or P256_ERR_INTERNAL (the pages
 * could not be mapped, advised or locked: errno says why). *out is NULL on error.
 */
int p256_pool_new(struct p256_pool **out, const struct p256_key *key, size_t capacity);

/* How many entries the pool lacks to be full (public). */
size_t p256_pool_missing(const struct p256_pool *pool);

/*
 * Adds up to max (at most P256_BATCH_MAX, and what is missing) entries with one getrandom call
 * and one inversion mod n for all their nonces (Montgomery's trick). Constant time in the key
 * and the nonces. 0, or P256_ERR_RANDOM / P256_ERR_INTERNAL (the pool keeps what it had).
 */
int p256_pool_refill(struct p256_pool *pool, size_t max);

/*
 * Signs digest with the pool's next entry, which is wiped at once: 0 with r||s in sig (checked:
 * verified first, as p256_sign_checked does; P256_ERR_FAULT with sig wiped if it fails); 1
 * when the pool is empty, sig zeroed: sign on demand instead (P256_NONCE_PRECOMPUTED in
 * p256_sign or p256_sign_batch). Constant time in the key and the entry.
 */
int p256_pool_sign(struct p256_pool *pool, const uint8_t digest[P256_DIGEST_LEN], int checked,
	uint8_t sig[P256_SIG_LEN]);

/* What a pool has done, for tests and statistics: counts only, never an entry. */
struct p256_pool_counts {
	uint64_t made;		/* entries added */
	uint64_t used;		/* entries taken by p256_pool_sign */
	uint64_t wiped;		/* entries wiped after their use */
	uint64_t ready;		/* entries waiting: made - used */
};

void p256_pool_counts(const struct p256_pool *pool, struct p256_pool_counts *c);

/* Wipes every entry, unlocks and unmaps the pages; NULL is allowed. */
void p256_pool_free(struct p256_pool *pool);

/* Verification policy flags. */
#define P256_VERIFY_LOW_S 0x1	/* refuse s > n/2 with P256_ERR_SIG_HIGH_S */

/*
 * Verifies r||s over digest under a public point given as 65-byte SEC 1 uncompressed or 64-byte
 * x||y. 0 when valid; P256_ERR_LENGTH, P256_ERR_POINT, P256_ERR_SIG_RANGE, P256_ERR_SIG_HIGH_S or
 * P256_ERR_SIG_INVALID otherwise. Variable time: every input is public.
 */
int p256_verify(const uint8_t *point, size_t point_len, const uint8_t digest[P256_DIGEST_LEN],
	const uint8_t sig[P256_SIG_LEN], unsigned flags);

/*
 * A public key prepared once for many verifications: its point, checked, and a table of its
 * multiples (OpenSSL's for its P-256 generator: 37 windows of 64 affine points, 148 KiB, with
 * the group about 150 KiB in all; 25 ms to build) so that (r/s)Q costs what (e/s)G costs. About
 * a third of the time of p256_verify (docs/performance.md). Public data only: it need not be
 * locked in memory. Immutable once built.
 */
struct p256_verify_key;

/*
 * Builds one for a point given as p256_verify takes it (65-byte uncompressed or 64-byte x||y).
 * 0, or P256_ERR_LENGTH / P256_ERR_POINT as p256_verify, or P256_ERR_INTERNAL; *out is NULL on
 * error.
 */
int p256_pubkey_precompute(const uint8_t *point, size_t point_len, struct p256_verify_key **out);

/* Frees it; NULL is allowed. */
void p256_verify_key_free(struct p256_verify_key *vk);

/*
 * p256_verify under vk's point: the same result for the same digest, signature and flags
 * (P256_ERR_SIG_RANGE, P256_ERR_SIG_HIGH_S, P256_ERR_SIG_INVALID, P256_ERR_INTERNAL).
 * Variable time: every input is public.
 */
int p256_verify_precomputed(const struct p256_verify_key *vk,
	const uint8_t digest[P256_DIGEST_LEN], const uint8_t sig[P256_SIG_LEN], unsigned flags);

/* Replaces s by n - s when s > n/2 (the low-s form); r||s in place. P256_ERR_SIG_RANGE if r or s is out of range. */
int p256_normalize_s(uint8_t sig[P256_SIG_LEN]);

/*
 * The EIP-7951 P256VERIFY precompile: input is hash || r || s || x || y (160 bytes). On success
 * writes 31 zero bytes and 0x01 to out and returns 32; on any failure, including a wrong input
 * length, returns 0 (the precompile's empty output). Never fails otherwise.
 */
size_t p256_eip7951(const uint8_t *input, size_t input_len, uint8_t out[32]);

/* r||s as DER SEQUENCE { INTEGER r, INTEGER s } into der (P256_SIG_DER_MAX bytes); *der_len = its length. */
int p256_sig_to_der(const uint8_t sig[P256_SIG_LEN], uint8_t der[P256_SIG_DER_MAX], size_t *der_len);

/*
 * Strict DER decoding to r||s: one SEQUENCE of two minimal non-negative INTEGERs below 2^256,
 * nothing after it. Ranges of r and s are checked by p256_verify, not here, except that a
 * signature that is strict DER throughout but has an INTEGER of 2^256 or more is
 * P256_ERR_SIG_RANGE (any DER fault wins over it). Other errors: P256_ERR_TRUNCATED, P256_ERR_TRAILING,
 * P256_ERR_DER_TAG, P256_ERR_DER_LENGTH, P256_ERR_DER_INTEGER. sig is zeroed on error.
 */
int p256_sig_from_der(const uint8_t *der, size_t der_len, uint8_t sig[P256_SIG_LEN]);

/* The public point d*G (65-byte uncompressed) of 1 <= d < n, computed in constant time. */
int p256_public_from_private(const uint8_t d[P256_SCALAR_LEN], uint8_t pub[P256_POINT_LEN]);

/* Checks a 65-byte uncompressed point: the 0x04 prefix, coordinates below p, on the curve. */
int p256_point_check(const uint8_t pub[P256_POINT_LEN]);

/*
 * A 33-byte SEC 1 compressed point (0x02 or 0x03, then x) into its 65-byte uncompressed form:
 * y from a square root modulo p, checked. P256_ERR_POINT for another prefix, x >= p, or an x
 * that no point of P-256 has. Variable time: points are public.
 */
int p256_point_decompress(const uint8_t in[P256_POINT_COMPRESSED_LEN], uint8_t out[P256_POINT_LEN]);

/* The compressed form of a valid uncompressed point; P256_ERR_POINT if pub is not one. */
int p256_point_compress(const uint8_t pub[P256_POINT_LEN], uint8_t out[P256_POINT_COMPRESSED_LEN]);

/* The DER SubjectPublicKeyInfo (id-ecPublicKey, prime256v1) of an uncompressed point. */
void p256_spki(const uint8_t pub[P256_POINT_LEN], uint8_t spki[P256_SPKI_LEN]);

/* Key id: SHA-256 of the DER SubjectPublicKeyInfo of pub. */
int p256_key_id(const uint8_t pub[P256_POINT_LEN], uint8_t id[P256_KEY_ID_LEN]);

#endif
