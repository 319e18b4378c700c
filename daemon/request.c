/* SPDX-License-Identifier: ISC */
/* Every request's path through the parent (request.h). */
#include "hex.h"
#include "request.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "keyfile.h"
#include "log.h"
#include "ratelimit.h"
#include "sha256.h"

/* A request handed to a signer, until its answer comes back. The key is named by copy: a
 * reload may replace the key table meanwhile. */
struct signing {
	struct server *srv;
	struct conn *conn;
	uint32_t id;
	uint8_t type;
	uint8_t format;
	char key_name[PROTO_NAME_MAX + 1];
	uint8_t key_id[P256_KEY_ID_LEN];
	struct audit_subject subject;	/* for its audit record */
	int has_subject;
	uint64_t start_us;
};

static void success_header(struct proto_response *resp, const struct reply_to *to)
{
	memset(resp, 0, sizeof(*resp));
	resp->h.version = PROTO_VERSION;
	resp->h.type = to->type | PROTO_RESPONSE;
	resp->h.id = to->id;
}

static int allowed(const struct server *s, const struct conn *c, const struct key_public *kp,
	enum policy_op op)
{
	struct policy_peer peer = server_conn_policy_peer(c);

	return policy_allows(s->daemon_uid, &peer, &kp->allow, kp->purpose, op);
}

/* The key a request names, for op, with the reply's log name set; -1 after replying
 * unknown-key, or denied when the peer may not do op with it. */
static int find_key(struct server *s, struct reply_to *to, const struct proto_key *sel,
	enum policy_op op)
{
	int k = keys_find(s->kt, sel), e;

	if (k < 0) {
		to->key = sel->kind == PROTO_KEY_NAME ? sel->name : NULL;
		server_reply_error(s, to, PROTO_E_UNKNOWN_KEY);
		return -1;
	}
	to->key = s->kt->pub[k].name;
	to->key_id = s->kt->pub[k].id;
	if ((e = allowed(s, to->conn, &s->kt->pub[k], op)) != 0) {
		server_reply_error(s, to, (uint16_t)e);
		return -1;
	}
	return k;
}

/* Whether the peer went over the key's max_signatures_per_second (the key set's in use: a reload
 * brings the configuration's new limits, with full buckets). */
static int over_rate(struct server *s, const struct conn *c, int key)
{
	return ratelimit_take(&s->kt->pub[key].rate, server_conn_peer(c)->uid,
	    clock_now_us()) != 0;
}

/* Hands a signing request to a signer: a digest, or (tls not NULL) a handshake's parts. The
 * answer arrives in request_signed. */
static void sign_request(struct server *s, const struct reply_to *to, int key, uint8_t format,
	const uint8_t digest[P256_DIGEST_LEN], const struct proto_tls *tls)
{
	const struct key_public *kp = &s->kt->pub[key];
	struct signing *g = NULL;
	int r;

	/* Fail closed: nothing is signed while its record could not be written. */
	if (!audit_available(s->audit)) {
		server_reply_error(s, to, PROTO_E_AUDIT_UNAVAILABLE);
		return;
	}
	if (over_rate(s, to->conn, key) || server_request_hold(s, to->conn) != 0) {
		server_reply_error(s, to, PROTO_E_OVERLOADED);
		return;
	}
	if ((g = malloc(sizeof(*g))) == NULL) {
		server_reply_error(s, to, PROTO_E_INTERNAL);
		server_request_done(s, to->conn);
		return;
	}
	*g = (struct signing){ .srv = s, .conn = to->conn, .id = to->id, .type = to->type,
		.format = format, .start_us = to->start_us, .has_subject = to->subject != NULL };
	if (to->subject != NULL)
		g->subject = *to->subject;
	memcpy(g->key_name, kp->name, sizeof(g->key_name));
	memcpy(g->key_id, kp->id, sizeof(g->key_id));
	r = tls != NULL ? signers_sign_tls(s->signers, (uint32_t)key, tls, g) :
	    signers_sign(s->signers, (uint32_t)key, digest, g);
	if (r != 0) {
		free(g);
		server_reply_error(s, to, (uint16_t)-r);
		server_request_done(s, to->conn);
	}
}

void request_signed(void *ctx, uint16_t error, const uint8_t sig[P256_SIG_LEN], int from_pool)
{
	struct signing *g = ctx;
	struct server *s = g->srv;
	struct reply_to to = { .conn = g->conn, .id = g->id, .type = g->type, .key = g->key_name,
		.key_id = g->key_id, .subject = g->has_subject ? &g->subject : NULL,
		.start_us = g->start_us, .from_pool = from_pool };
	struct proto_response resp;

	success_header(&resp, &to);
	resp.format = g->format;
	if (error == 0 && g->format == PROTO_FORMAT_RAW) {
		memcpy(resp.sig, sig, P256_SIG_LEN);
		resp.sig_len = P256_SIG_LEN;
	} else if (error == 0 && p256_sig_to_der(sig, resp.sig, &resp.sig_len) != 0)
		error = PROTO_E_INTERNAL;
	if (error != 0)
		server_reply_error(s, &to, error);
	else
		server_reply(s, &to, &resp);	/* counted as released when it is (server.c) */
	server_request_done(s, g->conn);
	free(g);
}

/* SIGN and SIGN_MESSAGE: the digest, or the message's, is subject->hash (request_subject). */
static void handle_sign(struct server *s, struct reply_to *to, const struct proto_request *req,
	const struct audit_subject *subject)
{
	int k;

	if ((k = find_key(s, to, &req->key, POLICY_SIGN)) < 0)
		return;
	sign_request(s, to, k, req->format, subject->hash, NULL);
}

/* SIGN_TLS: the server's or the client's side, as the key's purpose must allow. */
static void handle_sign_tls(struct server *s, struct reply_to *to, const struct proto_request *req)
{
	enum policy_op op = req->tls.side == PROTO_TLS_CLIENT ? POLICY_SIGN_TLS_CLIENT :
	    POLICY_SIGN_TLS_SERVER;
	int k;

	if ((k = find_key(s, to, &req->key, op)) < 0)
		return;
	sign_request(s, to, k, req->format, NULL, &req->tls);
}

static void handle_pubkey(struct server *s, struct reply_to *to, const struct proto_request *req)
{
	struct proto_response resp;
	const struct key_public *kp;
	int k;

	if ((k = find_key(s, to, &req->key, POLICY_SEE)) < 0)
		return;
	kp = &s->kt->pub[k];
	success_header(&resp, to);
	memcpy(resp.key_id, kp->id, sizeof(resp.key_id));
	memcpy(resp.point, kp->point, sizeof(resp.point));
	memcpy(resp.spki, kp->spki, sizeof(resp.spki));
	server_reply(s, to, &resp);
}

/* The public point of a VERIFY: its explicit point (kind 3, or kind 4 decompressed) or a key's.
 * -1 after replying bad-point, unknown-key or denied. */
static int verify_point(struct server *s, struct reply_to *to, const struct proto_request *req,
	uint8_t point[P256_POINT_LEN])
{
	int k, r;

	switch (req->key.kind) {
	case PROTO_KEY_POINT:
		memcpy(point, req->key.point, P256_POINT_LEN);
		r = p256_point_check(point);
		break;
	case PROTO_KEY_POINT_COMPRESSED:
		r = p256_point_decompress(req->key.point, point);
		break;
	default:
		if ((k = find_key(s, to, &req->key, POLICY_SEE)) < 0)
			return -1;
		memcpy(point, s->kt->pub[k].point, P256_POINT_LEN);
		return 0;
	}
	if (r != 0) {
		server_reply_error(s, to, PROTO_E_BAD_POINT);
		return -1;
	}
	return 0;
}

/*
 * VERIFY is answered here: it needs public data only, and keeping untrusted signature parsing
 * out of the processes that hold private keys is worth ~65 us of the event loop per request.
 * A strict-DER INTEGER of 2^256 or more is out of [1, n-1] like r = n: not valid, not an error.
 */
static void handle_verify(struct server *s, struct reply_to *to, const struct proto_request *req)
{
	struct proto_response resp;
	uint8_t point[P256_POINT_LEN], sig[P256_SIG_LEN];
	int r = 0;

	if (verify_point(s, to, req, point) != 0)
		return;
	if (req->format == PROTO_FORMAT_RAW)
		memcpy(sig, req->sig, sizeof(sig));
	else if ((r = p256_sig_from_der(req->sig, req->sig_len, sig)) != 0 &&
	    r != P256_ERR_SIG_RANGE) {
		server_reply_error(s, to, PROTO_E_BAD_SIGNATURE);
		return;
	}
	if (r == 0)
		r = p256_verify(point, P256_POINT_LEN, req->digest, sig, 0);
	if (r != 0 && r != P256_ERR_SIG_INVALID && r != P256_ERR_SIG_RANGE) {
		server_reply_error(s, to, r == P256_ERR_POINT ? PROTO_E_BAD_POINT : PROTO_E_INTERNAL);
		return;
	}
	success_header(&resp, to);
	resp.valid = r == 0;
	server_reply(s, to, &resp);
}

/* A key's "allow" as ids (names are resolved when the configuration is read): for root. */
static json_t *allow_json(const struct policy_acl *acl)
{
	json_t *users = json_array(), *groups = json_array();

	for (size_t i = 0; users != NULL && i < acl->nusers; i++)
		json_array_append_new(users, json_integer(acl->users[i]));
	for (size_t i = 0; groups != NULL && i < acl->ngroups; i++)
		json_array_append_new(groups, json_integer(acl->groups[i]));
	if (!acl->set) {
		json_decref(users);
		json_decref(groups);
		return json_null();
	}
	return json_pack("{s:o*, s:o*}", "users", users, "groups", groups);
}

/* The keys the peer may see; root sees every key, and who may use each. */
static json_t *list_keys_json(const struct server *s, const struct conn *c)
{
	json_t *keys = json_array();
	int root = server_conn_peer(c)->uid == 0;

	for (size_t i = 0; keys != NULL && i < s->kt->n; i++) {
		const struct key_public *kp = &s->kt->pub[i];
		char point[2 * P256_POINT_LEN + 1];
		json_t *k;

		if (allowed(s, c, kp, POLICY_SEE) != 0)
			continue;
		hex_encode(kp->point, sizeof(kp->point), point);
		k = json_pack("{s:s, s:s, s:s, s:s, s:b, s:s, s:I, s:I}",
		    "name", kp->name, "key_id", kp->id_hex, "public_key", point,
		    "nonce", keys_nonce_name(kp->nonce),
		    "verify_after_sign", kp->verify_after_sign,
		    "purpose", policy_purpose_name(kp->purpose),
		    "signatures", (json_int_t)kp->signatures,
		    "precomputed_signatures", (json_int_t)kp->precomputed_signatures);
		if (k == NULL || (root && json_object_set_new(k, "allow", allow_json(&kp->allow)) != 0) ||
		    json_array_append_new(keys, k) != 0) {
			json_decref(keys);
			return NULL;
		}
	}
	return keys == NULL ? NULL : json_pack("{s:o}", "keys", keys);
}

static json_t *status_json(const struct server *s)
{
	json_t *errors = json_object();

	for (uint16_t e = 1; errors != NULL && e <= PROTO_E_MAX; e++) {
		if (json_object_set_new(errors, proto_error_tag(e),
			json_integer((json_int_t)s->stats.errors[e])) != 0) {
			json_decref(errors);
			return NULL;
		}
	}
	if (errors == NULL)
		return NULL;
	/* "workers": the signers, named as in the configuration. */
	return json_pack("{s:s, s:I, s:i, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
	    "s:I, s:b, s:I, s:o, s:I, s:o}",
	    "version", P256SIGN_VERSION,
	    "uptime_s", (json_int_t)((clock_now_us() / 1000 - s->stats.started_ms) / 1000),
	    "workers", (int)s->signers->want, "workers_alive", (int)s->signers->alive,
	    "workers_replaced", (json_int_t)s->signers->stats.replaced,
	    "workers_hung", (json_int_t)s->signers->stats.hung,
	    "requests_resent", (json_int_t)s->signers->stats.resent,
	    "key_set", (json_int_t)s->signers->generation,
	    "connections", (json_int_t)s->nconns,
	    "connections_total", (json_int_t)s->stats.connections,
	    "requests", (json_int_t)s->stats.requests,
	    "signatures", (json_int_t)s->stats.signatures,
	    "precomputed_signatures", (json_int_t)s->stats.precomputed_signatures,
	    "inflight", (json_int_t)s->inflight,
	    "at_workers", (json_int_t)s->signers->inflight,
	    "stopping", s->stopping,
	    "max_frame_bytes", (json_int_t)s->cfg->limits.max_frame_bytes, "errors", errors,
	    "log_lines_dropped", (json_int_t)log_dropped(), "audit", audit_status_json(s->audit));
}

static void handle_json(struct server *s, struct reply_to *to, json_t *doc)
{
	struct proto_response resp;
	char *text;

	if (doc == NULL || (text = json_dumps(doc, JSON_COMPACT)) == NULL) {
		json_decref(doc);
		server_reply_error(s, to, PROTO_E_INTERNAL);
		return;
	}
	success_header(&resp, to);
	resp.json = text;
	resp.json_len = strlen(text);
	server_reply(s, to, &resp);
	free(text);
	json_decref(doc);
}

/*
 * What a signing request asks to have signed, for its audit record: SIGN's digest, the SHA-256 of
 * SIGN_MESSAGE's message (public, so hashed here; only the digest reaches a signer), SIGN_TLS's
 * transcript hash (TLS 1.3) or the SHA-256 of the randoms and params (TLS 1.2). 0, or -1 when
 * hashing fails.
 */
static int request_subject(const struct proto_request *req, struct audit_subject *sub)
{
	const struct proto_tls *t = &req->tls;

	memset(sub, 0, sizeof(*sub));
	sub->len = P256_DIGEST_LEN;
	switch (req->h.type) {
	case PROTO_SIGN:
		sub->kind = AUDIT_SUBJECT_DIGEST;
		memcpy(sub->hash, req->digest, P256_DIGEST_LEN);
		return 0;
	case PROTO_SIGN_MESSAGE:
		sub->kind = AUDIT_SUBJECT_MESSAGE;
		return sha256(req->message, req->message_len, sub->hash);
	case PROTO_SIGN_TLS:
		sub->tls_client = t->side == PROTO_TLS_CLIENT;
		if (t->kind == PROTO_TLS13_CERTIFICATE_VERIFY) {
			sub->kind = AUDIT_SUBJECT_TLS13;
			sub->len = t->hash_len <= sizeof(sub->hash) ? t->hash_len : sizeof(sub->hash);
			memcpy(sub->hash, t->hash, sub->len);
			return 0;
		}
		sub->kind = AUDIT_SUBJECT_TLS12;
		return proto_tls_digest(t, sub->hash) == 0 ? 0 : -1;	/* what is signed */
	default:
		sub->kind = AUDIT_SUBJECT_NONE;
		return 0;
	}
}

void request_handle(struct server *s, struct conn *c, const uint8_t *frame, size_t len,
	uint64_t start_us)
{
	struct proto_request req;
	struct reply_to to = { .conn = c, .start_us = start_us };
	struct proto_response resp;
	struct audit_subject subject;
	int r = proto_decode_request(frame, len, &req);

	to.id = req.h.id;
	to.type = req.h.type;
	if (r == 0 && request_subject(&req, &subject) != 0) {
		server_reply_error(s, &to, PROTO_E_INTERNAL);
		return;
	}
	if (r == 0 && subject.kind != AUDIT_SUBJECT_NONE)
		to.subject = &subject;
	if (r != 0) {
		server_reply_error(s, &to, (uint16_t)-r);
		return;
	}
	/* PING and STATUS still answer while stopping, so that a client can watch the stop. */
	if (s->stopping && req.h.type != PROTO_PING && req.h.type != PROTO_STATUS) {
		server_reply_error(s, &to, PROTO_E_SHUTTING_DOWN);
		return;
	}
	switch (req.h.type) {
	case PROTO_PING:
		success_header(&resp, &to);
		server_reply(s, &to, &resp);
		break;
	case PROTO_SIGN:
	case PROTO_SIGN_MESSAGE:
		handle_sign(s, &to, &req, &subject);
		break;
	case PROTO_SIGN_TLS:
		handle_sign_tls(s, &to, &req);
		break;
	case PROTO_PUBKEY:
		handle_pubkey(s, &to, &req);
		break;
	case PROTO_VERIFY:
		handle_verify(s, &to, &req);
		break;
	case PROTO_LIST_KEYS:
		handle_json(s, &to, list_keys_json(s, c));
		break;
	case PROTO_STATUS:
		handle_json(s, &to, status_json(s));
		break;
	default:
		server_reply_error(s, &to, PROTO_E_UNKNOWN_TYPE);
		break;
	}
}
