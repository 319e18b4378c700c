/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_AUDIT_RECORD_H
#define P256SIGND_AUDIT_RECORD_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/*
 * The members of audit records (docs/audit.md) as jansson objects, in the documented order. The
 * chain members (v, type, seq, time, prev) come first: audit_record_new puts them there with
 * time set and seq and prev as placeholders, which audit_record_chain fills when the record takes
 * its place in the chain (a set keeps a member's position).
 */

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

/* One request and its answer. Pointers may be NULL where a member does not apply. */
struct audit_request {
	const struct ucred *peer;	/* SO_PEERCRED at accept */
	const char *comm;		/* the peer's process name, when known */
	const char *unit;		/* its systemd unit, when known */
	unsigned long conn;
	uint32_t id;
	const char *op;			/* "sign", ..., or "frame" */
	const char *key;		/* a key that exists */
	const uint8_t *key_id;		/* its id (32 bytes) */
	const struct audit_subject *subject;
	uint16_t error;			/* 0: ok */
	const uint8_t *sig;		/* the signature released, as sent */
	size_t sig_len;
	uint64_t us;			/* from the frame's arrival */
};

/* A new record of type, stamped with the time now; NULL when out of memory. */
json_t *audit_record_new(const char *type);

/* The members of a request record after the chain's, added to rec. 0 or -1. */
int audit_record_request(json_t *rec, const struct audit_request *r);

/* Sets seq and prev (hex of the previous line's SHA-256). 0 or -1. */
int audit_record_chain(json_t *rec, uint64_t seq, const uint8_t prev[32]);

/* Adds a member holding n bytes as hex. 0 or -1. */
int audit_record_hex(json_t *rec, const char *name, const uint8_t *bytes, size_t n);

/* SHA-256 of n bytes. 0 or -1. */
int audit_sha256(const void *data, size_t n, uint8_t out[32]);

#endif
