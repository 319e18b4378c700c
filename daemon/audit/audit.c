/* SPDX-License-Identifier: ISC */
/* The audit log: records, the chain, checkpoints and the fail-closed state (audit.h). */
#include "audit.h"

#include <errno.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit-fields.h"
#include "audit-file.h"
#include "audit-journal.h"
#include "audit-line.h"
#include "audit-queue.h"
#include "clock.h"
#include "log.h"
#include "sha256.h"

/* Records unsealed this long get a `time` checkpoint; a failing write is retried this often. */
#define TIME_CHECKPOINT_MS 2000
#define RETRY_MS 250
/* How long reopen and stop wait for the key-holder's seal. */
#define SEAL_WAIT_MS 2000

static void fail_state(struct audit *a, const char *what, int err)
{
	if (!a->failing) {
		log_error("audit: %s: %s%s", what, strerror(err), a->fail_closed ?
		    "; signing refused until it is written, other records queued" :
		    "; records queued");
		a->fail_since_us = clock_now_us();
	}
	a->failing = 1;
	snprintf(a->error, sizeof(a->error), "%s: %s", what, strerror(err));
}

int audit_init(struct audit *a, const struct config_audit *cfg, char *err, size_t errlen)
{
	char older[4096];

	memset(a, 0, sizeof(*a));
	a->cfg = cfg;
	a->fd = -1;
	a->next_ticket = 1;
	audit_journal_init(&a->jr);
	a->fail_closed = cfg->configured && cfg->fail_closed;
	a->journal = (!cfg->configured || cfg->journal) && access(AUDIT_JOURNAL_SOCKET, F_OK) == 0;
	if (cfg->configured && cfg->journal && !a->journal) {
		snprintf(err, errlen, "audit.journal: true, but journald does not listen (%s: %s): "
		    "no record could be written; set \"journal\": false", AUDIT_JOURNAL_SOCKET,
		    strerror(errno));
		return -1;
	}
	if (cfg->file == NULL)
		return 0;
	if ((a->fd = audit_file_open(cfg->file)) < 0) {
		snprintf(err, errlen, "audit.file: %s: %s", cfg->file, strerror(errno));
		return -1;
	}
	if (audit_file_last(cfg->file, &a->seq, a->hash, err, errlen) != 0)
		return -1;
	/* An empty file after a rotation: the chain goes on from the file moved aside. */
	if (a->seq == 0 && snprintf(older, sizeof(older), "%s.1", cfg->file) < (int)sizeof(older) &&
	    audit_file_last(older, &a->seq, a->hash, err, errlen) != 0)
		return -1;
	a->last_plain_seq = a->seq;
	return 0;
}

/* The batch's next entry, for the caller to fill (the batch grows, an entry is never allocated
 * alone); NULL when out of memory (counted lost). */
static struct audit_entry *next_entry(struct audit *a)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 64;
		struct audit_entry *b = realloc(a->batch, cap * sizeof(*b));

		if (b == NULL) {
			a->lost++;
			return NULL;
		}
		a->batch = b;
		a->cap = cap;
	}
	return &a->batch[a->n];
}

/* The entry next_entry gave, filled, joins the batch: its ticket. */
static uint64_t append(struct audit *a)
{
	a->n++;
	return a->next_ticket++;
}

uint64_t audit_request(struct audit *a, const struct audit_request *r)
{
	struct audit_entry *e = next_entry(a);

	if (e == NULL)
		return 0;
	if (audit_record_request(e, r) != 0) {
		a->lost++;
		return 0;
	}
	return append(a);
}

/* Makes record i's line after fill bytes of a->buf, and its hash: the new fill, or 0 when it
 * cannot be made. */
static size_t make_line(struct audit *a, size_t i, size_t fill, uint8_t (*hashes)[32])
{
	size_t len;

	if (audit_grow(&a->buf, &a->buf_cap, fill) != 0)
		return 0;
	len = audit_line(&a->batch[i], a->seq + i + 1, i ? hashes[i - 1] : a->hash, a->buf + fill,
	    AUDIT_RECORD_MAX);
	if (len == 0 || sha256(a->buf + fill, len, hashes[i]) != 0)
		return 0;
	a->buf[fill + len] = '\n';
	return fill + len + 1;
}

/*
 * Offers records from..to-1 of the batch (their lines made) to journald: how many it has now.
 * Those it took at an earlier try, whose file write then failed (they wait in the queue), are
 * not offered again: the journal would hold each of them once for every retry.
 */
static size_t offer(struct audit *a, size_t from, size_t to, const uint8_t (*hashes)[32],
	int *journal_err)
{
	uint64_t first_seq = a->seq + from + 1;
	size_t known = 0, taken;

	if (a->journal_seq >= first_seq)
		known = a->journal_seq - first_seq + 1 < to - from ?
		    (size_t)(a->journal_seq - first_seq + 1) : to - from;
	taken = known;
	if (known < to - from)
		taken += audit_journal_offer(&a->jr, &a->batch[from + known], to - from - known,
		    first_seq + known, from + known ? hashes[from + known - 1] : a->hash,
		    &hashes[from + known], journal_err);
	if (taken > 0 && first_seq + taken - 1 > a->journal_seq)
		a->journal_seq = first_seq + taken - 1;
	return taken;
}

/*
 * Chains the batch into lines in a->buf (their ends in ends[], hashes in hashes[]) and, with the
 * journal on, offers them to journald a step at a time (audit_journal_step), up to the first it
 * has no room for or refuses (*journal_err says why). Returns how many are ready.
 */
static size_t chain_batch(struct audit *a, size_t *ends, uint8_t (*hashes)[32], int *journal_err)
{
	size_t i = 0, fill = 0, step = a->journal ? audit_journal_step(&a->jr) : a->n;

	/* journald has had no room since the last offer: records wait (none to offer, no error). */
	*journal_err = a->journal && step == 0 && a->n > 0 ? EAGAIN : 0;
	while (step > 0 && i < a->n) {
		size_t from = i, to = a->n - i < step ? a->n : i + step, taken;

		for (; i < to && (fill = make_line(a, i, fill, hashes)) != 0; i++)
			ends[i] = fill;
		if (!a->journal || i == from)
			return i;
		taken = offer(a, from, i, (const uint8_t (*)[32])hashes, journal_err);
		if (from + taken < to)	/* a line not made, or journald took fewer */
			return from + taken;
		step = audit_journal_step(&a->jr);
	}
	return i;
}

/* Writes the rest of a line cut short by an earlier write. 0, or an errno while it does not go. */
static int write_tail(struct audit *a)
{
	size_t w;
	int err;

	if (a->tail_len == 0)
		return 0;
	w = audit_file_write(a->fd, a->tail, a->tail_len);
	if (w < a->tail_len) {
		err = errno;
		memmove(a->tail, a->tail + w, a->tail_len - w);
		a->tail_len -= w;
		fail_state(a, "writing the audit file", err);
		return err;
	}
	a->tail_len = 0;
	return 0;
}

/* Keeps the part of a line after byte w of the batch (the line ends at end) for the next write. */
static int keep_tail(struct audit *a, size_t w, size_t end)
{
	char *t = realloc(a->tail, end - w);

	if (t == NULL)
		return -1;
	a->tail = t;
	memcpy(a->tail, a->buf + w, end - w);
	a->tail_len = end - w;
	return 0;
}

/* A write went through with nothing left waiting: the outage, if any, is over, and said so. */
static void resumed(struct audit *a)
{
	if (a->failing)
		log_info("audit: writing resumed after %.1f s: %llu records kept in the queue meanwhile "
		    "and written, %llu dropped past its bound of %d (counted in a dropped record)",
		    (double)(clock_now_us() - a->fail_since_us) / 1e6,
		    (unsigned long long)a->outage_queued, (unsigned long long)a->outage_dropped,
		    AUDIT_QUEUE_MAX);
	a->failing = 0;
	a->outage_queued = a->outage_dropped = 0;
}

/* The chain moves on over the first `chained` records of the batch (those written, and a line
 * cut short); the first `done` count as written. */
static void advance_chain(struct audit *a, const uint8_t (*hashes)[32], size_t chained,
	size_t done)
{
	for (size_t i = 0; i < chained; i++) {
		a->seq++;
		memcpy(a->hash, hashes[i], sizeof(a->hash));
		if (a->batch[i].type == AUDIT_CHECKPOINT)
			continue;
		a->last_plain_seq = a->seq;
		a->since_checkpoint++;
	}
	for (size_t i = 0; i < done; i++)
		a->checkpoints += a->batch[i].type == AUDIT_CHECKPOINT;
	a->records += done;
}

/*
 * Writes the first `ready` lines of a->buf (line i ends at ends[i]) in one write and moves the
 * chain on: how many were written whole; *file_err why not all. A line cut short stays in the
 * chain, not written: the rest of it is written first next time.
 */
static size_t write_lines(struct audit *a, const size_t *ends, const uint8_t (*hashes)[32],
	size_t ready, int *file_err, size_t *chained_out)
{
	size_t done = ready, chained = ready, w;

	if (a->fd >= 0 && ready > 0) {
		w = ends[ready - 1];
		/* stderr, best effort (no audit configured): through the log's buffer, which
		 * never waits for a reader and counts what it drops. */
		if (a->fd == STDERR_FILENO)
			log_lines(a->buf, w);
		else
			w = audit_file_write(a->fd, a->buf, w);
		*file_err = errno;
		for (done = 0; done < ready && ends[done] <= w; done++)
			;
		chained = done;
		if (done < ready && w > (done ? ends[done - 1] : 0) &&
		    keep_tail(a, w, ends[done]) == 0)
			chained = done + 1;
	}
	advance_chain(a, hashes, chained, done);
	*chained_out = chained;
	return done;
}

/* The log's health after a flush that wrote `done` of the batch's records, `ready` of them made
 * and `keep` waiting for journald: failing while records are lost, ok once all went. */
static void note_health(struct audit *a, size_t ready, size_t done, size_t keep, int journal_err,
	int file_err)
{
	if (keep > 0)
		return;	/* not failing: journald takes them when its queue has room */
	if (journal_err != 0)
		fail_state(a, "sending to the journal", journal_err);
	else if (done < a->n && a->fd >= 0 && ready > done)
		fail_state(a, "writing the audit file", file_err);
	else if (done < a->n)
		fail_state(a, a->tail_len > 0 ? "writing the audit file" : "making the audit records",
		    a->tail_len > 0 ? file_err : ENOMEM);
	else if (a->tail_len == 0)
		resumed(a);
}

static void maybe_seal(struct audit *a, enum audit_seal_reason reason);

/*
 * Arms the timer for what is due, and only then (an idle, sealed log has no timer): a retry
 * while the log fails or records wait, and a time checkpoint TIME_CHECKPOINT_MS after the first
 * record no checkpoint covers or was asked to cover.
 */
static void arm_timer(struct audit *a)
{
	uint64_t now = clock_now_us(), at = 0;
	struct timeval tv;

	if (a->timer == NULL)
		return;	/* not started */
	if (!a->have_key || a->last_plain_seq <= a->covered_seq)
		a->time_due_us = 0;	/* nothing to seal */
	else if (a->time_due_us == 0)
		a->time_due_us = now + TIME_CHECKPOINT_MS * 1000ULL;
	if (a->failing || a->n > 0)
		at = now + RETRY_MS * 1000ULL;
	if (a->time_due_us != 0 && (at == 0 || a->time_due_us < at))
		at = a->time_due_us;
	if (at == 0) {
		a->timer_at_us = 0;
		event_del(a->timer);
		return;
	}
	if (a->timer_at_us != 0 && a->timer_at_us <= at && evtimer_pending(a->timer, NULL))
		return;	/* it fires soon enough */
	at = at > now ? at - now : 0;
	tv = (struct timeval){ .tv_sec = (time_t)(at / 1000000), .tv_usec = (suseconds_t)(at % 1000000) };
	if (evtimer_add(a->timer, &tv) != 0) {
		log_error("audit: cannot arm its timer");
		return;
	}
	a->timer_at_us = now + at;
}

static void flush_cb(void *arg)
{
	audit_flush(arg);
}

void audit_flush(struct audit *a)
{
	uint64_t first = a->next_ticket - (a->n - a->queued), ok_through, tried_through;
	size_t *ends = NULL, ready = 0, done = 0, keep = 0, chained = 0;
	uint8_t (*hashes)[32] = NULL;
	int journal_err = 0, file_err = 0;

	if (a->n == 0 && a->tail_len == 0)
		return;
	if (a->n > 0 && ((ends = malloc(a->n * sizeof(*ends))) == NULL ||
		(hashes = malloc(a->n * sizeof(*hashes))) == NULL))
		goto out;
	if (a->fd >= 0 && (file_err = write_tail(a)) != 0)
		goto out;
	ready = chain_batch(a, ends, hashes, &journal_err);
	done = write_lines(a, ends, (const uint8_t (*)[32])hashes, ready, &file_err, &chained);
	keep = audit_journal_hold(&a->jr, journal_err, ready, done, a->n - done);
	/* A signature's `ok` line cut: withheld, and the record of its answer is owed (unless it
	 * was queued: owed since). */
	if (chained > done && done >= a->queued && audit_queue_held(a, &a->batch[done]))
		audit_queue_owe(a, &a->batch[done]);
out:
	/* The queue's records have no ticket; those waiting for journald are not decided yet. */
	ok_through = first - 1 + (done > a->queued ? done - a->queued : 0);
	tried_through = a->next_ticket - 1 - (keep > 0 ? a->n - (done > a->queued ? done :
	    a->queued) : 0);
	note_health(a, ready, done, keep, journal_err, file_err);
	if (keep > 0) {
		memmove(a->batch, a->batch + done, keep * sizeof(*a->batch));
		a->queued = a->queued > done ? a->queued - done : 0;
		a->n = keep;
	} else {
		audit_queue_after_write(a, chained);
	}
	free(ends);
	free(hashes);
	if (a->cb.written != NULL)
		a->cb.written(a->cb.arg, ok_through, tried_through);
	if (a->cfg->checkpoint_every > 0 && a->since_checkpoint >= a->cfg->checkpoint_every)
		maybe_seal(a, AUDIT_SEAL_COUNT);
	arm_timer(a);
}

int audit_available(const struct audit *a)
{
	return !(a->fail_closed && a->failing);
}

int audit_holds(const struct audit *a)
{
	return a->fail_closed;
}

/* Asks the key-holder to seal the last record written, unless a seal is out or the log is
 * failing (a checkpoint seals only what is in the file). */
static void maybe_seal(struct audit *a, enum audit_seal_reason reason)
{
	if (!a->have_key || a->sealing || a->failing || a->tail_len > 0 || a->seq == 0)
		return;
	a->out.covers_seq = a->seq;
	memcpy(a->out.covers_hash, a->hash, sizeof(a->out.covers_hash));
	a->out.reason = reason;
	a->since_checkpoint = 0;
	/* What is written from now on is covered by the next one, due in TIME_CHECKPOINT_MS. */
	a->time_due_us = clock_now_us() + TIME_CHECKPOINT_MS * 1000ULL;
	if (a->cb.seal(a->cb.arg, &a->out) == 0)
		a->sealing = 1;
}

void audit_sealed(struct audit *a, const struct ipc_audit_sealed *m)
{
	struct audit_entry *e;

	if (!a->sealing)
		return;
	a->sealing = 0;
	if (m->result != 0) {
		log_error("audit: the key-holder could not seal the log (%d)", (int)m->result);
		return;
	}
	if ((e = next_entry(a)) == NULL)
		return;
	if (audit_record_new(e, AUDIT_CHECKPOINT) != 0) {
		a->lost++;
		return;
	}
	memcpy(e->time, m->time, sizeof(e->time));	/* what the seal covers, not the time now */
	e->u.cp.reason = audit_seal_reason_name(a->out.reason);
	e->u.cp.covers_seq = a->out.covers_seq;
	memcpy(e->u.cp.covers_hash, a->out.covers_hash, sizeof(e->u.cp.covers_hash));
	memcpy(e->u.cp.key_id, a->key.id, sizeof(e->u.cp.key_id));
	memcpy(e->u.cp.sig, m->sig, sizeof(e->u.cp.sig));
	a->covered_seq = a->out.covers_seq;
	append(a);
	audit_flush(a);
}

/* A seal asked for and awaited (reopen, stop): the file then ends with its checkpoint. */
static void seal_now(struct audit *a, enum audit_seal_reason reason)
{
	uint64_t deadline = clock_now_us() + SEAL_WAIT_MS * 1000ULL;

	audit_flush(a);
	while (a->sealing && clock_now_us() < deadline && a->cb.wait(a->cb.arg, SEAL_WAIT_MS) == 0)
		;	/* the seal already out comes first */
	maybe_seal(a, reason);
	while (a->sealing && clock_now_us() < deadline && a->cb.wait(a->cb.arg, SEAL_WAIT_MS) == 0)
		;
	if (a->sealing) {
		log_error("audit: no %s checkpoint: the key-holder did not answer",
			audit_seal_reason_name(reason));
		a->sealing = 0;
	}
}

static void timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct audit *a = arg;

	a->timer_at_us = 0;
	if (a->failing || a->n > 0)
		audit_flush(a);	/* a retry: signing resumes once a write goes through */
	if (a->time_due_us != 0 && clock_now_us() >= a->time_due_us &&
	    a->last_plain_seq > a->covered_seq) {
		/* Tried again in TIME_CHECKPOINT_MS if it cannot be asked for now (failing, a seal
		 * out), as the one asked for now moves it too. */
		a->time_due_us = clock_now_us() + TIME_CHECKPOINT_MS * 1000ULL;
		maybe_seal(a, AUDIT_SEAL_TIME);
	}
	arm_timer(a);
}

/* The `open` record of a file: reason, pid, and the audit key; at the batch's front, before the
 * queue, when it opens a file after a reopen (it has no ticket then). 0 or -1. */
static int append_open(struct audit *a, const char *reason, int front)
{
	struct audit_entry *e = next_entry(a);

	if (e == NULL)
		return -1;
	if (audit_record_new(e, AUDIT_OPEN) != 0) {
		a->lost++;
		return -1;
	}
	e->u.open.reason = reason;
	e->u.open.pid = getpid();
	e->u.open.key = a->have_key ? &a->key : NULL;
	if (front) {
		struct audit_entry open = *e;

		memmove(a->batch + 1, a->batch, a->n * sizeof(*a->batch));
		a->batch[0] = open;
		a->n++;
		a->queued++;
		return 0;
	}
	append(a);
	return 0;
}

int audit_start(struct audit *a, struct event_base *base, const struct audit_key *key,
	const struct audit_callbacks *cb)
{
	a->cb = *cb;
	if (key != NULL) {
		a->key = *key;
		a->have_key = 1;
	}
	if ((a->timer = evtimer_new(base, timer_cb, a)) == NULL ||
	    audit_journal_start(&a->jr, base, flush_cb, a) != 0) {
		log_error("audit: cannot arm its timer");
		return -1;
	}
	if (!a->cfg->configured) {
		/* Best effort: the journal when it listens, else stderr. */
		if (!a->journal)
			a->fd = STDERR_FILENO;
		if (append_open(a, "start", 0) == 0)
			audit_flush(a);
		log_info("audit: not configured; request records go to %s, unsealed "
		    "(docs/audit.md)", a->fd == STDERR_FILENO ? "stderr" : "the journal");
		return 0;
	}
	log_info("audit: records to %s%s%s, sealed %s, fail %s", a->cfg->file ? a->cfg->file : "",
	    a->cfg->file && a->journal ? " and " : "", a->journal ? "the journal" : "",
	    a->have_key ? "by the audit key" : "by no key", a->fail_closed ? "closed" : "open");
	if (append_open(a, "start", 0) != 0)
		return -1;
	audit_flush(a);
	return 0;
}

void audit_reopen(struct audit *a)
{
	int fd;

	if (a->cfg->file == NULL)
		return;
	seal_now(a, AUDIT_SEAL_REOPEN);
	if ((fd = audit_file_open(a->cfg->file)) < 0) {
		/* The old file stays in use: better a rotation that did not happen than no record. */
		fail_state(a, "reopening the audit file", errno);
		return;
	}
	if (a->tail_len > 0)
		log_error("audit: a record cut short stays unfinished in the old file");
	a->tail_len = 0;
	close(a->fd);
	a->fd = fd;
	log_info("audit: %s reopened, the chain goes on at seq %llu", a->cfg->file,
	    (unsigned long long)a->seq + 1);
	if (append_open(a, "reopen", 1) == 0)
		audit_flush(a);
}

void audit_stop(struct audit *a)
{
	if (a->timer == NULL)
		return;	/* never started */
	seal_now(a, AUDIT_SEAL_STOP);
	audit_flush(a);
	if (a->n > 0)
		log_error("audit: stopping with %zu records not written (the outage goes on): they "
		    "are lost", a->n);
}

json_t *audit_status_json(const struct audit *a)
{
	json_t *o;

	if (!a->cfg->configured)
		return json_string("not configured");
	o = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I}", "state", a->failing ? "failing" : "ok",
	    "seq", (json_int_t)a->seq, "records", (json_int_t)a->records,
	    "lost", (json_int_t)a->lost, "queued", (json_int_t)a->queued,
	    "checkpoints", (json_int_t)a->checkpoints);
	if (o != NULL && a->failing && json_object_set_new(o, "error", json_string(a->error)) != 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

void audit_free(struct audit *a)
{
	free(a->batch);
	free(a->buf);
	free(a->tail);
	free(a->owed);
	if (a->timer != NULL)
		event_free(a->timer);
	audit_journal_free(&a->jr);
	if (a->fd >= 0 && a->fd != STDERR_FILENO)
		close(a->fd);
	memset(a, 0, sizeof(*a));
	a->fd = -1;
}
