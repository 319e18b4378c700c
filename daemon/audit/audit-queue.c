/* SPDX-License-Identifier: ISC */
/* The log's outage queue (audit-queue.h). */
#include "audit-queue.h"

#include <stdlib.h>
#include <string.h>

#include "audit-drops.h"
#include "log.h"

int audit_queue_held(const struct audit *a, const struct audit_entry *e)
{
	return a->fail_closed && e->type == AUDIT_REQUEST && e->u.req.has_sig;
}

void audit_queue_owe(struct audit *a, const struct audit_entry *e)
{
	if (a->nowed == a->owed_cap) {
		size_t cap = a->owed_cap ? 2 * a->owed_cap : 8;
		struct audit_owed *o = realloc(a->owed, cap * sizeof(*o));

		if (o == NULL) {
			log_error("audit: out of memory: the answer to a withheld signature may be "
			    "dropped past the queue's bound");
			return;
		}
		a->owed = o;
		a->owed_cap = cap;
	}
	a->owed[a->nowed++] = (struct audit_owed){ .conn = e->u.req.conn, .id = e->u.req.id };
}

/* 1 when e is an answer owed (then no longer owed). Few are owed at a time: a search. */
static int owed_answer(struct audit *a, const struct audit_entry *e)
{
	const struct audit_request_entry *q = &e->u.req;

	if (a->nowed == 0 || e->type != AUDIT_REQUEST || q->error == 0)
		return 0;
	for (size_t k = 0; k < a->nowed; k++)
		if (a->owed[k].conn == q->conn && a->owed[k].id == q->id) {
			a->owed[k] = a->owed[--a->nowed];
			return 1;
		}
	return 0;
}

/* Request e, past the queue's bound, counted in the `dropped` record instead, which joins the
 * queue at *w on the first drop (e, at *w or after it, is counted first). */
static void drop(struct audit *a, const struct audit_entry *e, size_t *w)
{
	audit_drops_count(&a->drops, &e->u.req);
	a->lost++;
	a->outage_dropped++;
	if (a->drops_waiting || audit_record_new(&a->batch[*w], AUDIT_DROPPED) != 0)
		return;	/* without a clock, the next drop makes it */
	a->batch[*w].u.dropped.drops = &a->drops;
	a->drops_waiting = 1;
	(*w)++;
}

void audit_queue_after_write(struct audit *a, size_t chained)
{
	uint64_t seq = a->seq;	/* the chain's end: record i was offered at seq + 1 + i - chained */
	size_t w = 0;

	for (size_t i = 0; i < chained; i++) {
		if (a->batch[i].type == AUDIT_DROPPED) {
			memset(&a->drops, 0, sizeof(a->drops));
			a->drops_waiting = 0;
		}
		(void)owed_answer(a, &a->batch[i]);	/* written: owed no more */
	}
	for (size_t i = chained; i < a->n; i++) {
		struct audit_entry *e = &a->batch[i];
		int fresh = i >= a->queued;

		if (fresh && audit_queue_held(a, e)) {
			if (seq + 1 + (i - chained) > a->journal_seq)
				continue;
			audit_queue_owe(a, e);	/* and kept past the bound, as its answer will be */
		} else if (fresh && e->type == AUDIT_REQUEST && !owed_answer(a, e) &&
		    w - (size_t)a->drops_waiting >= AUDIT_QUEUE_MAX) {
			drop(a, e, &w);
			continue;
		}
		a->outage_queued += fresh;
		a->batch[w++] = *e;
	}
	a->n = a->queued = w;
}
