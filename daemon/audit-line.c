/* SPDX-License-Identifier: ISC */
/* Compact JSON of an audit record (audit-line.h). */
#include "audit-line.h"

#include <string.h>

#include "hex.h"

struct out {
	char *p;
	size_t len, cap;
	int full;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->full || o->cap - o->len < n) {
		o->full = 1;
		return;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
}

/*
 * How jansson writes each byte of a string: 0 as it is (printable ASCII other than '"' and '\\',
 * and the bytes of UTF-8 sequences, checked when the entry was made), a character for the
 * two-character escapes, 'u' for \u00XX (the other control characters).
 */
static const char escape[256] = {
	['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n', ['\f'] = 'f', ['\r'] = 'r',
	[0x00] = 'u', [0x01] = 'u', [0x02] = 'u', [0x03] = 'u', [0x04] = 'u', [0x05] = 'u',
	[0x06] = 'u', [0x07] = 'u', [0x0b] = 'u', [0x0e] = 'u', [0x0f] = 'u', [0x10] = 'u',
	[0x11] = 'u', [0x12] = 'u', [0x13] = 'u', [0x14] = 'u', [0x15] = 'u', [0x16] = 'u',
	[0x17] = 'u', [0x18] = 'u', [0x19] = 'u', [0x1a] = 'u', [0x1b] = 'u', [0x1c] = 'u',
	[0x1d] = 'u', [0x1e] = 'u', [0x1f] = 'u', ['"'] = '"', ['\\'] = '\\',
};

/* A string (NUL-terminated) with JSON's escapes, as jansson writes them; runs of bytes that need
 * none, the common case, are copied whole. */
static void put_string(struct out *o, const char *s)
{
	static const char upper[] = "0123456789ABCDEF";
	const unsigned char *p = (const unsigned char *)s;

	put(o, "\"", 1);
	for (;;) {
		const unsigned char *run = p;
		char esc[6] = { '\\', 0, '0', '0', 0, 0 };

		while (*p != '\0' && escape[*p] == 0)
			p++;
		put(o, (const char *)run, (size_t)(p - run));
		if (*p == '\0')
			break;
		esc[1] = escape[*p];
		esc[4] = upper[*p >> 4];
		esc[5] = upper[*p & 0xf];
		put(o, esc, esc[1] == 'u' ? 6 : 2);
		p++;
	}
	put(o, "\"", 1);
}

static void put_integer(struct out *o, int64_t v)
{
	char digits[24], *d = digits + sizeof(digits);
	uint64_t u = v < 0 ? 0ULL - (uint64_t)v : (uint64_t)v;

	do
		*--d = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		*--d = '-';
	put(o, d, (size_t)(digits + sizeof(digits) - d));
}

/* n bytes (a point's at most) as a string of lowercase hex. */
static void put_hex(struct out *o, const uint8_t *bytes, size_t n)
{
	char text[2 * P256_POINT_LEN + 1];

	if (n > P256_POINT_LEN) {
		o->full = 1;
		return;
	}
	hex_encode(bytes, n, text);
	put(o, "\"", 1);
	put(o, text, 2 * n);
	put(o, "\"", 1);
}

/* ",\"name\":" (name ASCII, ours: nothing to escape); first: "{\"name\":". */
static void put_name(struct out *o, const char *name, int first)
{
	put(o, first ? "{\"" : ",\"", 2);
	put(o, name, strlen(name));
	put(o, "\":", 2);
}

static void put_string_member(struct out *o, const char *name, const char *value, int first)
{
	put_name(o, name, first);
	put_string(o, value);
}

static void put_integer_member(struct out *o, const char *name, int64_t value, int first)
{
	put_name(o, name, first);
	put_integer(o, value);
}

static void put_hex_member(struct out *o, const char *name, const uint8_t *bytes, size_t n,
	int first)
{
	put_name(o, name, first);
	put_hex(o, bytes, n);
}

const char *audit_type_name(enum audit_type type)
{
	switch (type) {
	case AUDIT_OPEN:
		return "open";
	case AUDIT_REQUEST:
		return "request";
	case AUDIT_CHECKPOINT:
		return "checkpoint";
	}
	return NULL;
}

static void put_subject(struct out *o, const struct audit_subject *s)
{
	int tls13 = s->kind == AUDIT_SUBJECT_TLS13;

	if (s->kind == AUDIT_SUBJECT_NONE)
		return;
	if (s->len > sizeof(s->hash)) {
		o->full = 1;
		return;
	}
	switch (s->kind) {
	case AUDIT_SUBJECT_DIGEST:
		put_hex_member(o, "digest", s->hash, s->len, 0);
		return;
	case AUDIT_SUBJECT_MESSAGE:
		put_hex_member(o, "message_sha256", s->hash, s->len, 0);
		return;
	case AUDIT_SUBJECT_TLS13:
	case AUDIT_SUBJECT_TLS12:
		put_name(o, "tls", 0);
		put_string_member(o, "kind", tls13 ? "tls13" : "tls12", 1);
		put_string_member(o, "side", s->tls_client ? "client" : "server", 0);
		put_hex_member(o, tls13 ? "transcript_hash" : "content_sha256", s->hash, s->len, 0);
		put(o, "}", 1);
		return;
	default:
		o->full = 1;	/* no record holds another */
	}
}

static void put_request(struct out *o, const struct audit_request_entry *q)
{
	put_integer_member(o, "conn", (int64_t)q->conn, 0);
	put_integer_member(o, "id", q->id, 0);
	put_name(o, "peer", 0);
	put_integer_member(o, "pid", q->pid, 1);
	put_integer_member(o, "uid", q->uid, 0);
	put_integer_member(o, "gid", q->gid, 0);
	if (q->comm[0] != '\0')
		put_string_member(o, "comm", q->comm, 0);
	if (q->unit[0] != '\0')
		put_string_member(o, "unit", q->unit, 0);
	put(o, "}", 1);
	put_string_member(o, "op", q->op, 0);
	if (q->key[0] != '\0')
		put_string_member(o, "key", q->key, 0);
	if (q->has_key_id)
		put_hex_member(o, "key_id", q->key_id, sizeof(q->key_id), 0);
	put_subject(o, &q->subject);
	put_string_member(o, "result", q->error == 0 ? "ok" : proto_error_tag(q->error), 0);
	if (q->has_sig)
		put_hex_member(o, "sig_sha256", q->sig_sha256, sizeof(q->sig_sha256), 0);
	put_integer_member(o, "us", (int64_t)q->us, 0);
}

static void put_checkpoint(struct out *o, const struct audit_checkpoint_entry *c)
{
	put_string_member(o, "reason", c->reason, 0);
	put_integer_member(o, "covers_seq", (int64_t)c->covers_seq, 0);
	put_hex_member(o, "covers_hash", c->covers_hash, sizeof(c->covers_hash), 0);
	put_hex_member(o, "key_id", c->key_id, sizeof(c->key_id), 0);
	put_hex_member(o, "sig", c->sig, sizeof(c->sig), 0);
}

static void put_open(struct out *o, const struct audit_open_entry *op)
{
	put_string_member(o, "reason", op->reason, 0);
	put_integer_member(o, "pid", op->pid, 0);
	if (op->key == NULL)
		return;
	put_name(o, "audit_key", 0);
	put_string_member(o, "name", op->key->name, 1);
	put_string_member(o, "key_id", op->key->id_hex, 0);
	put_hex_member(o, "public", op->key->point, sizeof(op->key->point), 0);
	put(o, "}", 1);
}

size_t audit_line(const struct audit_entry *e, uint64_t seq, const uint8_t prev[32], char *out,
	size_t cap)
{
	struct out o = { .p = out, .cap = cap };
	const char *type = audit_type_name(e->type);

	if (type == NULL)
		return 0;
	put_integer_member(&o, "v", 1, 1);
	put_string_member(&o, "type", type, 0);
	put_integer_member(&o, "seq", (int64_t)seq, 0);
	put_name(&o, "time", 0);
	put(&o, "\"", 1);
	put(&o, e->time, sizeof(e->time));
	put(&o, "\"", 1);
	put_hex_member(&o, "prev", prev, 32, 0);
	if (e->type == AUDIT_REQUEST)
		put_request(&o, &e->u.req);
	else if (e->type == AUDIT_CHECKPOINT)
		put_checkpoint(&o, &e->u.cp);
	else
		put_open(&o, &e->u.open);
	put(&o, "}", 1);
	return o.full ? 0 : o.len;
}
