/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_LIST_KEYS_H
#define P256SIGND_LIST_KEYS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"

/*
 * The LIST_KEYS answer (docs/protocol.md section 6): one encoder for the reply and for the check
 * made when the configuration is read, that root's answer, the largest, fits in one frame.
 */

/* One key as LIST_KEYS shows it. */
struct list_keys_entry {
	const char *name;
	const char *id_hex;		/* the key id in hex, 64 digits */
	const uint8_t *point;		/* P256_POINT_LEN bytes */
	const char *nonce;		/* config_nonce_name */
	int verify_after_sign;
	enum policy_purpose purpose;
	uint64_t signatures;
	uint64_t precomputed_signatures;
	int has_certificate;		/* 1: the key has one, and the next two members are shown */
	int64_t certificate_not_after;	/* its notAfter, Unix seconds */
	const char *certificate_sha256;	/* its DER's SHA-256, 64 hex digits */
	const struct policy_acl *allow;	/* root's answer: the key's "allow"; NULL for other peers */
};

/* The entry's JSON object, or NULL (no memory). */
json_t *list_keys_entry_json(const struct list_keys_entry *e);

/* {"keys": keys}, taking keys's reference (NULL keys, or no memory: NULL). */
json_t *list_keys_doc(json_t *keys);

/*
 * Whether the answer listing entries[0..n) fits in one frame, encoded as the daemon answers it
 * (compact JSON, proto_encode_response): 0 when it does, 1 when it does not, -1 with no memory.
 * *json_len gets the JSON's length in bytes (0 after -1).
 */
int list_keys_fit(const struct list_keys_entry *entries, size_t n, size_t *json_len);

#endif
