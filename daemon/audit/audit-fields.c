/* SPDX-License-Identifier: ISC */
/* A record's members from its batch entry (audit-fields.h). */
#include "audit-fields.h"

#include <stdlib.h>
#include <string.h>

#include "audit-drops.h"
#include "hex.h"

/* A buffer's first size: room for a batch of a few hundred records. */
#define BUF_START 65536

int audit_grow(char **buf, size_t *cap, size_t fill)
{
	size_t want = *cap ? 2 * *cap : BUF_START;
	char *b;

	if (*cap - fill > AUDIT_RECORD_MAX)
		return 0;
	while (want - fill <= AUDIT_RECORD_MAX)
		want *= 2;
	if ((b = realloc(*buf, want)) == NULL)
		return -1;
	*buf = b;
	*cap = want;
	return 0;
}

static void text(struct audit_sink *s, const char *name, const char *value)
{
	s->member(s, name, AUDIT_VALUE_TEXT, value, strlen(value));
}

char *audit_decimal(uint64_t u, char *end)
{
	do
		*--end = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	return end;
}

static void integer(struct audit_sink *s, const char *name, int64_t v)
{
	char digits[AUDIT_DIGITS_MAX], *end = digits + sizeof(digits);
	char *d = audit_decimal(v < 0 ? 0ULL - (uint64_t)v : (uint64_t)v, end);

	if (v < 0)
		*--d = '-';
	s->member(s, name, AUDIT_VALUE_NUMBER, d, (size_t)(end - d));
}

/* n bytes (a point's at most) as a string of lowercase hex. */
static void hex(struct audit_sink *s, const char *name, const uint8_t *bytes, size_t n)
{
	char digits[2 * P256_POINT_LEN + 1];

	if (n > P256_POINT_LEN) {
		s->full = 1;
		return;
	}
	hex_encode(bytes, n, digits);
	s->member(s, name, AUDIT_VALUE_PLAIN, digits, 2 * n);
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
	case AUDIT_DROPPED:
		return "dropped";
	}
	return NULL;
}

static void subject(struct audit_sink *s, const struct audit_subject *sub)
{
	int tls13 = sub->kind == AUDIT_SUBJECT_TLS13;

	if (sub->kind == AUDIT_SUBJECT_NONE)
		return;
	if (sub->len > sizeof(sub->hash)) {
		s->full = 1;
		return;
	}
	switch (sub->kind) {
	case AUDIT_SUBJECT_DIGEST:
		hex(s, "digest", sub->hash, sub->len);
		return;
	case AUDIT_SUBJECT_MESSAGE:
		hex(s, "message_sha256", sub->hash, sub->len);
		return;
	case AUDIT_SUBJECT_TLS13:
	case AUDIT_SUBJECT_TLS12:
		s->object(s, "tls");
		text(s, "kind", tls13 ? "tls13" : "tls12");
		text(s, "side", sub->tls_client ? "client" : "server");
		hex(s, tls13 ? "transcript_hash" : "content_sha256", sub->hash, sub->len);
		s->object(s, NULL);
		return;
	default:
		s->full = 1;	/* no record holds another */
	}
}

static void request(struct audit_sink *s, const struct audit_request_entry *q)
{
	integer(s, "conn", (int64_t)q->conn);
	integer(s, "id", q->id);
	s->object(s, "peer");
	integer(s, "pid", q->pid);
	integer(s, "uid", q->uid);
	integer(s, "gid", q->gid);
	if (q->comm[0] != '\0')
		text(s, "comm", q->comm);
	if (q->unit[0] != '\0')
		text(s, "unit", q->unit);
	s->object(s, NULL);
	text(s, "op", q->op);
	if (q->key[0] != '\0')
		text(s, "key", q->key);
	if (q->has_key_id)
		hex(s, "key_id", q->key_id, sizeof(q->key_id));
	subject(s, &q->subject);
	text(s, "result", q->error == 0 ? "ok" : proto_error_tag(q->error));
	if (q->has_sig)
		hex(s, "sig_sha256", q->sig_sha256, sizeof(q->sig_sha256));
	integer(s, "us", (int64_t)q->us);
}

static void checkpoint(struct audit_sink *s, const struct audit_checkpoint_entry *c)
{
	text(s, "reason", c->reason);
	integer(s, "covers_seq", (int64_t)c->covers_seq);
	hex(s, "covers_hash", c->covers_hash, sizeof(c->covers_hash));
	hex(s, "key_id", c->key_id, sizeof(c->key_id));
	hex(s, "sig", c->sig, sizeof(c->sig));
}

static void open_record(struct audit_sink *s, const struct audit_open_entry *op)
{
	text(s, "reason", op->reason);
	integer(s, "pid", op->pid);
	if (op->key == NULL)
		return;
	s->object(s, "audit_key");
	text(s, "name", op->key->name);
	hex(s, "key_id", op->key->id, sizeof(op->key->id));
	hex(s, "public", op->key->point, sizeof(op->key->point));
	s->object(s, NULL);
}

static void dropped(struct audit_sink *s, const struct audit_dropped_entry *d)
{
	char kinds[AUDIT_DROPS_KINDS_MAX];

	audit_drops_kinds(d->drops, kinds);
	integer(s, "records", (int64_t)d->drops->records);
	text(s, "kinds", kinds);
}

int audit_fields(const struct audit_entry *e, uint64_t seq, const uint8_t prev[32],
	struct audit_sink *s)
{
	const char *type = audit_type_name(e->type);

	if (type == NULL) {
		s->full = 1;
		return -1;
	}
	integer(s, "v", 1);
	text(s, "type", type);
	integer(s, "seq", (int64_t)seq);
	s->member(s, "time", AUDIT_VALUE_PLAIN, e->time, sizeof(e->time));
	hex(s, "prev", prev, 32);
	if (e->type == AUDIT_REQUEST)
		request(s, &e->u.req);
	else if (e->type == AUDIT_CHECKPOINT)
		checkpoint(s, &e->u.cp);
	else if (e->type == AUDIT_DROPPED)
		dropped(s, &e->u.dropped);
	else
		open_record(s, &e->u.open);
	return s->full ? -1 : 0;
}
