/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_AUDIT_JOURNAL_H
#define P256SIGND_AUDIT_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "audit-record.h"

/* journald's socket for the native protocol. */
#define AUDIT_JOURNAL_SOCKET "/run/systemd/journal/socket"

/*
 * Writes e's journal entry, with its place in the chain (seq, prev) as its line has it, to out
 * (cap bytes) in journald's native protocol: each member of the line (docs/audit.md) becomes
 * P256SIGN_<MEMBER> in upper case, an object's members P256SIGN_<OBJECT>_<MEMBER> (peer.uid is
 * P256SIGN_PEER_UID), strings unescaped and numbers in decimal; then MESSAGE (a line people
 * read), PRIORITY 6 and SYSLOG_IDENTIFIER p256signd. A value with a newline in it takes the
 * protocol's binary form, so that it cannot start a field of its own. Returns the entry's
 * length, or 0 when it does not fit or e is no record.
 */
size_t audit_journal_entry(const struct audit_entry *e, uint64_t seq, const uint8_t prev[32],
	char *out, size_t cap);

/*
 * Sends n entries to journald in order, entry i being the bytes of buf from ends[i - 1] (0 for the
 * first) to ends[i], one datagram each, many to a system call. Never waits: returns how many
 * journald's socket took; when fewer than n, *err says why: ENOENT or ECONNREFUSED when no
 * journal listens, EAGAIN when its queue is full (journald is not reading). The socket is
 * connected once and again after journald went away (a restart).
 */
size_t audit_journal_send(const char *buf, const size_t *ends, size_t n, int *err);

/*
 * journald's back-pressure, for the log (audit.c) that offers it a batch's records: when its queue
 * is full (EAGAIN), the records wait, and their replies with them, until its socket polls writable
 * again, for AUDIT_JOURNAL_BUSY_MS and AUDIT_JOURNAL_WAIT_MAX records at most; beyond either the
 * journal counts as refusing them. So a busy journald slows signing down instead of failing it.
 */
#define AUDIT_JOURNAL_BUSY_MS 1000
#define AUDIT_JOURNAL_WAIT_MAX 4096
/* Records made and offered at a time, at most. */
#define AUDIT_JOURNAL_CHUNK 64

struct event_base;
struct event;

struct audit_journal {
	struct event_base *base;
	void (*again)(void *arg);	/* offer the records that wait again (the log's flush) */
	void *arg;
	struct event *retry;		/* calls again, soon */
	struct event *room;		/* journald's socket writable: its queue has room again */
	int full;			/* nothing is offered until room fires */
	size_t step;			/* records made and offered at a time */
	uint64_t busy_us;		/* since when journald has had no room (0: it has) */
	char *buf;			/* the entries offered */
	size_t cap;
};

/* A journal destination that waits for nothing yet (it offers AUDIT_JOURNAL_CHUNK at a time). */
void audit_journal_init(struct audit_journal *j);

/* Arms its timer on base; again(arg) offers the records that wait. 0 or -1. */
int audit_journal_start(struct audit_journal *j, struct event_base *base, void (*again)(void *),
	void *arg);

/*
 * How many records to make and offer next: 0 while journald has no room, else a step that
 * follows what it takes (after it took k of a step the next is k, 1 at least, then it doubles up
 * to AUDIT_JOURNAL_CHUNK while journald takes them all), so that entries are seldom made only
 * to be refused (its socket polls writable with room for one entry).
 */
size_t audit_journal_step(const struct audit_journal *j);

/*
 * Makes the journal entries of the n records at e (n at most the step), the first at seq after
 * the record whose hash is prev, hashes[i] being record i's, and offers them to journald: how
 * many it took; *err why not all (EAGAIN: its queue is full; E2BIG or ENOMEM: an entry could not
 * be made; else audit_journal_send's).
 */
size_t audit_journal_offer(struct audit_journal *j, const struct audit_entry *e, size_t n,
	uint64_t seq, const uint8_t prev[32], const uint8_t (*hashes)[32], int *err);

/*
 * After a batch's write: how many of the `waiting` records not written wait for journald, and
 * the wait armed for them. They wait when the first of them got no room (err EAGAIN: journald
 * is busy, it did not refuse), every record before it was written (done == ready), and within
 * the bounds, time counted from the last progress (ready > 0). 0: the records are lost.
 */
size_t audit_journal_hold(struct audit_journal *j, int err, size_t ready, size_t done,
	size_t waiting);

/* Frees its events and buffer. */
void audit_journal_free(struct audit_journal *j);

#endif
