/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_AUDIT_RECORD_H
#define P256SIGND_AUDIT_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "audit-seal.h"	/* AUDIT_TIME_LEN */
#include "p256.h"
#include "peer.h"
#include "proto.h"

/*
 * Audit records (docs/audit.md) as they wait in a batch: fixed-size entries holding copies of
 * what their line shows, stamped with the time they were made. One is made per request, so
 * nothing here allocates; the chain members (seq, prev) are known only when the batch is
 * written and are put in the line then (audit-line.h).
 */

enum audit_type {
	AUDIT_OPEN = 0,
	AUDIT_REQUEST,
	AUDIT_CHECKPOINT,
	AUDIT_DROPPED,			/* what an outage's queue could not keep (audit-drops.h) */
};

/* What a request asked to have signed, as its record shows it. */
enum audit_subject_kind {
	AUDIT_SUBJECT_NONE = 0,
	AUDIT_SUBJECT_DIGEST,		/* SIGN: the digest */
	AUDIT_SUBJECT_MESSAGE,		/* SIGN_MESSAGE: SHA-256 of the message */
	AUDIT_SUBJECT_TLS13,		/* SIGN_TLS 1.3: the transcript hash */
	AUDIT_SUBJECT_TLS12,		/* SIGN_TLS 1.2: SHA-256 of the randoms and the params */
};

struct audit_subject {
	uint8_t kind;			/* enum audit_subject_kind */
	uint8_t tls_client;		/* SIGN_TLS: the client's side */
	uint8_t len;			/* bytes of hash */
	uint8_t hash[64];
};

/* One request and its answer, as the server knows it. Pointers may be NULL where a member does
 * not apply. */
struct audit_request {
	const struct ucred *peer;	/* SO_PEERCRED at accept */
	const char *comm;		/* the peer's process name, when known */
	const char *unit;		/* its systemd unit, when known */
	unsigned long conn;
	uint32_t id;
	const char *op;			/* "sign", ..., or "frame": a static string */
	const char *key;		/* a key that exists */
	const uint8_t *key_id;		/* its id (32 bytes) */
	const struct audit_subject *subject;
	uint16_t error;			/* 0: ok */
	const uint8_t *sig;		/* the signature released, as sent */
	size_t sig_len;
	uint64_t us;			/* from the frame's arrival */
};

/* A request's record: "" for a string member that is absent. */
struct audit_request_entry {
	unsigned long conn;
	uint32_t id;
	int64_t pid, uid, gid;
	char comm[PEER_COMM_MAX];
	char unit[PEER_UNIT_MAX];
	const char *op;
	char key[PROTO_NAME_MAX + 1];
	uint8_t has_key_id, has_sig;
	uint8_t key_id[P256_KEY_ID_LEN];
	struct audit_subject subject;
	uint16_t error;
	uint8_t sig_sha256[32];
	uint64_t us;
};

struct audit_checkpoint_entry {
	const char *reason;		/* a static string */
	uint64_t covers_seq;
	uint8_t covers_hash[32];
	uint8_t key_id[P256_KEY_ID_LEN];
	uint8_t sig[P256_SIG_LEN];
};

/* The audit key as its `open` record shows it: the audit needs no more of a key. */
struct audit_key {
	char name[PROTO_NAME_MAX + 1];
	uint8_t id[P256_KEY_ID_LEN];	/* SHA-256 of the SPKI */
	uint8_t point[P256_POINT_LEN];
};

struct audit_open_entry {
	const char *reason;		/* a static string */
	int64_t pid;
	const struct audit_key *key;	/* the audit key, NULL without one; outlives the entry */
};

struct audit_drops;

/* The counts a `dropped` record states, read when its line is made: they grow while it waits. */
struct audit_dropped_entry {
	const struct audit_drops *drops;	/* outlives the entry */
};

struct audit_entry {
	uint8_t type;			/* enum audit_type */
	char time[AUDIT_TIME_LEN];
	union {
		struct audit_request_entry req;
		struct audit_checkpoint_entry cp;
		struct audit_open_entry open;
		struct audit_dropped_entry dropped;
	} u;
};

/* Starts a record of type in *e, stamped with the time now. 0 or -1. */
int audit_record_new(struct audit_entry *e, enum audit_type type);

/* Makes *e the record of request r. 0, or -1 (the clock failed, comm or unit is no UTF-8: it
 * could not be written as JSON). */
int audit_record_request(struct audit_entry *e, const struct audit_request *r);

#endif
