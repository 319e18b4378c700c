/* SPDX-License-Identifier: ISC */
#ifndef P256SIGN_AUDIT_VERIFIER_H
#define P256SIGN_AUDIT_VERIFIER_H

/*
 * The audit log verifier of p256signctl audit-verify, apart from its files and output so that the
 * fuzz harness can drive it: one record parsed from its line (audit-verifier-record.c), and the
 * chain of records checked one line at a time (audit-verifier-chain.c); a record's line rebuilt
 * from its journal entry (audit-verifier-journal.c). The format is
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

/*
 * A record's journal entry (docs/audit.md, "Destinations"): each member is a field
 * P256SIGN_<MEMBER> (P256SIGN_<OBJECT>_<INNER> inside an object), in upper case, whose value is
 * the member's bytes unescaped, an integer its digits. field(arg, name, &len) gives the value of
 * the entry's field of that name (len bytes), or NULL when it has none; each name is asked once.
 */
typedef const uint8_t *(*audit_field_fn)(void *arg, const char *name, size_t *len);

/*
 * Rebuilds the line of the record an entry's fields hold: the members of its type (by
 * P256SIGN_TYPE) that the entry has, in their order, integers from their digits (only in the
 * daemon's form: another spelling of the number is refused), the rest as strings, written as
 * the daemon writes its lines (compact JSON). The line is exact by construction for any record
 * the daemon wrote, and is then checked like a line of a file (audit_chain_add): a field with a
 * value of the wrong form, a required one missing, shows there. Fields of members this type
 * does not have are not asked for: the caller refuses those left over. 0 and *len; or -1 with
 * why (a member named, never a value).
 */
int audit_record_from_fields(audit_field_fn field, void *arg, uint8_t *line, size_t cap,
	size_t *len, char *why, size_t why_len);

/* The host of a journal entry: journald's own fields, which a sender cannot set; "" when the
 * entry has none, "?" when it is no name (not printable ASCII, or too long). */
struct audit_journal_host {
	char machine_id[33];	/* _MACHINE_ID: 32 hex digits */
	char hostname[65];	/* _HOSTNAME: at most HOST_NAME_MAX */
};

#define AUDIT_JOURNAL_OTHER 1	/* an entry with no P256SIGN_TYPE field: not an audit record */

/*
 * One entry of `journalctl -o json` (one JSON object, its line's bytes without the '\n'): its
 * host, and the line of its record rebuilt from its P256SIGN_* fields (audit_record_from_fields)
 * into line (cap bytes, *line_len). A value that journalctl shows as an array of bytes (one not
 * printable as UTF-8) is those bytes. 0; AUDIT_JOURNAL_OTHER for an entry without P256SIGN_TYPE
 * (host set); or AUDIT_BROKEN with the reason in why: not a JSON object, a field of ours given
 * more than once or as null (too large for journalctl without --all), a P256SIGN_ field that no
 * member of the record names, or one audit_record_from_fields refuses (host set when the entry
 * was an object).
 */
int audit_journal_entry_line(const uint8_t *json, size_t len, struct audit_journal_host *host,
	uint8_t *line, size_t cap, size_t *line_len, char why[AUDIT_WHY_MAX]);

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

	/* the journal's copy (audit_chain_allow_superseded): records it has that a later record of
	 * the same seq replaced */
	int allow_superseded;
	uint64_t superseded;

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

/*
 * For the journal's copy: the daemon sends records to journald before it writes them to its file,
 * so the journal may hold records the file never got (the daemon killed between the two, or a
 * write that failed and was made again), and then a record of the same seq that continues from
 * the line before them. Such a record is taken, and the ones it replaces counted as superseded,
 * when it continues from a line still given and no checkpoint seals the ones it replaces (a
 * checkpoint seals only records the file has). Counters count every record given.
 */
void audit_chain_allow_superseded(struct audit_chain *c);

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
