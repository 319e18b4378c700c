/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_AUDIT_H
#define P256SIGND_AUDIT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "audit-drops.h"
#include "audit-journal.h"
#include "audit-record.h"
#include "config.h"
#include "ipc.h"

/*
 * The audit log (docs/audit.md), kept by the parent: one record per request appended to a batch
 * during a loop turn, chained (seq, prev) and written in one write when the server flushes its
 * replies, before it releases them; the journal gets each record too. Checkpoints are signed by
 * the key-holder with the audit key (IPC_AUDIT_SEAL). A record is known by its ticket (counted
 * from 1 in the order records were appended); after each write the `written` callback says which
 * tickets reached the file and journal and which did not, so that the server releases or
 * withholds the replies it held for them.
 *
 * While records cannot be written (an outage), the records of the answers given meanwhile wait
 * at the front of the batch, in order, and are written first once a write goes through: the
 * outage queue, AUDIT_QUEUE_MAX requests at most; the requests past it are counted in one
 * `dropped` record (audit-drops.h) that waits at the queue's end. A signature withheld is not
 * queued: the record of the answer given instead (audit-unavailable) is.
 */

#define AUDIT_QUEUE_MAX 4096

struct event_base;
struct event;

/* A request, by its connection and id, whose answer's record the log owes. */
struct audit_owed {
	unsigned long conn;
	uint32_t id;
};

struct audit_callbacks {
	/* Sends the key-holder an IPC_AUDIT_SEAL. 0 or -1. */
	int (*seal)(void *arg, const struct ipc_audit_seal *m);
	/* Reads what the key-holder sent, waiting at most ms (for a seal awaited at reopen and stop).
	 * 0, or -1 when it cannot answer any more. */
	int (*wait)(void *arg, unsigned ms);
	/* Tickets up to ok_through are written; those after it, up to tried_through, are not. */
	void (*written)(void *arg, uint64_t ok_through, uint64_t tried_through);
	void *arg;
};

struct audit {
	const struct config_audit *cfg;
	struct audit_callbacks cb;
	int fd;				/* the file, STDERR_FILENO as the fallback, or -1 */
	int journal;			/* records go to the journal */
	int fail_closed;
	/* The chain: the last record written, and the key that seals it. */
	uint64_t seq;
	uint8_t hash[32];
	uint64_t journal_seq;		/* the last record the journal took */
	int have_key;
	struct audit_key key;
	/* Records appended since the last write (one array, reused), and the tail of a line a
	 * write cut short. */
	struct audit_entry *batch;
	size_t n, cap;
	uint64_t next_ticket;
	size_t queued;			/* of them, the first: the outage queue, ticketless */
	struct audit_journal jr;	/* journald's back-pressure */
	char *buf;
	size_t buf_cap;
	char *tail;
	size_t tail_len;
	/* Health, for STATUS and the fail-closed rule. */
	int failing;
	char error[160];
	uint64_t records, lost, checkpoints;
	/* The outage: since when, what its queue took and dropped (for the line logged when
	 * writing resumes), the counts of the `dropped` record waiting in the queue, and the
	 * signatures withheld whose `ok` record is in a destination (a line a write cut, an entry
	 * the journal took), whose answer's record is queued past the bound. */
	uint64_t fail_since_us, outage_queued, outage_dropped;
	struct audit_drops drops;
	int drops_waiting;
	struct audit_owed *owed;
	size_t nowed, owed_cap;
	/* Checkpoints. */
	int sealing;			/* an IPC_AUDIT_SEAL is out */
	struct ipc_audit_seal out;	/* the seal asked for */
	uint64_t since_checkpoint;	/* records written since the last checkpoint was asked for */
	uint64_t covered_seq;		/* the last checkpoint's covers_seq */
	uint64_t last_plain_seq;	/* the last record written that is not a checkpoint */
	struct event *timer;		/* time checkpoints and write retries: armed only while
					 * one is due (arm_timer) */
	uint64_t time_due_us;		/* a time checkpoint is due (records unsealed), or 0 */
	uint64_t timer_at_us;		/* when the timer is armed to fire, or 0 */
};

/*
 * Opens the destinations at start-up, before privileges are dropped: the file (created 0640 if
 * absent) and the chain's end read back from it (or, when it is empty, from FILE.1, the file
 * logrotate moved aside). 0, or -1 with err set (a last line that is not a whole record is
 * refused).
 */
int audit_init(struct audit *a, const struct config_audit *cfg, char *err, size_t errlen);

/*
 * Starts the log once the keys are known: the timer on base and the `open` record (reason start)
 * with key, the audit key (NULL without one; copied). 0 or -1 (logged).
 */
int audit_start(struct audit *a, struct event_base *base, const struct audit_key *key,
	const struct audit_callbacks *cb);

/* Appends a request's record: its ticket, or 0 when it could not be made (counted lost). */
uint64_t audit_request(struct audit *a, const struct audit_request *r);

/* Writes the records appended since the last write (one write) and sends them to the journal. */
void audit_flush(struct audit *a);

/* 1 when a signature may be made: the audit is not failing, or fail_closed is off. */
int audit_available(const struct audit *a);

/* 1 when signatures are held until their record is written (fail_closed on a configured log). */
int audit_holds(const struct audit *a);

/* The key-holder's answer to IPC_AUDIT_SEAL: appends the checkpoint and writes it. */
void audit_sealed(struct audit *a, const struct ipc_audit_sealed *m);

/* SIGHUP: a `reopen` checkpoint at the end of the file, then the file opened again by name and
 * an `open` record (reason reopen) continuing the chain. */
void audit_reopen(struct audit *a);

/* The orderly stop: the last records written and a `stop` checkpoint awaited (bounded). */
void audit_stop(struct audit *a);

/* STATUS's "audit": "not configured", or state, error, records, lost, queued, checkpoints. */
json_t *audit_status_json(const struct audit *a);

/* Frees the batch and closes the file. */
void audit_free(struct audit *a);

#endif
