/* SPDX-License-Identifier: ISC */
/* The audit gate: record first, then release (reply.h). */
#include "reply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "latency.h"
#include "log.h"
#include "server.h"

/* A signature reply held until its audit record is written (audit_holds), with what is needed to
 * answer audit-unavailable instead when it is not. */
struct held {
	struct conn *conn;
	uint64_t ticket;		/* its record's (audit.h) */
	uint32_t id;
	uint8_t type;
	char key[PROTO_NAME_MAX + 1];
	uint8_t key_id[P256_KEY_ID_LEN];
	struct audit_subject subject;
	int has_subject;
	uint64_t start_us;
	int from_pool;
	size_t len;
	uint8_t bytes[PROTO_LEN_PREFIX + PROTO_HEADER_LEN + 8 + PROTO_SIG_MAX];
};

struct replies {
	struct audit *audit;
	const struct keytab *kt;
	struct key_usage *usage;
	struct held *held;
	size_t nheld, held_cap;
	uint64_t requests;		/* replies sent, errors included */
	uint64_t signatures;		/* signatures released */
	uint64_t precomputed_signatures; /* of those, signed with a nonce from a key's pool */
	uint64_t errors[PROTO_E_MAX + 1];
	struct latency latency;		/* per op, of every answer recorded */
};

struct replies *replies_new(struct audit *audit, const struct keytab *kt, struct key_usage *usage)
{
	struct replies *g = calloc(1, sizeof(*g));

	if (g == NULL)
		return NULL;
	g->audit = audit;
	g->kt = kt;
	g->usage = usage;
	return g;
}

void replies_free(struct replies *g)
{
	if (g == NULL)
		return;
	free(g->held);
	free(g);
}

void replies_drop_held(struct replies *g)
{
	if (g != NULL)
		g->nheld = 0;
}

/* The reply's audit record: its ticket, or 0 when it could not be made. Its time is also
 * STATUS's latency. */
static uint64_t record(struct replies *g, const struct reply_to *to,
	const struct proto_response *resp)
{
	const char *op = proto_type_name(to->type);
	const struct peer_identity *who = server_conn_identity(to->conn);
	int error = resp->h.type == PROTO_ERROR;
	uint64_t us = clock_now_us() - to->start_us;
	struct audit_request r = {
		.peer = server_conn_peer(to->conn), .conn = server_conn_number(to->conn),
		.id = to->id, .op = strcmp(op, "unknown") == 0 ? "frame" : op,
		.key = to->key_id != NULL ? to->key : NULL, .key_id = to->key_id,
		.subject = to->subject, .error = error ? resp->error : 0,
		.sig = !error && resp->sig_len > 0 ? resp->sig : NULL, .sig_len = resp->sig_len,
		.us = us,
		.comm = who->comm[0] != '\0' ? who->comm : NULL,
		.unit = who->unit[0] != '\0' ? who->unit : NULL,
	};

	latency_observe(&g->latency, to->type, us, error);
	return audit_request(g->audit, &r);
}

/* A signature released: counted for STATUS and the key's LIST_KEYS entry, and apart when it was
 * made with a nonce from the key's pool. */
static void count_signature(struct replies *g, const uint8_t key_id[P256_KEY_ID_LEN],
	int from_pool)
{
	struct proto_key sel = { .kind = PROTO_KEY_ID };
	int k;

	memcpy(sel.id, key_id, sizeof(sel.id));
	if ((k = keytab_find(g->kt, &sel)) >= 0) {
		g->usage[k].signatures++;
		g->usage[k].precomputed_signatures += from_pool != 0;
	}
	g->signatures++;
	g->precomputed_signatures += from_pool != 0;
}

static void reply_instead(struct replies *g, const struct reply_to *to, uint16_t code);

/* Keeps an encoded signature reply until its record is written; 0, or -1 when it cannot. The
 * connection stays allocated meanwhile, and the stop waits for it, as for a request in flight. */
static int hold(struct replies *g, const struct reply_to *to, uint64_t ticket,
	const uint8_t *bytes, size_t len)
{
	struct held *h;

	if (ticket == 0 || to->key_id == NULL || len > sizeof(h->bytes))
		return -1;
	if (g->nheld == g->held_cap) {
		size_t cap = g->held_cap ? 2 * g->held_cap : 64;

		if ((h = realloc(g->held, cap * sizeof(*h))) == NULL)
			return -1;
		g->held = h;
		g->held_cap = cap;
	}
	h = &g->held[g->nheld++];
	*h = (struct held){ .conn = to->conn, .ticket = ticket, .id = to->id, .type = to->type,
		.has_subject = to->subject != NULL, .start_us = to->start_us,
		.from_pool = to->from_pool, .len = len };
	snprintf(h->key, sizeof(h->key), "%s", to->key);
	memcpy(h->key_id, to->key_id, sizeof(h->key_id));
	if (to->subject != NULL)
		h->subject = *to->subject;
	memcpy(h->bytes, bytes, len);
	server_conn_keep(to->conn);
	server_conn_wake(to->conn);	/* the flush at the end of the turn writes its record */
	return 0;
}

/* A held reply whose record was written goes out; one whose record was not is answered
 * audit-unavailable instead (a reply, and its own record, in place of the first). */
static void release(struct replies *g, struct held *h, int written)
{
	struct reply_to to = { .conn = h->conn, .id = h->id, .type = h->type, .key = h->key,
		.key_id = h->key_id, .subject = h->has_subject ? &h->subject : NULL,
		.start_us = h->start_us };

	if (!written)
		reply_instead(g, &to, PROTO_E_AUDIT_UNAVAILABLE);
	else if (server_conn_send(h->conn, h->bytes, h->len) == 0)
		count_signature(g, h->key_id, h->from_pool);
	server_conn_release(h->conn);
}

void replies_audit_written(void *arg, uint64_t ok_through, uint64_t tried_through)
{
	struct replies *g = arg;
	size_t keep = 0;

	/* Replies made here are never held (errors), so the list does not grow meanwhile. */
	for (size_t i = 0; i < g->nheld; i++) {
		struct held h = g->held[i];

		if (h.ticket > tried_through)
			g->held[keep++] = h;
		else
			release(g, &h, h.ticket <= ok_through);
	}
	g->nheld = keep;
}

void replies_before_write(void *arg)
{
	struct replies *g = arg;

	audit_flush(g->audit);
	audit_flush(g->audit);
}

/* Answers a request (counted by the caller), audited; a signature is held while the audit
 * holds replies until their record is written. */
static void answer(struct replies *g, const struct reply_to *to, const struct proto_response *resp)
{
	static uint8_t buf[PROTO_LEN_PREFIX + PROTO_FRAME_MAX];
	struct conn *c = to->conn;
	int signature = resp->h.type != PROTO_ERROR && resp->sig_len > 0;
	uint64_t ticket;
	size_t len;

	if (resp->h.type == PROTO_ERROR && resp->error <= PROTO_E_MAX)
		g->errors[resp->error]++;
	ticket = record(g, to, resp);
	if (!server_conn_open(c))
		return;
	if (proto_encode_response(resp, buf, sizeof(buf), &len) != 0) {
		log_error("conn %lu: cannot encode a reply", server_conn_number(c));
		server_conn_close(c);
		return;
	}
	if (signature && audit_holds(g->audit)) {
		if (hold(g, to, ticket, buf, len) != 0)
			reply_instead(g, to, PROTO_E_AUDIT_UNAVAILABLE);
		return;
	}
	if (server_conn_send(c, buf, len) != 0)
		return;
	if (signature && to->key_id != NULL)
		count_signature(g, to->key_id, to->from_pool);
	if (resp->h.type == PROTO_ERROR && proto_error_closes(resp->error))
		server_conn_close_after_write(c);
}

/* Answers the error code, uncounted: also what a signature that cannot go out without its
 * record is answered with instead, the same request, so it is not counted again. */
static void reply_instead(struct replies *g, const struct reply_to *to, uint16_t code)
{
	struct proto_response resp;

	proto_error_response(&resp, to->id, code);
	answer(g, to, &resp);
}

void reply_send(struct replies *g, const struct reply_to *to, const struct proto_response *resp)
{
	g->requests++;
	answer(g, to, resp);
}

void reply_error(struct replies *g, const struct reply_to *to, uint16_t code)
{
	g->requests++;
	reply_instead(g, to, code);
}

void replies_count_refusal(struct replies *g)
{
	g->requests++;
	g->errors[PROTO_E_TOO_MANY_CONNECTIONS]++;
}

uint64_t replies_requests(const struct replies *g)
{
	return g->requests;
}

int replies_status_add(const struct replies *g, json_t *status)
{
	json_t *errors = json_object();

	/* json_object_set_new takes its value also when it fails. */
	if (json_object_set_new(status, "errors", errors) != 0)
		return -1;
	for (uint16_t e = 1; e <= PROTO_E_MAX; e++)
		if (json_object_set_new(errors, proto_error_tag(e),
			json_integer((json_int_t)g->errors[e])) != 0)
			return -1;
	if (json_object_set_new(status, "requests", json_integer((json_int_t)g->requests)) != 0 ||
	    json_object_set_new(status, "signatures", json_integer((json_int_t)g->signatures)) != 0 ||
	    json_object_set_new(status, "precomputed_signatures",
		json_integer((json_int_t)g->precomputed_signatures)) != 0 ||
	    json_object_set_new(status, "latency", latency_json(&g->latency)) != 0)
		return -1;
	return 0;
}
