/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_SERVER_H
#define P256SIGND_SERVER_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "config.h"
#include "peer.h"
#include "policy.h"

/*
 * The parent's client transport: the listening socket, client connections and their frames,
 * per-connection limits and timeouts, the end-of-turn write of replies, and the orderly stop.
 * Each complete frame goes to the frame callback (request_handle, request.h); replies come back
 * through server_conn_send (from the audit gate, reply.h), and are written at the end of the loop
 * turn, after the before_write callback (which writes the turn's audit records). What a request
 * is and what a reply says is not this module's business.
 */

struct event_base;
struct conn;
struct server;

struct server_callbacks {
	/* Takes one frame (len bytes after the length prefix) of c, taken at start_us. */
	void (*frame)(void *arg, struct conn *c, const uint8_t *frame, size_t len,
		uint64_t start_us);
	/* A frame that cannot be taken: its length prefix is malformed or over max_frame_bytes
	 * (code, a PROTO_E_*). The layer above answers it; the connection closes once that is
	 * written, its body never read. */
	void (*frame_fault)(void *arg, struct conn *c, uint16_t code, uint64_t start_us);
	/* A connection was refused at accept (over max_connections or max_connections_per_uid):
	 * it was answered too-many-connections and closed. */
	void (*refused)(void *arg);
	/* Before the turn's replies are written (record first, then release). */
	void (*before_write)(void *arg);
	void *arg;
};

/*
 * A server on base around a listening socket fd (already listening; the server owns it from now
 * on, also after a failure), with the limits of cfg (which outlives it). Accepting starts with
 * server_accept. NULL (logged) when it cannot be set up.
 */
struct server *server_new(struct event_base *base, const struct config *cfg, int fd,
	const struct server_callbacks *cb);

/* Starts accepting connections (after the signers passed their self-test). 0 or -1 (logged). */
int server_accept(struct server *s);

/*
 * The orderly stop: stops accepting (new connections are no longer taken from the socket), lets
 * the layer above answer new requests with shutting-down (server_stopping), waits for the
 * requests in flight and their replies to be written, then ends the event loop; at most
 * limits.shutdown_timeout_ms.
 */
void server_stop(struct server *s);

/* 1 once server_stop was called. */
int server_stopping(const struct server *s);

/* Closes every connection and frees the server (NULL: nothing). */
void server_free(struct server *s);

/* Client bytes read and replies queued so far, for busy polling (busypoll.h). */
const uint64_t *server_activity(const struct server *s);

/* Adds the transport's part of STATUS: connections, connections_total, inflight and stopping.
 * 0 or -1 (out of memory). */
int server_status_add(const struct server *s, json_t *status);

/* ---- one connection, for the layers above ---------------------------------------------- */

/*
 * A request of c goes to a signer: c stays allocated (if closed meanwhile), and the stop waits,
 * until the matching server_conn_release. Returns 0, or -1 when c already has
 * max_inflight_per_connection out.
 */
int server_conn_hold(struct conn *c);

/* server_conn_hold without the per-connection limit: for a reply held by the audit gate. */
void server_conn_keep(struct conn *c);

/* What server_conn_hold or server_conn_keep took is done. */
void server_conn_release(struct conn *c);

/* Appends bytes to c's output, written at the end of the loop turn. A closed c takes nothing.
 * 0, or -1 when out of memory (c is closed then). */
int server_conn_send(struct conn *c, const uint8_t *bytes, size_t len);

/* Puts c on the end-of-turn write without new output (before_write runs then). */
void server_conn_wake(struct conn *c);

/* After an error that ends the connection: stop reading, close once the output is written. */
void server_conn_close_after_write(struct conn *c);

/* Closes c's socket now (what is queued is dropped). */
void server_conn_close(struct conn *c);

/* 1 while c's socket is open. */
int server_conn_open(const struct conn *c);

/* The peer's credentials (SO_PEERCRED at accept). */
const struct ucred *server_conn_peer(const struct conn *c);

/* The peer as the access policy sees it: uid, gid and supplementary groups. */
struct policy_peer server_conn_policy_peer(const struct conn *c);

/* Its process name and unit, taken at accept (peer.h). */
const struct peer_identity *server_conn_identity(const struct conn *c);

/* Its number, counted from 1, for the log and the audit. */
unsigned long server_conn_number(const struct conn *c);

#endif
