/* SPDX-License-Identifier: ISC */
#ifndef P256SIGN_AUDIT_SEAL_H
#define P256SIGN_AUDIT_SEAL_H

#include <stdint.h>

/*
 * What the audit key signs for a checkpoint (docs/audit.md, "checkpoint: the seal"): SHA-256 of
 * the label "p256sign audit checkpoint v2" with its 0x00, the SHA-256 of the record the
 * checkpoint covers, that record's sequence number (u64, big-endian), the checkpoint's own time
 * (its 27 bytes) and its reason (one length byte, then the name). Every member of a checkpoint is
 * then fixed by its seal or by the chain, the last checkpoint of a file included. The key-holder
 * builds this digest itself, from the hash and the number the parent sends, a reason it names
 * from the parent's number and a time it reads from its own clock: the audit key signs
 * checkpoints and nothing a client or the parent chooses. Shared by the daemon, which seals, and
 * p256signctl audit-verify.
 */
#define AUDIT_SEAL_LABEL "p256sign audit checkpoint v2"
#define AUDIT_TIME_LEN 27	/* "2026-12-01T12:00:00.123456Z": UTC, microseconds */

/* Why a checkpoint was made; the names are the record's reason member. */
enum audit_seal_reason {
	AUDIT_SEAL_COUNT,	/* "count": checkpoint_every records since the last */
	AUDIT_SEAL_TIME,	/* "time": records unsealed for a few seconds */
	AUDIT_SEAL_REOPEN,	/* "reopen": the last record of a file before it is reopened */
	AUDIT_SEAL_STOP,	/* "stop": the last record before the daemon stops */
	AUDIT_SEAL_REASONS
};

/* The reasons' names by number, then NULL: the one list for the daemon, which names a
 * checkpoint's reason, and the verifier, which accepts only these. */
extern const char *const audit_seal_reasons[AUDIT_SEAL_REASONS + 1];

/* The name of a reason, or NULL for a number that is none. */
const char *audit_seal_reason_name(uint32_t reason);

/* 0, or -1 when hashing fails. */
int audit_seal_digest(const uint8_t covers_hash[32], uint64_t covers_seq,
	const char time[AUDIT_TIME_LEN], const char *reason, uint8_t digest[32]);

#endif
