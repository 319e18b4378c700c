/* SPDX-License-Identifier: ISC */
#include "audit-seal.h"

#include <string.h>

#include "sha256.h"

int audit_seal_digest(const uint8_t covers_hash[32], uint64_t covers_seq, uint8_t digest[32])
{
	uint8_t input[sizeof(AUDIT_SEAL_LABEL) + 32 + 8];
	size_t off = sizeof(AUDIT_SEAL_LABEL);

	memcpy(input, AUDIT_SEAL_LABEL, sizeof(AUDIT_SEAL_LABEL));	/* with its 0x00 */
	memcpy(input + off, covers_hash, 32);
	off += 32;
	for (int i = 7; i >= 0; i--)
		input[off++] = (uint8_t)(covers_seq >> (8 * i));
	return sha256(input, off, digest);
}
