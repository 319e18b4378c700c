/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_AUDIT_QUEUE_H
#define P256SIGND_AUDIT_QUEUE_H

#include <stddef.h>

#include "audit.h"

/*
 * The outage queue of the log (audit.h, docs/audit.md "When records cannot be written"): what
 * stays of a batch after a write that did not take it all, what is dropped past the bound, and
 * the answers owed to withheld signatures whose `ok` record is in a destination.
 */

/* 1 when e is a signature whose reply the server holds (audit_holds): when its record is not
 * written, the record of the answer given instead replaces it. */
int audit_queue_held(const struct audit *a, const struct audit_entry *e);

/* Signature e, withheld with its `ok` record in a destination (cut in the file, or taken by the
 * journal): the record of the answer given instead is owed, and kept whatever the bound. */
void audit_queue_owe(struct audit *a, const struct audit_entry *e);

/*
 * After a write: the first `chained` records of the batch are in the file (the last of them
 * perhaps cut, its rest kept), the first `queued` were the outage queue. The rest stay, in
 * order, as the new queue; but a signature withheld, whose answer's record comes instead (unless
 * the journal has its record already: then the file gets it too, and the answer's after it),
 * and a request past the bound, dropped. A `dropped` record written starts its counts again.
 */
void audit_queue_after_write(struct audit *a, size_t chained);

#endif
