/* SPDX-License-Identifier: ISC */
/* The members of audit records (audit-record.h). */
#include "audit-record.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "hex.h"
#include "proto.h"

/*
 * Every record is hashed twice or three times and built member by member, for every request:
 * SHA-256 is fetched from OpenSSL once (not on every call), and members and values that are
 * ASCII by construction (our names, hex, the time) skip jansson's UTF-8 checks.
 */
int audit_sha256(const void *data, size_t n, uint8_t out[32])
{
	static EVP_MD *md;

	if (md == NULL && (md = EVP_MD_fetch(NULL, "SHA2-256", NULL)) == NULL)
		return -1;
	return EVP_Digest(data, n, out, NULL, md, NULL) == 1 ? 0 : -1;
}

/* Sets member name (ASCII, ours) to value, taking the reference. 0 or -1. */
static int set(json_t *obj, const char *name, json_t *value)
{
	return json_object_set_new_nocheck(obj, name, value);
}

/* A string value that is ASCII by construction. */
static json_t *ascii(const char *text)
{
	return json_stringn_nocheck(text, strlen(text));
}

int audit_record_hex(json_t *rec, const char *name, const uint8_t *bytes, size_t n)
{
	char text[2 * 64 + 1];

	if (n > 64)
		return -1;
	hex_encode(bytes, n, text);
	return set(rec, name, json_stringn_nocheck(text, 2 * n));
}

/* "2026-12-01T12:00:00.123456Z": UTC, microseconds. The date and time of day are formatted once
 * a second (one record per request: snprintf and gmtime_r each time cost more than the rest). */
static json_t *time_now(void)
{
	static time_t second = -1;
	static char text[40];
	struct timespec ts;
	struct tm tm;
	long us;

	if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
		return NULL;
	if (ts.tv_sec != second) {
		if (gmtime_r(&ts.tv_sec, &tm) == NULL || strftime(text, sizeof(text),
			"%Y-%m-%dT%H:%M:%S.000000Z", &tm) != 27)
			return NULL;
		second = ts.tv_sec;
	}
	us = ts.tv_nsec / 1000;
	for (int i = 25; i >= 20; i--, us /= 10)
		text[i] = (char)('0' + us % 10);
	return json_stringn_nocheck(text, 27);
}

json_t *audit_record_new(const char *type)
{
	json_t *rec = json_object();

	if (rec == NULL)
		return NULL;
	if (set(rec, "v", json_integer(1)) != 0 ||
	    set(rec, "type", ascii(type)) != 0 ||
	    set(rec, "seq", json_integer(0)) != 0 ||
	    set(rec, "time", time_now()) != 0 ||
	    set(rec, "prev", json_null()) != 0) {
		json_decref(rec);
		return NULL;
	}
	return rec;
}

int audit_record_chain(json_t *rec, uint64_t seq, const uint8_t prev[32])
{
	if (set(rec, "seq", json_integer((json_int_t)seq)) != 0)
		return -1;
	return audit_record_hex(rec, "prev", prev, 32);
}

/* peer: pid, uid, gid, and comm and unit where known (filled at accept). */
static json_t *peer_json(const struct audit_request *r)
{
	json_t *p = json_object();

	if (p == NULL || set(p, "pid", json_integer((json_int_t)r->peer->pid)) != 0 ||
	    set(p, "uid", json_integer((json_int_t)r->peer->uid)) != 0 ||
	    set(p, "gid", json_integer((json_int_t)r->peer->gid)) != 0 ||
	    (r->comm != NULL && set(p, "comm", json_string(r->comm)) != 0) ||
	    (r->unit != NULL && set(p, "unit", json_string(r->unit)) != 0)) {
		json_decref(p);
		return NULL;
	}
	return p;
}

static int add_subject(json_t *rec, const struct audit_subject *s)
{
	json_t *tls;

	switch (s->kind) {
	case AUDIT_SUBJECT_DIGEST:
		return audit_record_hex(rec, "digest", s->hash, s->len);
	case AUDIT_SUBJECT_MESSAGE:
		return audit_record_hex(rec, "message_sha256", s->hash, s->len);
	case AUDIT_SUBJECT_TLS13:
	case AUDIT_SUBJECT_TLS12:
		tls = json_pack("{s:s, s:s}", "kind", s->kind == AUDIT_SUBJECT_TLS13 ? "tls13" :
		    "tls12", "side", s->tls_client ? "client" : "server");
		if (tls == NULL || audit_record_hex(tls, s->kind == AUDIT_SUBJECT_TLS13 ?
			"transcript_hash" : "content_sha256", s->hash, s->len) != 0) {
			json_decref(tls);
			return -1;
		}
		return set(rec, "tls", tls);
	default:
		return 0;
	}
}

int audit_record_request(json_t *rec, const struct audit_request *r)
{
	uint8_t sig_hash[32];

	if (set(rec, "conn", json_integer((json_int_t)r->conn)) != 0 ||
	    set(rec, "id", json_integer((json_int_t)r->id)) != 0 ||
	    set(rec, "peer", peer_json(r)) != 0 ||
	    set(rec, "op", ascii(r->op)) != 0 ||
	    (r->key != NULL && set(rec, "key", ascii(r->key)) != 0) ||
	    (r->key_id != NULL && audit_record_hex(rec, "key_id", r->key_id, 32) != 0) ||
	    (r->subject != NULL && add_subject(rec, r->subject) != 0) ||
	    set(rec, "result",
		ascii(r->error == 0 ? "ok" : proto_error_tag(r->error))) != 0)
		return -1;
	if (r->sig != NULL && (audit_sha256(r->sig, r->sig_len, sig_hash) != 0 ||
		audit_record_hex(rec, "sig_sha256", sig_hash, sizeof(sig_hash)) != 0))
		return -1;
	return set(rec, "us", json_integer((json_int_t)r->us));
}
