/* SPDX-License-Identifier: ISC */
/* The audit checkpoint's seal digest and its reasons (audit-seal.h). */
#include "audit-seal.h"

#include <string.h>

#include "sha256.h"

const char *const audit_seal_reasons[AUDIT_SEAL_REASONS + 1] = {
	[AUDIT_SEAL_COUNT] = "count",
	[AUDIT_SEAL_TIME] = "time",
	[AUDIT_SEAL_REOPEN] = "reopen",
	[AUDIT_SEAL_STOP] = "stop",
	[AUDIT_SEAL_REASONS] = NULL,
};

const char *audit_seal_reason_name(uint32_t reason)
{
	return reason < AUDIT_SEAL_REASONS ? audit_seal_reasons[reason] : NULL;
}

int audit_seal_digest(const uint8_t covers_hash[32], uint64_t covers_seq,
	const char time[AUDIT_TIME_LEN], const char *reason, uint8_t digest[32])
{
	uint8_t seq[8], reason_len = (uint8_t)strlen(reason);
	const struct sha256_part parts[] = {
		{ AUDIT_SEAL_LABEL, sizeof(AUDIT_SEAL_LABEL) },	/* with its 0x00 */
		{ covers_hash, 32 },
		{ seq, sizeof(seq) },
		{ time, AUDIT_TIME_LEN },
		{ &reason_len, 1 },
		{ reason, reason_len },
	};

	for (int i = 0; i < 8; i++)
		seq[i] = (uint8_t)(covers_seq >> (8 * (7 - i)));
	return sha256_parts(parts, sizeof(parts) / sizeof(parts[0]), digest);
}
