/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_AUDIT_DROPPED_H
#define P256SIGND_AUDIT_DROPPED_H

#include <stddef.h>
#include <stdint.h>

#include "audit-record.h"

/*
 * What an audit outage dropped (docs/audit.md, "When records cannot be written"): the records of
 * answers given while no record could be written wait in a bounded queue (audit.c); those past
 * its bound are counted here by op and result, and one `dropped` record states the counts when
 * writing works again.
 */

/* The ops a request's record names, in the format's order; a record of another is counted as
 * `other`. */
#define AUDIT_DROPS_OPS 10

struct audit_drops {
	uint64_t records;			/* in all */
	uint64_t other;				/* of an op or result the format does not name */
	uint64_t by[AUDIT_DROPS_OPS][PROTO_E_MAX + 1];	/* [op][0: ok, else the error code] */
};

/* The longest `kinds` member: beyond it, the rest is summed as `other N`. */
#define AUDIT_DROPS_KINDS_MAX 1024

/* Counts request record q as dropped. */
void audit_drops_count(struct audit_drops *d, const struct audit_request_entry *q);

/*
 * The `kinds` member of a `dropped` record into out (AUDIT_DROPS_KINDS_MAX bytes, NUL ended):
 * "OP RESULT COUNT" for each kind counted, joined by ", ", ops in the format's order and
 * results with ok first, then by error code; what would not fit, and records of an op or result
 * not named, summed last as "other COUNT".
 */
void audit_drops_kinds(const struct audit_drops *d, char out[AUDIT_DROPS_KINDS_MAX]);

#endif
