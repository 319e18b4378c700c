/* SPDX-License-Identifier: ISC */
#ifndef P256SIGN_AUDIT_VERIFIER_H
#define P256SIGN_AUDIT_VERIFIER_H

/*
 * The audit log verifier of p256signctl audit-verify, apart from its files and output so that the
 * fuzz harness can drive it: one record parsed from its line (audit-verifier-record.c), and the
 * chain of records checked one line at a time (audit-verifier-chain.c). The format is
 * docs/audit.md.
 */
#include <stddef.h>
#include <stdint.h>

#include "audit-seal.h"	/* AUDIT_TIME_LEN */

#define AUDIT_LINE_MAX 4096	/* a record is well under 1 KiB; a longer line is a broken one */
#define AUDIT_HASH_LEN 32
#define AUDIT_POINT_LEN 65
#define AUDIT_SIG_LEN 64
#define AUDIT_WHY_MAX 192	/* room for any message below */

enum audit_type { AUDIT_OPEN, AUDIT_REQUEST, AUDIT_CHECKPOINT, AUDIT_DROPPED };

/* What the chain needs from a record; the rest is checked for its type and left. */
struct audit_record {
	enum audit_type type;
	uint64_t seq;				/* 0 until read (a record's is at least 1) */
	char time[AUDIT_TIME_LEN + 1];
	uint8_t prev[AUDIT_HASH_LEN];
	/* open */
	uint8_t audit_key_id[AUDIT_HASH_LEN];
	uint8_t audit_public[AUDIT_POINT_LEN];
	/* checkpoint */
	char reason[8];				/* "count", "time", "reopen" or "stop" */
	uint64_t covers_seq;
	uint8_t covers_hash[AUDIT_HASH_LEN];
	uint8_t key_id[AUDIT_HASH_LEN];
	uint8_t sig[AUDIT_SIG_LEN];
};

/*
 * Parses one line (its bytes without the '\n') as a version 1 record: a JSON object whose first
 * members are v, type, seq, time and prev in that order, then only the members of its type, in
 * their order, each of its type and form (hex in lowercase, names as in the daemon's
 * configuration, closed values, real dates), the members of a request that go together, and the
 * line in the daemon's bytes (docs/audit.md, "The bytes of a line"). 0; or -1 with
 * the reason in why (why_len bytes, AUDIT_WHY_MAX is enough), and r->seq set when it was read.
 * The message never quotes the line's bytes, only member names from the format.
 */
int audit_record_parse(const uint8_t *line, size_t len, struct audit_record *r, char *why,
	size_t why_len);

/* The state of a verification: the last record, the audit key and the hashes a checkpoint may
 * still cover. */
struct audit_chain {
	int have_key;				/* key is set: from --pubkey or the first open */
	int key_from_log;			/* ... from the first open record */
	uint8_t key[AUDIT_POINT_LEN];
	uint8_t key_id[AUDIT_HASH_LEN];

	uint64_t seq;				/* the last record's; 0 before the first */
	uint8_t hash[AUDIT_HASH_LEN];		/* SHA-256 of its line */
	enum audit_type type;			/* its type */
	char reason[8];				/* its reason, when it is a checkpoint */

	/* SHA-256 of the lines window_seq, window_seq + 1 .. seq: what a checkpoint may cover */
	uint8_t (*window)[AUDIT_HASH_LEN];
	size_t window_len, window_cap;
	uint64_t window_seq;
	uint64_t sealed_seq;			/* the last checkpoint's covers_seq; 0: none yet */

	/* --anchor: the SHA-256 of a line kept outside the log, and the seq of the line with it
	 * (a line given, or the one the first continues); 0 until reached */
	int have_anchor;
	uint8_t anchor[AUDIT_HASH_LEN];
	uint64_t anchor_seq;

	/* for the summary */
	uint64_t first_seq;
	int continues;				/* the first record's prev is not a chain start */
	char first_time[AUDIT_TIME_LEN + 1], last_time[AUDIT_TIME_LEN + 1];
	uint64_t records, requests, checkpoints;
};

#define AUDIT_BROKEN (-1)	/* the record breaks the log: why says how */
#define AUDIT_INTERNAL (-2)	/* out of memory or a hash that failed */

/* Starts a verification with the audit key's point, or NULL to take the first open record's. */
void audit_chain_init(struct audit_chain *c, const uint8_t key[AUDIT_POINT_LEN]);

/* Sets the hash that the chain must reach (audit_chain_init first). */
void audit_chain_set_anchor(struct audit_chain *c, const uint8_t anchor[AUDIT_HASH_LEN]);

/* Frees the window; the counters stay readable. */
void audit_chain_free(struct audit_chain *c);

/*
 * Checks the next line (without its '\n') and adds it to the chain; first_in_file says it opens
 * a file. 0, AUDIT_BROKEN with the reason in why (AUDIT_WHY_MAX bytes) or AUDIT_INTERNAL. *seq
 * gets the record's seq when it could be read, else 0.
 */
int audit_chain_add(struct audit_chain *c, const uint8_t *line, size_t len, int first_in_file,
	char why[AUDIT_WHY_MAX], uint64_t *seq);

/*
 * The records at the end that no checkpoint seals: seq *from to *to, and their count (0: none).
 * A last record that is a checkpoint of the one before it counts as sealed by its own signature.
 */
uint64_t audit_chain_unsealed(const struct audit_chain *c, uint64_t *from, uint64_t *to);

/* How the records given end (docs/audit.md, "How a log ends"). */
enum audit_end {
	AUDIT_END_UNSEALED,	/* records no checkpoint seals (or none at all) */
	AUDIT_END_STOP,		/* a stop checkpoint of the record before it: the daemon stopped */
	AUDIT_END_REOPEN,	/* a reopen checkpoint ...: a later file follows, not given */
	AUDIT_END_SEALED,	/* a count or time checkpoint ...: the daemon may still be writing */
};

enum audit_end audit_chain_end(const struct audit_chain *c);

#endif
