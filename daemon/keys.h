/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_KEYS_H
#define P256SIGND_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "p256.h"
#include "proto.h"
#include "ratelimit.h"

/* The key table: what the parent may know about each key (public), and the private keys that
 * only the key-holder and the signers hold. Index i of both arrays is the same key (config
 * order). */

struct key_public {
	char name[PROTO_NAME_MAX + 1];
	uint8_t id[P256_KEY_ID_LEN];
	char id_hex[2 * P256_KEY_ID_LEN + 1];
	uint8_t point[P256_POINT_LEN];
	struct p256_verify_key *verifier; /* the parent's table of point for VERIFY, or NULL */
	uint8_t spki[P256_SPKI_LEN];
	enum p256_nonce nonce;
	int verify_after_sign;
	enum policy_purpose purpose;
	struct policy_acl allow;
	struct ratelimit rate;		/* max_signatures_per_second per uid; the parent's */
	uint64_t signatures;		/* signatures released; counted by the parent */
	uint64_t precomputed_signatures; /* of those, signed with a nonce from the key's pool */
};

struct keytab {
	size_t n;
	struct key_public *pub;
	struct p256_key *priv;		/* NULL once keys_forget_private ran */
};

/*
 * Loads every configured key with the strict loader (lib/keyfile.h), checks its certificate when
 * one is configured (lib/cert.h) and refuses two entries holding the same key. Relative file names
 * are taken from $CREDENTIALS_DIRECTORY when set (systemd LoadCredential=), else from the config
 * file's directory. Returns 0, or -1 with "keys[i] (NAME): FILE: tag: message" in err. The caller
 * releases *kt with keys_free, also after a failure.
 */
int keys_load(const struct config *cfg, struct keytab *kt, char *err, size_t errlen);

/*
 * Allocates a table of n keys, zeroed: the public half on the heap and, with_private, the private
 * half in pages of its own that are kept out of core dumps (MADV_DONTDUMP). 0 or -1; free with
 * keys_free.
 */
int keys_alloc(struct keytab *kt, size_t n, int with_private);

/* Locks the private half in memory (mlock; a lock is not inherited across fork). 0 or -1. */
int keys_lock(const struct keytab *kt);

/* Wipes and frees the private half; from then on kt holds public data only. */
void keys_forget_private(struct keytab *kt);

/* keys_forget_private and frees the public table. */
void keys_free(struct keytab *kt);

/* Fills one public record from the key's point and its configuration (name, how it signs, who
 * may use it and how often; ck's file names are not read): SubjectPublicKeyInfo, key id, an
 * empty rate table. 0 or a P256_ERR_* code. */
int keys_set_public(struct key_public *kp, const struct config_key *ck,
	const uint8_t point[P256_POINT_LEN]);

/*
 * What a reload reads: the directories of the config file, $CREDENTIALS_DIRECTORY and every
 * configured key and certificate file, and the account files that resolve "allow" names
 * (/etc/passwd, /etc/group, /etc/nsswitch.conf). *dirs is a NULL-terminated array (free each entry,
 * then the array). 0 or -1 (out of memory or a path too long).
 */
int keys_read_dirs(const struct config *cfg, char ***dirs);

/* The configuration's word for a nonce mode: "hedged", "deterministic" or "precomputed". */
const char *keys_nonce_name(enum p256_nonce nonce);

/* The index of the key a request selects by name or id, or -1 when there is none. */
int keys_find(const struct keytab *kt, const struct proto_key *sel);

#endif
