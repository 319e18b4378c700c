/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_CONFIG_H
#define P256SIGND_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "p256.h"
#include "policy.h"

/* The daemon's configuration file (JSON; docs/config.md lists every field and its default). */

#define CONFIG_SOCKET_DEFAULT "/run/p256sign/p256sign.sock"
#define CONFIG_KEYS_MAX 128		/* and LIST_KEYS must fit in one frame (config_load) */
#define CONFIG_RATE_MAX 1000000		/* the largest max_signatures_per_second */

struct config_key {
	char *name;			/* 1..64 of [A-Za-z0-9._-], unique */
	char *file;			/* as written; keys.c resolves relative paths */
	char *certificate;		/* NULL when not configured */
	enum p256_nonce nonce;
	int verify_after_sign;
	enum policy_purpose purpose;
	struct policy_acl allow;	/* names resolved to ids when the file is read */
	unsigned max_signatures_per_second;	/* per uid; 0: no limit (at most
						 * CONFIG_RATE_MAX) */
};

struct config_limits {
	unsigned max_connections;
	unsigned max_connections_per_uid;
	unsigned max_inflight_per_connection;
	unsigned max_inflight;
	unsigned max_frame_bytes;
	unsigned idle_timeout_ms;
	unsigned frame_timeout_ms;
	unsigned request_timeout_ms;
	unsigned shutdown_timeout_ms;
	unsigned worker_timeout_ms;	/* a signer silent this long is replaced */
};

/* "audit" (docs/config.md): where the records go and what seals them. */
struct config_audit {
	int configured;			/* the section is present */
	int journal;			/* records to the journal too (default true) */
	char *file;			/* the append-only file, or NULL */
	char *key;			/* the audit key's name (a key of purpose "audit"), or NULL */
	unsigned checkpoint_every;	/* records between two count checkpoints */
	int fail_closed;		/* withhold signatures whose record was not written */
};

struct config {
	char *path;			/* the file it was read from */
	char *socket;
	mode_t socket_mode;
	char *socket_group;		/* NULL: leave the group alone */
	char *user;			/* the parent's user; NULL: do not change user */
	char *signer_user;		/* the key-holder's and signers'; defaults to user */
	unsigned workers;
	unsigned busy_poll_us;		/* busypoll.h */
	struct config_limits limits;
	struct config_key *keys;
	size_t nkeys;
	struct config_audit audit;
};

/*
 * Reads and checks the file at path into *cfg (which the caller releases with config_free, also
 * after a failure). Returns 0, or -1 with a one-line message in err (errlen bytes): for JSON
 * syntax "FILE:LINE:COLUMN: text" (jansson's position), otherwise "FILE: FIELD: text" naming the
 * offending field, e.g. "keys[1].nonce". Unknown fields are errors.
 */
int config_load(const char *path, struct config *cfg, char *err, size_t errlen);

/* "hedged", "deterministic" or "precomputed": a key's "nonce" as the file and LIST_KEYS name it. */
const char *config_nonce_name(enum p256_nonce nonce);

/* Frees everything config_load allocated; safe on a zeroed config. */
void config_free(struct config *cfg);

#endif
