/* SPDX-License-Identifier: ISC */
/*
 * Unit test of the audit record's line (daemon/audit/audit-line.c) against jansson's own
 * json_dumps(JSON_PRESERVE_ORDER | JSON_COMPACT) of an object built here, independently, from the
 * same values in the order of docs/audit.md: the same bytes for a request record whose comm and
 * unit need every kind of escape and hold UTF-8, a TLS request, a request with no key or
 * signature, a checkpoint, an open record with its audit key and a dropped record (its kinds in
 * their order, and summed as other past the member's length). A line that does not fit, and
 * comm or unit that is no UTF-8, are refused.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "sha256.h"
#include "testutil.h"
#include "audit-drops.h"
#include "audit-line.h"
#include "audit-record.h"
#include "hex.h"

static const uint8_t prev[32] = { 0xff, 0x01 };
static struct audit_drops drops;
static char kinds[AUDIT_DROPS_KINDS_MAX];

/* A request record of op and error counted dropped. */
static void count_drop(const char *op, uint16_t error)
{
	struct audit_request_entry q = { .op = op, .error = error };

	audit_drops_count(&drops, &q);
}

/* The sum of the counts of a kinds member (each entry ends with its count). */
static uint64_t kinds_sum(const char *k)
{
	uint64_t sum = 0;

	for (const char *p = k; p != NULL; p = strstr(p, ", ")) {
		const char *space = NULL;

		p += p == k ? 0 : 2;
		for (const char *c = p; *c != '\0' && strncmp(c, ", ", 2) != 0; c++)
			if (*c == ' ')
				space = c;
		if (space == NULL)
			return 0;
		sum += strtoull(space + 1, NULL, 10);
	}
	return sum;
}

/* Adds member name holding n bytes as hex. */
static void set_hex(json_t *obj, const char *name, const uint8_t *bytes, size_t n)
{
	char text[2 * P256_POINT_LEN + 1];

	hex_encode(bytes, n, text);
	CHECK(json_object_set_new(obj, name, json_string(text)) == 0);
}

/* The chain's members, as every record starts. */
static json_t *chain_members(const char *type, uint64_t seq, const struct audit_entry *e)
{
	char time[AUDIT_TIME_LEN + 1];
	json_t *rec;

	memcpy(time, e->time, AUDIT_TIME_LEN);
	time[AUDIT_TIME_LEN] = '\0';
	rec = json_pack("{s:i, s:s, s:I, s:s}", "v", 1, "type", type, "seq", (json_int_t)seq,
	    "time", time);
	CHECK(rec != NULL);
	set_hex(rec, "prev", prev, sizeof(prev));
	return rec;
}

/* audit_line gives exactly json_dumps's bytes for want. */
static void same_as_jansson(const char *name, const struct audit_entry *e, uint64_t seq,
	json_t *want)
{
	char line[4096];
	char *text = json_dumps(want, JSON_PRESERVE_ORDER | JSON_COMPACT);
	size_t len = audit_line(e, seq, prev, line, sizeof(line));

	test_case = name;
	CHECK(text != NULL);
	if (text != NULL) {
		CHECK_INT(len, strlen(text));
		CHECK(len == strlen(text) && memcmp(line, text, len) == 0);
	}
	free(text);
	json_decref(want);
}

/* The record a request with peer, key, a digest subject and a signature should be. */
static json_t *request_json(const struct audit_entry *e, const struct audit_request *r,
	uint64_t seq)
{
	json_t *rec = chain_members("request", seq, e);
	json_t *peer = json_pack("{s:I, s:I, s:I}", "pid", (json_int_t)r->peer->pid,
	    "uid", (json_int_t)r->peer->uid, "gid", (json_int_t)r->peer->gid);

	CHECK(peer != NULL);
	if (r->comm != NULL)
		CHECK(json_object_set_new(peer, "comm", json_string(r->comm)) == 0);
	if (r->unit != NULL)
		CHECK(json_object_set_new(peer, "unit", json_string(r->unit)) == 0);
	CHECK(json_object_set_new(rec, "conn", json_integer((json_int_t)r->conn)) == 0);
	CHECK(json_object_set_new(rec, "id", json_integer((json_int_t)r->id)) == 0);
	CHECK(json_object_set_new(rec, "peer", peer) == 0);
	CHECK(json_object_set_new(rec, "op", json_string(r->op)) == 0);
	if (r->key != NULL) {
		CHECK(json_object_set_new(rec, "key", json_string(r->key)) == 0);
		set_hex(rec, "key_id", r->key_id, 32);
	}
	return rec;
}

/* The members after the subject. */
static void request_tail(json_t *rec, const struct audit_request *r)
{
	uint8_t sig_hash[32];

	CHECK(json_object_set_new(rec, "result", json_string(r->error == 0 ? "ok" :
	    proto_error_tag(r->error))) == 0);
	if (r->sig != NULL) {
		CHECK(sha256(r->sig, r->sig_len, sig_hash) == 0);
		set_hex(rec, "sig_sha256", sig_hash, sizeof(sig_hash));
	}
	CHECK(json_object_set_new(rec, "us", json_integer((json_int_t)r->us)) == 0);
}

int main(void)
{
	const struct ucred peer = { .pid = 4242, .uid = 4294967294u, .gid = 1000 };
	const uint8_t id[32] = { 0x5a, 0x7a }, sig[64] = { 1, 2, 3 };
	struct audit_subject digest = { .kind = AUDIT_SUBJECT_DIGEST, .len = 32, .hash = { 9 } };
	struct audit_subject tls = { .kind = AUDIT_SUBJECT_TLS13, .len = 48, .hash = { 7 } };
	struct audit_request r = { .peer = &peer,
		.comm = "n \"\\\t\n\r\b\f\x01\x1f\x7f",
		.unit = "caf\xc3\xa9-\xe2\x82\xac-\xf0\x9f\x94\x91 \"w\\\x0b\x1b.service", .conn = 17,
		.id = 4294967295u, .op = "sign", .key = "web", .key_id = id, .subject = &digest,
		.sig = sig, .sig_len = 64, .us = 57 };
	struct audit_key key = { .name = "audit", .id = { 0x3c, [31] = 0xc3 } };
	char id_hex[2 * sizeof(key.id) + 1];
	struct audit_entry e;
	json_t *want, *inner;
	char small[64];

	/* A request with every escape and UTF-8 of 2, 3 and 4 bytes. The entry holds garbage
	 * before each record, as a batch's reused array does. */
	memset(&e, 0xa5, sizeof(e));
	CHECK(audit_record_request(&e, &r) == 0);
	want = request_json(&e, &r, 1);
	set_hex(want, "digest", digest.hash, digest.len);
	request_tail(want, &r);
	same_as_jansson("request record, escapes and UTF-8", &e, 1, want);
	test_case = "refusals";
	CHECK_INT(audit_line(&e, 1, prev, small, sizeof(small)), 0);

	/* SIGN_TLS 1.3, client side, refused: no signature. */
	r.subject = &tls;
	tls.tls_client = 1;
	r.error = PROTO_E_DENIED;
	r.sig = NULL;
	CHECK(audit_record_request(&e, &r) == 0);
	want = request_json(&e, &r, 12345678901234ULL);
	inner = json_pack("{s:s, s:s}", "kind", "tls13", "side", "client");
	CHECK(inner != NULL);
	set_hex(inner, "transcript_hash", tls.hash, tls.len);
	CHECK(json_object_set_new(want, "tls", inner) == 0);
	request_tail(want, &r);
	same_as_jansson("TLS request record", &e, 12345678901234ULL, want);

	/* A frame that was no request: no comm, unit, key or subject. */
	r = (struct audit_request){ .peer = &peer, .op = "frame", .error = PROTO_E_BAD_FRAME,
		.conn = 3, .us = 0 };
	memset(&e, 0xa5, sizeof(e));
	CHECK(audit_record_request(&e, &r) == 0);
	want = request_json(&e, &r, 2);
	request_tail(want, &r);
	same_as_jansson("frame record", &e, 2, want);

	/* comm or unit that is no UTF-8 (overlong, a surrogate, a cut sequence) is refused. */
	test_case = "no UTF-8";
	r.comm = "bad\xc0\xaf";
	CHECK(audit_record_request(&e, &r) != 0);
	r.comm = "bad\xed\xa0\x80";
	CHECK(audit_record_request(&e, &r) != 0);
	r.comm = NULL;
	r.unit = "cut\xe2\x82";
	CHECK(audit_record_request(&e, &r) != 0);

	/* A checkpoint. */
	CHECK(audit_record_new(&e, AUDIT_CHECKPOINT) == 0);
	e.u.cp = (struct audit_checkpoint_entry){ .reason = "count", .covers_seq = 99,
		.covers_hash = { 0xab }, .key_id = { 0xcd }, .sig = { 0xef, [63] = 0x10 } };
	want = chain_members("checkpoint", 100, &e);
	CHECK(json_object_set_new(want, "reason", json_string("count")) == 0);
	CHECK(json_object_set_new(want, "covers_seq", json_integer(99)) == 0);
	set_hex(want, "covers_hash", e.u.cp.covers_hash, 32);
	set_hex(want, "key_id", e.u.cp.key_id, 32);
	set_hex(want, "sig", e.u.cp.sig, 64);
	same_as_jansson("checkpoint record", &e, 100, want);

	/* An open record with its audit key. */
	key.point[0] = 4;
	key.point[64] = 0x77;
	hex_encode(key.id, sizeof(key.id), id_hex);
	CHECK(audit_record_new(&e, AUDIT_OPEN) == 0);
	e.u.open = (struct audit_open_entry){ .reason = "start", .pid = 31337, .key = &key };
	want = chain_members("open", 1, &e);
	CHECK(json_object_set_new(want, "reason", json_string("start")) == 0);
	CHECK(json_object_set_new(want, "pid", json_integer(31337)) == 0);
	inner = json_pack("{s:s, s:s}", "name", "audit", "key_id", id_hex);
	CHECK(inner != NULL);
	set_hex(inner, "public", key.point, sizeof(key.point));
	CHECK(json_object_set_new(want, "audit_key", inner) == 0);
	same_as_jansson("open record", &e, 1, want);

	/* A dropped record: its kinds in the format's order, ok first, an op not named as other. */
	test_case = "dropped";
	CHECK(audit_record_new(&e, AUDIT_DROPPED) == 0);
	e.u.dropped.drops = &drops;
	for (int i = 0; i < 3; i++) {
		count_drop("sign", PROTO_E_AUDIT_UNAVAILABLE);
		count_drop("ping", 0);
	}
	count_drop("sign", 0);
	count_drop("frame", PROTO_E_BAD_FRAME);
	count_drop("nonsense", 0);
	want = chain_members("dropped", 7, &e);
	CHECK(json_object_set_new(want, "records", json_integer(9)) == 0);
	CHECK(json_object_set_new(want, "kinds", json_string("ping ok 3, sign ok 1, "
	    "sign audit-unavailable 3, frame bad-frame 1, other 1")) == 0);
	same_as_jansson("dropped record", &e, 7, want);

	/* Every kind at once, with counts of 20 digits: what does not fit is summed as other. */
	test_case = "dropped, every kind";
	memset(&drops, 0, sizeof(drops));
	for (size_t op = 0; op < AUDIT_DROPS_OPS; op++)
		for (size_t code = 0; code <= PROTO_E_MAX; code++)
			drops.by[op][code] = 10000000000000000000ULL / 256;
	drops.records = AUDIT_DROPS_OPS * (PROTO_E_MAX + 1) * (10000000000000000000ULL / 256);
	audit_drops_kinds(&drops, kinds);
	CHECK(strlen(kinds) < AUDIT_DROPS_KINDS_MAX);
	CHECK(strncmp(kinds, "ping ok ", 8) == 0);
	CHECK(strstr(kinds, ", other ") != NULL);
	CHECK_INT(kinds_sum(kinds), drops.records);
	return test_done("audit-line");
}
