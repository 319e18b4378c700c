/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_REPLY_H
#define P256SIGND_REPLY_H

#include <jansson.h>
#include <stdint.h>

#include "audit.h"
#include "keytab.h"
#include "proto.h"

/*
 * The audit gate (docs/architecture.md): every reply passes here on its way to a connection. Its
 * audit record is appended first; a signature, while the audit holds replies (audit_holds), is
 * kept until the write carrying its record returned, then released, or replaced by
 * audit-unavailable when the record could not be written. Replies are counted here, signatures
 * when they are released: no signature leaves, and none is counted, before its record is
 * written. The transport (server.h) writes what this hands it, at the end of the loop turn,
 * after the turn's records (replies_before_write).
 */

struct conn;
struct replies;

/* Who a reply goes to and what its audit record says about the request. */
struct reply_to {
	struct conn *conn;
	uint32_t id;
	uint8_t type;			/* the request's type; 0 for a frame without a readable one */
	const char *key;		/* the name of the key it selects, or NULL when there is none */
	const uint8_t *key_id;		/* that key's id, or NULL */
	const struct audit_subject *subject;	/* what it asked to sign, or NULL */
	uint64_t start_us;		/* when the frame was taken, CLOCK_MONOTONIC */
	int from_pool;			/* a signature made with a nonce from the key's pool */
};

/* The gate over audit, counting signatures per key of kt into usage (the parent's, usage[i] for
 * kt->pub[i]; both outlive the gate and may change between calls). NULL when out of memory. */
struct replies *replies_new(struct audit *audit, const struct keytab *kt, struct key_usage *usage);

/* Frees the gate and what it still holds (the connections they were for are gone). */
void replies_free(struct replies *g);

/* Forgets the replies held, unanswered: at exit, before their connections are freed. */
void replies_drop_held(struct replies *g);

/* Answers a request: recorded, encoded and handed to the transport (a signature held while the
 * audit holds replies), counted in `requests`; an error that ends the connection closes it once
 * written. */
void reply_send(struct replies *g, const struct reply_to *to, const struct proto_response *resp);

/* reply_send of the standard ERROR response with code. */
void reply_error(struct replies *g, const struct reply_to *to, uint16_t code);

/* A connection refused at accept (too-many-connections, with no request): counted as an answer
 * with that error, as STATUS reports it. */
void replies_count_refusal(struct replies *g);

/* The transport's hook before it writes the turn's replies: the turn's records are written,
 * then the records of the audit-unavailable answers that replaced held signatures whose record
 * could not be. arg is the gate. */
void replies_before_write(void *arg);

/* The audit's `written` callback (audit.h): releases the signatures whose record was written,
 * and answers audit-unavailable for those whose record was not. arg is the gate. */
void replies_audit_written(void *arg, uint64_t ok_through, uint64_t tried_through);

/* Replies answered so far, errors included (STATUS "requests", the STATUS= line). */
uint64_t replies_requests(const struct replies *g);

/* Adds the gate's part of STATUS to status: requests, signatures, precomputed_signatures,
 * errors by tag and latency per op (latency.h). 0 or -1 (out of memory). */
int replies_status_add(const struct replies *g, json_t *status);

#endif
