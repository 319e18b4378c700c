/* SPDX-License-Identifier: ISC */
#ifndef P256SIGN_AUDIT_SEAL_H
#define P256SIGN_AUDIT_SEAL_H

#include <stdint.h>

/*
 * What the audit key signs for a checkpoint (docs/audit.md, "Checkpoints"): SHA-256 of the
 * 29-byte label "p256sign audit checkpoint v1" with its 0x00, the SHA-256 of the record the
 * checkpoint covers, and that record's sequence number (u64, big-endian). The key-holder builds
 * this digest itself from the hash and the number, so the audit key signs checkpoints and nothing
 * a client or the parent chooses. Shared by the daemon, which seals, and p256signctl audit-verify.
 */
#define AUDIT_SEAL_LABEL "p256sign audit checkpoint v1"

/* 0, or -1 when hashing fails. */
int audit_seal_digest(const uint8_t covers_hash[32], uint64_t covers_seq, uint8_t digest[32]);

#endif
