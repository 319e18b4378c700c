/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_AUDIT_FIELDS_H
#define P256SIGND_AUDIT_FIELDS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "audit-record.h"

/*
 * A record's members (docs/audit.md) in their documented order, walked straight from its batch
 * entry for each form the record takes: the file's JSON line (audit-line.c) and the journal's
 * fields (audit-journal.c). One walk for both makes them the same record by construction, and
 * neither form is parsed back from the other.
 */

enum audit_value {
	AUDIT_VALUE_NUMBER,	/* decimal digits, '-' first when negative */
	AUDIT_VALUE_TEXT,	/* a string of any UTF-8 (checked when the entry was made) */
	AUDIT_VALUE_PLAIN,	/* a string of printable ASCII, nothing to escape: hex, the time */
};

struct audit_sink {
	/* A member: its name (ours: lowercase ASCII and '_') and value (len bytes, no NUL). */
	void (*member)(struct audit_sink *s, const char *name, enum audit_value kind,
	    const char *value, size_t len);
	/* An object member opens (its name) or the open one closes (NULL); one level deep. */
	void (*object)(struct audit_sink *s, const char *name);
	char *p;		/* where the sink writes, cap bytes */
	size_t len, cap;
	int full;		/* set once something did not fit, or by the walk */
};

/* Appends n bytes to s's output, or sets s->full when they do not fit (then or before). Inline:
 * a record is made of a few hundred such calls, most of a byte or two. */
static inline void audit_put(struct audit_sink *s, const void *bytes, size_t n)
{
	if (s->full || s->cap - s->len < n) {
		s->full = 1;
		return;
	}
	memcpy(s->p + s->len, bytes, n);
	s->len += n;
}

/* Gives e's members, with its place in the chain (seq, and prev, the SHA-256 of the line before),
 * to s. 0, or -1 when s->full is set: a sink out of room, or an entry that is no record (an
 * unknown type or subject). */
int audit_fields(const struct audit_entry *e, uint64_t seq, const uint8_t prev[32],
	struct audit_sink *s);

/* The longest form of a record, its line or its journal entry (a record is a few hundred bytes). */
#define AUDIT_RECORD_MAX 2048

/* Room for one more record's form (and a newline) after fill bytes of *buf (*cap bytes), which
 * grows by doubling. 0 or -1 (out of memory). */
int audit_grow(char **buf, size_t *cap, size_t fill);

/* Room for any integer of a record in decimal, sign included. */
#define AUDIT_DIGITS_MAX 24

/* u in decimal, written backwards so as to end just before end: its first digit (at most 20
 * bytes before end). */
char *audit_decimal(uint64_t u, char *end);

/* The name of a record's type ("open", "request", "checkpoint", "dropped"). */
const char *audit_type_name(enum audit_type type);

#endif
