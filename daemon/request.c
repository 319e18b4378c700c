/* SPDX-License-Identifier: ISC */
/* Every request's path through the parent (request.h). */
#include "request.h"

#include <event2/event.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "list-keys.h"
#include "log.h"
#include "ratelimit.h"
#include "sha256.h"

struct requests {
	struct requests_deps d;
	struct server *srv;
	struct event *expire_ev;	/* request timeouts: armed while requests are at signers */
	struct timeval expire_every;	/* a quarter of request_timeout_ms */
	uid_t daemon_uid;		/* the parent's own uid: may use keys without an "allow" */
	uint64_t started_ms;		/* CLOCK_MONOTONIC */
};

/* A request handed to a signer, until its answer comes back. The key is named by copy: a
 * reload may replace the key table meanwhile. */
struct signing {
	struct requests *rq;
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

static int allowed(const struct requests *rq, const struct conn *c, const struct key_public *kp,
	enum policy_op op)
{
	struct policy_peer peer = server_conn_policy_peer(c);

	return policy_allows(rq->daemon_uid, &peer, &kp->allow, kp->purpose, op);
}

/* The key a request names, for op, with the reply's log name set; -1 after replying
 * unknown-key, or denied when the peer may not do op with it. */
static int find_key(struct requests *rq, struct reply_to *to, const struct proto_key *sel,
	enum policy_op op)
{
	const struct keytab *kt = rq->d.kt;
	int k = keytab_find(kt, sel), e;

	if (k < 0) {
		to->key = sel->kind == PROTO_KEY_NAME ? sel->name : NULL;
		reply_error(rq->d.replies, to, PROTO_E_UNKNOWN_KEY);
		return -1;
	}
	to->key = kt->pub[k].name;
	to->key_id = kt->pub[k].id;
	if ((e = allowed(rq, to->conn, &kt->pub[k], op)) != 0) {
		reply_error(rq->d.replies, to, (uint16_t)e);
		return -1;
	}
	return k;
}

/* Whether the peer went over the key's max_signatures_per_second (the key set's in use: a reload
 * brings the configuration's new limits, with full buckets). */
static int over_rate(struct requests *rq, const struct conn *c, int key)
{
	return ratelimit_take(&rq->d.usage[key].rate, server_conn_peer(c)->uid,
	    clock_now_us()) != 0;
}

/* Arms the request timeouts' timer while signing requests are out (none: no wake-up). */
static void arm_expiry(struct requests *rq)
{
	if (rq->d.signers->inflight == 0 || evtimer_pending(rq->expire_ev, NULL))
		return;
	if (evtimer_add(rq->expire_ev, &rq->expire_every) != 0)
		log_error("cannot arm the request timeouts");
}

/* Hands a signing request to a signer: a digest, or (tls not NULL) a handshake's parts. The
 * answer arrives in request_signed. */
static void sign_request(struct requests *rq, const struct reply_to *to, int key,
	uint8_t format, const uint8_t digest[P256_DIGEST_LEN], const struct proto_tls *tls)
{
	const struct key_public *kp = &rq->d.kt->pub[key];
	struct signing *g = NULL;
	int r;

	/* Fail closed: nothing is signed while its record could not be written. */
	if (!audit_available(rq->d.audit)) {
		reply_error(rq->d.replies, to, PROTO_E_AUDIT_UNAVAILABLE);
		return;
	}
	if (over_rate(rq, to->conn, key) || server_conn_hold(to->conn) != 0) {
		reply_error(rq->d.replies, to, PROTO_E_OVERLOADED);
		return;
	}
	if ((g = malloc(sizeof(*g))) == NULL) {
		reply_error(rq->d.replies, to, PROTO_E_INTERNAL);
		server_conn_release(to->conn);
		return;
	}
	*g = (struct signing){ .rq = rq, .conn = to->conn, .id = to->id, .type = to->type,
		.format = format, .start_us = to->start_us, .has_subject = to->subject != NULL };
	if (to->subject != NULL)
		g->subject = *to->subject;
	memcpy(g->key_name, kp->name, sizeof(g->key_name));
	memcpy(g->key_id, kp->id, sizeof(g->key_id));
	r = tls != NULL ? signers_sign_tls(rq->d.signers, (uint32_t)key, tls, g) :
	    signers_sign(rq->d.signers, (uint32_t)key, digest, g);
	if (r != 0) {
		free(g);
		reply_error(rq->d.replies, to, (uint16_t)-r);
		server_conn_release(to->conn);
		return;
	}
	arm_expiry(rq);
}

void request_signed(void *ctx, uint16_t error, const uint8_t sig[P256_SIG_LEN], int from_pool)
{
	struct signing *g = ctx;
	struct replies *replies = g->rq->d.replies;
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
		reply_error(replies, &to, error);
	else
		reply_send(replies, &to, &resp);	/* counted as released when it is (reply.c) */
	server_conn_release(g->conn);
	free(g);
}

/* SIGN and SIGN_MESSAGE: the digest, or the message's, is subject->hash (request_subject). */
static void handle_sign(struct requests *rq, struct reply_to *to, const struct proto_request *req,
	const struct audit_subject *subject)
{
	int k;

	if ((k = find_key(rq, to, &req->key, POLICY_SIGN)) < 0)
		return;
	sign_request(rq, to, k, req->format, subject->hash, NULL);
}

/* SIGN_TLS: the server's or the client's side, as the key's purpose must allow. */
static void handle_sign_tls(struct requests *rq, struct reply_to *to, const struct proto_request *req)
{
	enum policy_op op = req->tls.side == PROTO_TLS_CLIENT ? POLICY_SIGN_TLS_CLIENT :
	    POLICY_SIGN_TLS_SERVER;
	int k;

	if ((k = find_key(rq, to, &req->key, op)) < 0)
		return;
	sign_request(rq, to, k, req->format, NULL, &req->tls);
}

/* PUBKEY's and CERTIFICATE's key, for the peers that may see it (POLICY_SEE), with resp a
 * success answer carrying its id; NULL after replying unknown-key or denied. */
static const struct key_public *seen_key(struct requests *rq, struct reply_to *to,
	const struct proto_request *req, struct proto_response *resp)
{
	const struct key_public *kp;
	int k;

	if ((k = find_key(rq, to, &req->key, POLICY_SEE)) < 0)
		return NULL;
	kp = &rq->d.kt->pub[k];
	success_header(resp, to);
	memcpy(resp->key_id, kp->id, sizeof(resp->key_id));
	return kp;
}

static void handle_pubkey(struct requests *rq, struct reply_to *to, const struct proto_request *req)
{
	struct proto_response resp;
	const struct key_public *kp;

	if ((kp = seen_key(rq, to, req, &resp)) == NULL)
		return;
	memcpy(resp.point, kp->point, sizeof(resp.point));
	memcpy(resp.spki, kp->spki, sizeof(resp.spki));
	reply_send(rq->d.replies, to, &resp);
}

/* CERTIFICATE: public data, for the same peers as PUBKEY, answered from the key set in use: the
 * key-holder is never asked at request time. */
static void handle_certificate(struct requests *rq, struct reply_to *to,
	const struct proto_request *req)
{
	struct proto_response resp;
	const struct key_public *kp;

	if ((kp = seen_key(rq, to, req, &resp)) == NULL)
		return;
	if (kp->cert == NULL) {
		reply_error(rq->d.replies, to, PROTO_E_NO_CERTIFICATE);
		return;
	}
	resp.cert = kp->cert;
	resp.cert_len = kp->cert_len;
	reply_send(rq->d.replies, to, &resp);
}

/* The public point of a VERIFY: its explicit point (kind 3, or kind 4 decompressed) or a key's,
 * with *vk the key's table (NULL for an explicit point or a key without one). -1 after replying
 * bad-point, unknown-key or denied. */
static int verify_point(struct requests *rq, struct reply_to *to, const struct proto_request *req,
	uint8_t point[P256_POINT_LEN], const struct p256_verify_key **vk)
{
	struct key_public *kp;
	int k, r;

	*vk = NULL;
	switch (req->key.kind) {
	case PROTO_KEY_POINT:
		memcpy(point, req->key.point, P256_POINT_LEN);
		r = p256_point_check(point);
		break;
	case PROTO_KEY_POINT_COMPRESSED:
		r = p256_point_decompress(req->key.point, point);
		break;
	default:
		if ((k = find_key(rq, to, &req->key, POLICY_SEE)) < 0)
			return -1;
		kp = &rq->d.kt->pub[k];
		memcpy(point, kp->point, P256_POINT_LEN);
		/*
		 * The key's table, built at its first VERIFY (150 KiB, 25 ms, once) rather than at
		 * load, where 128 keys would hold up a reload's event loop for 3 s: later VERIFYs
		 * take a third of the time. If it cannot be built, p256_verify does the work.
		 */
		if (kp->verifier == NULL &&
		    p256_pubkey_precompute(kp->point, P256_POINT_LEN, &kp->verifier) != 0)
			kp->verifier = NULL;
		*vk = kp->verifier;
		return 0;
	}
	if (r != 0) {
		reply_error(rq->d.replies, to, PROTO_E_BAD_POINT);
		return -1;
	}
	return 0;
}

/*
 * VERIFY is answered here: it needs public data only, and keeping untrusted signature parsing
 * out of the processes that hold private keys is worth ~65 us of the event loop per request.
 * A strict-DER INTEGER of 2^256 or more is out of [1, n-1] like r = n: not valid, not an error.
 */
static void handle_verify(struct requests *rq, struct reply_to *to, const struct proto_request *req)
{
	const struct p256_verify_key *vk;
	struct proto_response resp;
	uint8_t point[P256_POINT_LEN], sig[P256_SIG_LEN];
	int r = 0;

	if (verify_point(rq, to, req, point, &vk) != 0)
		return;
	if (req->format == PROTO_FORMAT_RAW)
		memcpy(sig, req->sig, sizeof(sig));
	else if ((r = p256_sig_from_der(req->sig, req->sig_len, sig)) != 0 &&
	    r != P256_ERR_SIG_RANGE) {
		reply_error(rq->d.replies, to, PROTO_E_BAD_SIGNATURE);
		return;
	}
	if (r == 0)
		r = vk != NULL ? p256_verify_precomputed(vk, req->digest, sig, 0) :
		    p256_verify(point, P256_POINT_LEN, req->digest, sig, 0);
	if (r != 0 && r != P256_ERR_SIG_INVALID && r != P256_ERR_SIG_RANGE) {
		reply_error(rq->d.replies, to, r == P256_ERR_POINT ? PROTO_E_BAD_POINT : PROTO_E_INTERNAL);
		return;
	}
	success_header(&resp, to);
	resp.valid = r == 0;
	reply_send(rq->d.replies, to, &resp);
}

/* The keys the peer may see; root sees every key, and who may use each. */
static json_t *list_keys_json(const struct requests *rq, const struct conn *c)
{
	json_t *keys = json_array();
	int root = server_conn_peer(c)->uid == 0;

	for (size_t i = 0; keys != NULL && i < rq->d.kt->n; i++) {
		const struct key_public *kp = &rq->d.kt->pub[i];
		const struct key_usage *use = &rq->d.usage[i];
		const struct list_keys_entry e = { .name = kp->name, .id_hex = kp->id_hex,
			.point = kp->point, .nonce = config_nonce_name(kp->nonce),
			.verify_after_sign = kp->verify_after_sign, .purpose = kp->purpose,
			.signatures = use->signatures,
			.precomputed_signatures = use->precomputed_signatures,
			.has_certificate = kp->cert != NULL,
			.certificate_not_after = kp->cert_not_after,
			.certificate_sha256 = kp->cert_sha256_hex,
			.allow = root ? &kp->allow : NULL };

		if (allowed(rq, c, kp, POLICY_SEE) != 0)
			continue;
		if (json_array_append_new(keys, list_keys_entry_json(&e)) != 0) {
			json_decref(keys);
			return NULL;
		}
	}
	return list_keys_doc(keys);
}

/* STATUS: each module adds its own part. */
static json_t *status_json(const struct requests *rq)
{
	json_t *st = json_pack("{s:s, s:I, s:I, s:I}", "version", P256SIGN_VERSION,
	    "uptime_s", (json_int_t)((clock_now_us() / 1000 - rq->started_ms) / 1000),
	    "max_frame_bytes", (json_int_t)rq->d.cfg->limits.max_frame_bytes,
	    "log_lines_dropped", (json_int_t)log_dropped());

	if (st == NULL || signers_status_add(rq->d.signers, st) != 0 ||
	    server_status_add(rq->srv, st) != 0 || replies_status_add(rq->d.replies, st) != 0 ||
	    json_object_set_new(st, "audit", audit_status_json(rq->d.audit)) != 0) {
		json_decref(st);
		return NULL;
	}
	return st;
}

static void handle_json(struct requests *rq, struct reply_to *to, json_t *doc)
{
	struct proto_response resp;
	char *text;

	if (doc == NULL || (text = json_dumps(doc, JSON_COMPACT)) == NULL) {
		json_decref(doc);
		reply_error(rq->d.replies, to, PROTO_E_INTERNAL);
		return;
	}
	success_header(&resp, to);
	resp.json = text;
	resp.json_len = strlen(text);
	reply_send(rq->d.replies, to, &resp);
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

/* Answers a decoded request, or hands it to a signer. */
static void dispatch(struct requests *rq, struct reply_to *to, const struct proto_request *req,
	const struct audit_subject *subject)
{
	struct proto_response resp;

	switch (req->h.type) {
	case PROTO_PING:
		success_header(&resp, to);
		reply_send(rq->d.replies, to, &resp);
		break;
	case PROTO_SIGN:
	case PROTO_SIGN_MESSAGE:
		handle_sign(rq, to, req, subject);
		break;
	case PROTO_SIGN_TLS:
		handle_sign_tls(rq, to, req);
		break;
	case PROTO_PUBKEY:
		handle_pubkey(rq, to, req);
		break;
	case PROTO_VERIFY:
		handle_verify(rq, to, req);
		break;
	case PROTO_CERTIFICATE:
		handle_certificate(rq, to, req);
		break;
	case PROTO_LIST_KEYS:
		handle_json(rq, to, list_keys_json(rq, to->conn));
		break;
	case PROTO_STATUS:
		handle_json(rq, to, status_json(rq));
		break;
	default:
		reply_error(rq->d.replies, to, PROTO_E_UNKNOWN_TYPE);
		break;
	}
}

void request_handle(void *arg, struct conn *c, const uint8_t *frame, size_t len,
	uint64_t start_us)
{
	struct requests *rq = arg;
	struct proto_request req;
	struct reply_to to = { .conn = c, .start_us = start_us };
	struct audit_subject subject;
	int r = proto_decode_request(frame, len, &req);

	to.id = req.h.id;
	to.type = req.h.type;
	if (r == 0 && request_subject(&req, &subject) != 0) {
		reply_error(rq->d.replies, &to, PROTO_E_INTERNAL);
		return;
	}
	if (r == 0 && subject.kind != AUDIT_SUBJECT_NONE)
		to.subject = &subject;
	if (r != 0) {
		reply_error(rq->d.replies, &to, (uint16_t)-r);
		return;
	}
	/* PING and STATUS still answer while stopping, so that a client can watch the stop. */
	if (server_stopping(rq->srv) && req.h.type != PROTO_PING && req.h.type != PROTO_STATUS) {
		reply_error(rq->d.replies, &to, PROTO_E_SHUTTING_DOWN);
		return;
	}
	dispatch(rq, &to, &req, &subject);
}

void request_frame_fault(void *arg, struct conn *c, uint16_t code, uint64_t start_us)
{
	struct requests *rq = arg;
	const struct reply_to to = { .conn = c, .type = 0, .start_us = start_us };

	reply_error(rq->d.replies, &to, code);
}

void request_refused(void *arg)
{
	struct requests *rq = arg;

	replies_count_refusal(rq->d.replies);
}

void request_before_write(void *arg)
{
	struct requests *rq = arg;

	replies_before_write(rq->d.replies);
}

static void expire_cb(evutil_socket_t fd, short what, void *arg)
{
	struct requests *rq = arg;

	signers_expire(rq->d.signers, rq->d.cfg->limits.request_timeout_ms);
	arm_expiry(rq);
}

struct requests *requests_new(struct event_base *base, const struct requests_deps *deps)
{
	/* Timeouts are checked a few times per period, so a request is answered at most 25 %
	 * after its deadline. */
	unsigned quarter = deps->cfg->limits.request_timeout_ms / 4, ms = quarter ? quarter : 1;
	struct requests *rq = calloc(1, sizeof(*rq));

	if (rq == NULL || (rq->expire_ev = evtimer_new(base, expire_cb, rq)) == NULL) {
		log_error("cannot set up the request timeouts");
		requests_free(rq);
		return NULL;
	}
	rq->expire_every = (struct timeval){ .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };
	rq->d = *deps;
	rq->started_ms = clock_now_us() / 1000;
	return rq;
}

void requests_start(struct requests *rq, struct server *srv, uid_t daemon_uid)
{
	rq->srv = srv;
	rq->daemon_uid = daemon_uid;
}

void requests_free(struct requests *rq)
{
	if (rq == NULL)
		return;
	if (rq->expire_ev != NULL)
		event_free(rq->expire_ev);
	free(rq);
}
