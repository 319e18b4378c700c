/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_KEYTAB_H
#define P256SIGND_KEYTAB_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "p256.h"
#include "policy.h"
#include "proto.h"
#include "ratelimit.h"

/*
 * The public key table: what any role may know about each configured key, in config order. The
 * parent builds it from the key-holder's IPC_KEY_PUBLIC messages; the key-holder and the signers
 * hold it beside the private half (keyset.h). No private data, and nothing counted: what the
 * parent counts and limits per key is its own (struct key_usage).
 */

struct key_public {
	char name[PROTO_NAME_MAX + 1];
	uint8_t id[P256_KEY_ID_LEN];
	char id_hex[2 * P256_KEY_ID_LEN + 1];
	uint8_t point[P256_POINT_LEN];
	struct p256_verify_key *verifier;	/* the point's table for VERIFY: the parent builds it
						 * at the key's first VERIFY (request.c), or NULL */
	uint8_t spki[P256_SPKI_LEN];
	enum p256_nonce nonce;
	int verify_after_sign;
	enum policy_purpose purpose;
	struct policy_acl allow;
	uint32_t max_signatures_per_second;	/* per uid, 0: no limit (config.h) */
	int64_t cert_not_after;		/* its certificate's notAfter, Unix seconds; 0: none */
	uint8_t *cert;			/* its certificate's DER (CERTIFICATE), public data; NULL:
					 * none. The record's own: key_public_release frees it */
	size_t cert_len;		/* 1 .. PROTO_CERT_MAX when cert is set */
	char cert_sha256_hex[2 * 32 + 1];	/* the DER's SHA-256 in hex, made with cert, so that
						 * LIST_KEYS shows it without hashing per request */
};

struct keytab {
	size_t n;
	struct key_public *pub;
};

/* What the parent keeps per key of the set in use: the rate limit of each uid and the counts of
 * LIST_KEYS. Never sent to another role. */
struct key_usage {
	struct ratelimit rate;		/* max_signatures_per_second per uid */
	uint64_t signatures;		/* signatures released */
	uint64_t precomputed_signatures; /* of those, signed with a nonce from the key's pool */
};

/* Allocates a zeroed table of n records (n >= 1). 0 or -1; free with keytab_free. */
int keytab_alloc(struct keytab *kt, size_t n);

/* Frees the records, their verifiers and certificates; kt is empty afterwards (and may be freed
 * again). */
void keytab_free(struct keytab *kt);

/* Frees what one record holds apart (its verifier, its certificate); the rest stays. */
void key_public_release(struct key_public *kp);

/* Gives the record a copy of a certificate's DER (1 .. PROTO_CERT_MAX bytes) and its SHA-256, when
 * it has none yet. 0, or -1 (a length out of range, a second certificate, out of memory). */
int key_public_set_cert(struct key_public *kp, const uint8_t *der, size_t len);

/* Fills one record from the key's point and its configuration (name, how it signs, who may use
 * it and how often; ck's file names are not read): SubjectPublicKeyInfo and key id derived here.
 * 0 or a P256_ERR_* code. */
int keytab_set_public(struct key_public *kp, const struct config_key *ck,
	const uint8_t point[P256_POINT_LEN]);

/* The index of the key a request selects by name or id, or -1 when there is none. */
int keytab_find(const struct keytab *kt, const struct proto_key *sel);

/* Starts the usage of a key set: full buckets at each key's rate, counts at 0 (u holds kt->n). */
void key_usage_reset(struct key_usage *u, const struct keytab *kt);

#endif
