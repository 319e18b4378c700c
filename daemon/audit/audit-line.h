/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_AUDIT_LINE_H
#define P256SIGND_AUDIT_LINE_H

#include <stddef.h>
#include <stdint.h>

#include "audit-record.h"

/*
 * A record's line (docs/audit.md): the entry with its place in the chain (seq, and prev, the
 * SHA-256 of the line before), written as compact JSON with the members in their documented
 * order: the same bytes json_dumps(JSON_PRESERVE_ORDER | JSON_COMPACT) gives for a jansson object
 * of those members. Written straight from the entry, one per request: building a jansson object
 * and dumping it cost the parent several microseconds a record (docs/performance.md, "Audit
 * cost").
 */

/* Writes e's line (no newline) to out (cap bytes): its length, or 0 when it does not fit or the
 * entry is not one a record can be (an unknown type or subject). */
size_t audit_line(const struct audit_entry *e, uint64_t seq, const uint8_t prev[32], char *out,
	size_t cap);

#endif
