/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_SERVER_H
#define P256SIGND_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include "audit.h"
#include "config.h"
#include "keys.h"
#include "policy.h"
#include "signers.h"
#include "proto.h"

/*
 * The parent's transport: the listening socket, client connections and their frames, limits and
 * timeouts, replies with their audit records, and the orderly stop. Each complete frame goes to the
 * frame callback given to server_init (request_handle, request.h: the one function every request
 * passes through); the request layer answers through server_reply. A connection is opaque to it.
 */

struct event_base;
struct event;
struct evconnlistener;
struct conn;
struct server;

/* Takes one frame (len bytes after the length prefix) of c, taken at start_us. */
typedef void (*server_frame_fn)(struct server *s, struct conn *c, const uint8_t *frame,
	size_t len, uint64_t start_us);

struct server_stats {
	uint64_t started_ms;		/* CLOCK_MONOTONIC */
	uint64_t requests;		/* replies sent, errors included */
	uint64_t signatures;		/* signatures released */
	uint64_t precomputed_signatures; /* of those, signed with a nonce from a key's pool */
	uint64_t errors[PROTO_E_MAX + 1];
	uint64_t connections;		/* accepted in all */
};

struct server {
	struct event_base *base;
	server_frame_fn frame;
	const struct config *cfg;
	struct keytab *kt;
	struct signers *signers;
	struct evconnlistener *listener;
	struct event *expire_ev;	/* request timeouts */
	struct event *stop_ev;		/* bounds the orderly stop */
	struct event *retry_ev;		/* resumes accepting after running out of descriptors */
	struct event *flush_ev;		/* writes queued replies at the end of a loop turn */
	struct event *refusal_ev;	/* the once-a-second summary of refused connections */
	uint64_t refused[2];		/* since then: over max_connections, over the per-uid limit */
	uid_t daemon_uid;		/* the parent's own uid: may use keys without an "allow" */
	struct audit *audit;
	struct held *held;		/* signature replies waiting for their record to be written */
	size_t nheld, held_cap;
	TAILQ_HEAD(, conn) conns;
	TAILQ_HEAD(, conn) to_flush;
	unsigned nconns;
	size_t inflight;		/* over all connections */
	int stopping;
	uint64_t activity;		/* client bytes read and replies queued (busypoll.h) */
	struct server_stats stats;
};

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

/*
 * Sets up the server on base around a listening socket fd (already listening; the server owns it
 * from now on); every frame goes to `frame`. Accepting starts with server_accept. Returns 0 or
 * -1 (logged).
 */
int server_init(struct server *s, struct event_base *base, const struct config *cfg,
	struct keytab *kt, struct signers *signers, struct audit *audit, int fd, server_frame_fn frame);

/* The audit's `written` callback (audit.h): releases the signatures whose record was written,
 * and answers audit-unavailable for those whose record was not. */
void server_audit_written(void *arg, uint64_t ok_through, uint64_t tried_through);

/* Starts accepting connections (after the signers passed their self-test). */
int server_accept(struct server *s);

/*
 * The orderly stop: stops accepting, answers new requests with shutting-down, waits for the
 * requests in flight and their replies to be written, then ends the event loop; at most
 * limits.shutdown_timeout_ms.
 */
void server_stop(struct server *s);

/* Closes every connection and frees what server_init made. */
void server_free(struct server *s);

/*
 * Records the reply in the audit log, encodes and queues it (unless the connection is gone), and
 * counts it; an error that ends the connection closes it once written. Replies leave at the end
 * of the loop turn, after the audit records of the turn were written; a signature, when the
 * audit fails closed, is held until its own record is written, and replaced by audit-unavailable
 * when it could not be.
 */
void server_reply(struct server *s, const struct reply_to *to, const struct proto_response *resp);

/* server_reply of the standard ERROR response with code. */
void server_reply_error(struct server *s, const struct reply_to *to, uint16_t code);

/*
 * A request of c goes to a signer: c stays allocated (if closed meanwhile) until the matching
 * server_request_done. Returns 0, or -1 when c already has max_inflight_per_connection out.
 */
int server_request_hold(struct server *s, struct conn *c);

/* A request held by server_request_hold finished. */
void server_request_done(struct server *s, struct conn *c);

/* The peer's credentials (SO_PEERCRED at accept). */
const struct ucred *server_conn_peer(const struct conn *c);


/* The peer as the access policy sees it: uid, gid and supplementary groups. */
struct policy_peer server_conn_policy_peer(const struct conn *c);

#endif
