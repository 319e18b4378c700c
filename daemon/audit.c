/* SPDX-License-Identifier: ISC */
/* The audit log: records, the chain, checkpoints and the fail-closed state (audit.h). */
#include "audit.h"

#include <errno.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit-file.h"
#include "audit-journal.h"
#include "audit-line.h"
#include "clock.h"
#include "log.h"
#include "sha256.h"

/* Records unsealed this long get a `time` checkpoint; a failing write is retried as often. */
#define TIME_CHECKPOINT_MS 2000
#define RETRY_MS 250
/* The longest line (a record is a few hundred bytes), and the batch buffer's first size. */
#define RECORD_LINE_MAX 2048
#define BUF_START 65536
/* journald busy (its queue full): the records wait, and their replies with them, this long at
 * most and this many at most; beyond either the journal counts as refusing them. */
#define JOURNAL_BUSY_MS 1000
#define JOURNAL_WAIT_MAX 4096
/* How soon records waiting for journald are offered again (it drains its queue in well under),
 * and how many at most are made and offered at a time (chain_batch). */
#define JOURNAL_RETRY_MS 2
#define JOURNAL_CHUNK 64
/* How long reopen and stop wait for the key-holder's seal. */
#define SEAL_WAIT_MS 2000

static void fail_state(struct audit *a, const char *what, int err)
{
	if (!a->failing)
		log_error("audit: %s: %s%s", what, strerror(err),
		    a->fail_closed ? "; signing refused until it is written" : "; records are lost");
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
	a->journal_step = JOURNAL_CHUNK;
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

/* Room for one more record (and its newline) after fill bytes of *buf (*cap bytes). 0 or -1. */
static int grow(char **buf, size_t *cap, size_t fill)
{
	size_t want = *cap ? 2 * *cap : BUF_START;
	char *b;

	if (*cap - fill > RECORD_LINE_MAX)
		return 0;
	while (want - fill <= RECORD_LINE_MAX)
		want *= 2;
	if ((b = realloc(*buf, want)) == NULL)
		return -1;
	*buf = b;
	*cap = want;
	return 0;
}

/* Makes record i's line after fill bytes of a->buf, and its hash: the new fill, or 0 when it
 * cannot be made. */
static size_t make_line(struct audit *a, size_t i, size_t fill, uint8_t (*hashes)[32])
{
	size_t len;

	if (grow(&a->buf, &a->buf_cap, fill) != 0)
		return 0;
	len = audit_line(&a->batch[i], a->seq + i + 1, i ? hashes[i - 1] : a->hash, a->buf + fill,
	    RECORD_LINE_MAX);
	if (len == 0 || sha256(a->buf + fill, len, hashes[i]) != 0)
		return 0;
	a->buf[fill + len] = '\n';
	return fill + len + 1;
}

/* Makes the journal entries of records from to to - 1 (at most JOURNAL_CHUNK), with the chain's
 * members their lines have, and offers them to journald. How many it took; *err why not all. */
static size_t offer_journal(struct audit *a, size_t from, size_t to, const uint8_t (*hashes)[32],
	int *err)
{
	size_t ends[JOURNAL_CHUNK], n, fill = 0, sent = 0;
	int made = ENOMEM, send_err = 0;	/* why entry n could not be made */

	for (n = 0; from + n < to; n++) {
		size_t i = from + n, len;

		if (grow(&a->jbuf, &a->jbuf_cap, fill) != 0)
			break;
		len = audit_journal_entry(&a->batch[i], a->seq + i + 1, i ? hashes[i - 1] : a->hash,
		    a->jbuf + fill, RECORD_LINE_MAX);
		if (len == 0) {
			made = E2BIG;
			break;
		}
		fill += len;
		ends[n] = fill;
	}
	if (n > 0)
		sent = audit_journal_send(a->jbuf, ends, n, &send_err);
	*err = sent < n ? send_err : from + n < to ? made : 0;
	return sent;
}

/*
 * Chains the batch into lines in a->buf (their ends in ends[], hashes in hashes[]) and, with the
 * journal on, offers them to journald a step at a time, up to the first it has no room for or
 * refuses (*journal_err says why). Returns how many are ready. The step follows what journald
 * takes: after it took k of a step, the next is k (1 at least), then doubles up to JOURNAL_CHUNK
 * while it takes them all, so that lines and entries are seldom made only to be refused (its
 * socket polls writable with room for one entry).
 */
static size_t chain_batch(struct audit *a, size_t *ends, uint8_t (*hashes)[32], int *journal_err)
{
	size_t i = 0, fill = 0, step = a->journal ? a->journal_step : a->n;

	*journal_err = a->journal && a->journal_full ? EAGAIN : 0;
	if (*journal_err != 0)
		return 0;
	while (i < a->n) {
		size_t from = i, to = a->n - i < step ? a->n : i + step, taken;

		for (; i < to && (fill = make_line(a, i, fill, hashes)) != 0; i++)
			ends[i] = fill;
		if (!a->journal || i == from)
			return i;
		taken = offer_journal(a, from, i, (const uint8_t (*)[32])hashes, journal_err);
		step = taken < i - from ? (taken > 0 ? taken : 1) :
		    step < JOURNAL_CHUNK / 2 ? 2 * step : JOURNAL_CHUNK;
		a->journal_step = step;
		if (from + taken < to)	/* a line not made, or journald took fewer */
			return from + taken;
	}
	return i;
}

/* Writes the rest of a line cut short by an earlier write. 0, or -1 while it does not go. */
static int write_tail(struct audit *a)
{
	size_t w;

	if (a->tail_len == 0)
		return 0;
	w = audit_file_write(a->fd, a->tail, a->tail_len);
	if (w < a->tail_len) {
		memmove(a->tail, a->tail + w, a->tail_len - w);
		a->tail_len -= w;
		fail_state(a, "writing the audit file", errno);
		return -1;
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

static void maybe_seal(struct audit *a, enum audit_seal_reason reason);

static void journal_retry_cb(evutil_socket_t fd, short what, void *arg)
{
	audit_flush(arg);
}

static void journal_room_cb(evutil_socket_t fd, short what, void *arg)
{
	struct audit *a = arg;

	a->journal_full = 0;
	audit_flush(a);
}

/*
 * journald had no room: until its socket polls writable, nothing is offered to it, so that
 * records are not made again on every loop turn only to be refused. Without the event (out of
 * memory), they are offered on every flush as before.
 */
static void wait_for_room(struct audit *a)
{
	int fd = audit_journal_socket();

	if (fd < 0 || a->base == NULL)
		return;
	if (a->journal_room != NULL && event_get_fd(a->journal_room) != fd) {
		event_free(a->journal_room);	/* reconnected since */
		a->journal_room = NULL;
	}
	if (a->journal_room == NULL &&
	    (a->journal_room = event_new(a->base, fd, EV_WRITE, journal_room_cb, a)) == NULL)
		return;
	if (event_add(a->journal_room, NULL) == 0)
		a->journal_full = 1;
}

static void retry_journal(struct audit *a)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = JOURNAL_RETRY_MS * 1000 };

	if (a->journal_ev != NULL && !evtimer_pending(a->journal_ev, NULL) &&
	    evtimer_add(a->journal_ev, &tv) != 0)
		log_error("audit: cannot arm the journal's retry (the next record retries)");
}

/*
 * How many records after the first `done` wait for the next flush: those after a record journald
 * had no room for (EAGAIN: its queue is full, it is busy, it did not refuse), when everything
 * before it was written, for JOURNAL_BUSY_MS and JOURNAL_WAIT_MAX at most. Their replies stay
 * held, so a busy journald slows signing down instead of failing it.
 */
static size_t journal_waits(struct audit *a, int journal_err, size_t ready, size_t done)
{
	uint64_t now = clock_now_us();

	if (journal_err != EAGAIN || done != ready || a->n - done > JOURNAL_WAIT_MAX) {
		a->journal_busy_us = 0;
		return 0;
	}
	if (a->journal_busy_us == 0 || ready > 0)
		a->journal_busy_us = now;	/* the bound is on time without progress */
	if (now - a->journal_busy_us > JOURNAL_BUSY_MS * 1000ULL) {
		a->journal_busy_us = 0;
		return 0;
	}
	return a->n - done;
}

void audit_flush(struct audit *a)
{
	uint64_t first = a->next_ticket - a->n;
	size_t *ends = NULL, ready = 0, done = 0, chained = 0, keep = 0, i;
	uint8_t (*hashes)[32] = NULL;
	int journal_err = 0, file_err = 0;

	if (a->n == 0 && a->tail_len == 0)
		return;
	if (a->n > 0 && ((ends = malloc(a->n * sizeof(*ends))) == NULL ||
		(hashes = malloc(a->n * sizeof(*hashes))) == NULL))
		goto out;
	if (a->fd >= 0 && write_tail(a) != 0)
		goto out;
	ready = chain_batch(a, ends, hashes, &journal_err);
	chained = done = ready;
	if (a->fd >= 0 && ready > 0) {
		size_t w = ends[ready - 1];

		/* stderr, best effort (no audit configured): through the log's buffer, which
		 * never waits for a reader and counts what it drops. */
		if (a->fd == STDERR_FILENO)
			log_lines(a->buf, w);
		else
			w = audit_file_write(a->fd, a->buf, w);

		file_err = errno;
		for (done = 0; done < ready && ends[done] <= w; done++)
			;
		chained = done;
		/* A line cut short stays in the chain: the rest of it is written first next time. */
		if (done < ready && w > (done ? ends[done - 1] : 0) &&
		    keep_tail(a, w, ends[done]) == 0)
			chained = done + 1;
	}
	for (i = 0; i < chained; i++) {
		a->seq++;
		memcpy(a->hash, hashes[i], sizeof(a->hash));
		if (a->batch[i].type == AUDIT_CHECKPOINT)
			continue;
		a->last_plain_seq = a->seq;
		a->since_checkpoint++;
	}
	for (i = 0; i < done; i++)
		a->checkpoints += a->batch[i].type == AUDIT_CHECKPOINT;
	a->records += done;
	keep = journal_waits(a, journal_err, ready, done);
out:
	a->lost += a->n - done - keep;
	if (journal_err != 0 && keep == 0)
		fail_state(a, "sending to the journal", journal_err);
	else if (keep > 0) {	/* not failing: journald takes them when its queue has room */
		if (journal_err == EAGAIN && !a->journal_full)
			wait_for_room(a);
		retry_journal(a);
	}
	else if (done < a->n && a->fd >= 0 && ready > done)
		fail_state(a, "writing the audit file", file_err);
	else if (done < a->n)
		fail_state(a, a->tail_len > 0 ? "writing the audit file" : "making the audit records",
		    a->tail_len > 0 ? errno : ENOMEM);
	else if (a->tail_len == 0)
		a->failing = 0;
	memmove(a->batch, a->batch + a->n - keep, keep * sizeof(*a->batch));
	a->n = keep;
	free(ends);
	free(hashes);
	if (a->cb.written != NULL)
		a->cb.written(a->cb.arg, first + done - 1, a->next_ticket - 1 - keep);
	if (a->cfg->checkpoint_every > 0 && a->since_checkpoint >= a->cfg->checkpoint_every)
		maybe_seal(a, AUDIT_SEAL_COUNT);
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

	if (a->failing || a->n > 0)
		audit_flush(a);	/* a retry: signing resumes once a write goes through */
	if (++a->ticks < TIME_CHECKPOINT_MS / RETRY_MS)
		return;
	a->ticks = 0;
	if (a->last_plain_seq > a->covered_seq)
		maybe_seal(a, AUDIT_SEAL_TIME);
}

/* The `open` record of a file: reason, pid, and the audit key. 0 or -1. */
static int append_open(struct audit *a, const char *reason)
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
	append(a);
	return 0;
}

int audit_start(struct audit *a, struct event_base *base, const struct key_public *key,
	const struct audit_callbacks *cb)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = RETRY_MS * 1000 };

	a->cb = *cb;
	a->base = base;
	if (key != NULL) {
		a->key = *key;
		a->key.verifier = NULL;	/* a copy that outlives its key set: not the table */
		a->have_key = 1;
	}
	if ((a->timer = event_new(base, -1, EV_PERSIST, timer_cb, a)) == NULL ||
	    (a->journal_ev = evtimer_new(base, journal_retry_cb, a)) == NULL ||
	    event_add(a->timer, &tv) != 0) {
		log_error("audit: cannot arm its timer");
		return -1;
	}
	if (!a->cfg->configured) {
		/* Best effort: the journal when it listens, else stderr. */
		if (!a->journal)
			a->fd = STDERR_FILENO;
		if (append_open(a, "start") == 0)
			audit_flush(a);
		log_info("audit: not configured; request records go to %s, unsealed "
		    "(docs/audit.md)", a->fd == STDERR_FILENO ? "stderr" : "the journal");
		return 0;
	}
	log_info("audit: records to %s%s%s, sealed %s, fail %s", a->cfg->file ? a->cfg->file : "",
	    a->cfg->file && a->journal ? " and " : "", a->journal ? "the journal" : "",
	    a->have_key ? "by the audit key" : "by no key", a->fail_closed ? "closed" : "open");
	if (append_open(a, "start") != 0)
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
	if (append_open(a, "reopen") == 0)
		audit_flush(a);
}

void audit_stop(struct audit *a)
{
	if (a->timer == NULL)
		return;	/* never started */
	seal_now(a, AUDIT_SEAL_STOP);
	audit_flush(a);
}

json_t *audit_status_json(const struct audit *a)
{
	json_t *o;

	if (!a->cfg->configured)
		return json_string("not configured");
	o = json_pack("{s:s, s:I, s:I, s:I, s:I}", "state", a->failing ? "failing" : "ok",
	    "seq", (json_int_t)a->seq, "records", (json_int_t)a->records,
	    "lost", (json_int_t)a->lost, "checkpoints", (json_int_t)a->checkpoints);
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
	free(a->jbuf);
	free(a->tail);
	if (a->timer != NULL)
		event_free(a->timer);
	if (a->journal_ev != NULL)
		event_free(a->journal_ev);
	if (a->journal_room != NULL)
		event_free(a->journal_room);
	if (a->fd >= 0 && a->fd != STDERR_FILENO)
		close(a->fd);
	memset(a, 0, sizeof(*a));
	a->fd = -1;
}
