/* SPDX-License-Identifier: ISC */
/*
 * Audit records as batch entries (audit-record.h). A record is made for every request: SHA-256
 * comes with its algorithm fetched once (sha256.h), the time string by arithmetic
 * (audit-time.h), and the rest is copies into the entry.
 */
#include "audit-record.h"

#include <string.h>

#include "audit-time.h"
#include "sha256.h"

int audit_record_new(struct audit_entry *e, enum audit_type type)
{
	e->type = (uint8_t)type;
	return audit_time_now(e->time);
}

/* 1 when s is UTF-8 as jansson accepts it (no overlong form, surrogate or code point past
 * U+10FFFF): a string it would refuse cannot be a member. */
static int utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p != '\0') {
		unsigned c = *p++, n, v;

		if (c < 0x80)
			continue;
		if (c >= 0xc2 && c <= 0xdf)
			n = 1, v = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2, v = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3, v = c & 0x07;
		else
			return 0;
		for (unsigned i = 0; i < n; i++, p++) {
			if ((*p & 0xc0) != 0x80)
				return 0;	/* the NUL too */
			v = (v << 6) | (*p & 0x3f);
		}
		if ((n == 2 && v < 0x800) || (n == 3 && v < 0x10000) || v > 0x10ffff ||
		    (v >= 0xd800 && v <= 0xdfff))
			return 0;
	}
	return 1;
}

/* Copies s (NULL: absent, "") into out (cap bytes). 0, or -1 when it is too long or no UTF-8. */
static int copy_text(char *out, size_t cap, const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;

	if (n >= cap || (n > 0 && !utf8_valid(s)))
		return -1;
	memcpy(out, n > 0 ? s : "", n + 1);
	return 0;
}

int audit_record_request(struct audit_entry *e, const struct audit_request *r)
{
	struct audit_request_entry *q = &e->u.req;

	if (audit_record_new(e, AUDIT_REQUEST) != 0)
		return -1;
	q->conn = r->conn;
	q->id = r->id;
	q->pid = r->peer->pid;
	q->uid = r->peer->uid;
	q->gid = r->peer->gid;
	q->op = r->op;
	q->error = r->error;
	q->us = r->us;
	if (copy_text(q->comm, sizeof(q->comm), r->comm) != 0 ||
	    copy_text(q->unit, sizeof(q->unit), r->unit) != 0 ||
	    copy_text(q->key, sizeof(q->key), r->key) != 0)
		return -1;
	q->has_key_id = r->key_id != NULL;
	if (q->has_key_id)
		memcpy(q->key_id, r->key_id, sizeof(q->key_id));
	if (r->subject != NULL)
		q->subject = *r->subject;
	else
		q->subject.kind = AUDIT_SUBJECT_NONE;
	q->has_sig = r->sig != NULL;
	return q->has_sig ? sha256(r->sig, r->sig_len, q->sig_sha256) : 0;
}
