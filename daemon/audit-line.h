/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_AUDIT_LINE_H
#define P256SIGND_AUDIT_LINE_H

#include <jansson.h>
#include <stddef.h>

/*
 * A record's line: the jansson object written as compact JSON, members in their order, the same
 * bytes json_dumps(JSON_PRESERVE_ORDER | JSON_COMPACT) gives for the types records hold (objects,
 * strings, integers). Why not json_dumps: it passes every character through its UTF-8 decoder and
 * an output callback, about 20 ns a character, 9 us for a 450-byte record; the audit writes one per
 * request (docs/performance.md, "Audit cost").
 */

/* Writes rec's line (no newline) to out (cap bytes): its length, or 0 when it does not fit or
 * holds another type. */
size_t audit_line(const json_t *rec, char *out, size_t cap);

#endif
