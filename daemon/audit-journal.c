/* SPDX-License-Identifier: ISC */
/* Audit records to the journal, one structured entry each (audit-journal.h). */
#include "audit-journal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>

#define FIELDS_MAX 40		/* a record has fewer members, nested ones counted (docs/audit.md) */
#define FIELD_MAX 160		/* "P256SIGN_MEMBER=" and a value: the longest is 64 hex digits */

struct fields {
	struct iovec iov[FIELDS_MAX];
	char text[FIELDS_MAX][FIELD_MAX];
	size_t n;
};

/* Appends NAME=value; -E2BIG when the record has more fields or longer values than fit. */
static int add(struct fields *f, const char *prefix, const char *key, const json_t *value)
{
	char *t;
	size_t len;
	int n;

	if (f->n == FIELDS_MAX)
		return -E2BIG;
	t = f->text[f->n];
	n = snprintf(t, FIELD_MAX, "%s_%s=", prefix, key);
	if (n < 0 || n >= FIELD_MAX)
		return -E2BIG;
	for (char *c = t; *c != '='; c++)
		*c = *c == '-' ? '_' : (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
	len = (size_t)n;
	if (json_is_string(value))
		n = snprintf(t + len, FIELD_MAX - len, "%s", json_string_value(value));
	else if (json_is_integer(value))
		n = snprintf(t + len, FIELD_MAX - len, "%" JSON_INTEGER_FORMAT,
			json_integer_value(value));
	else
		return -EINVAL;
	if (n < 0 || (size_t)n >= FIELD_MAX - len)
		return -E2BIG;
	f->iov[f->n++] = (struct iovec){ .iov_base = t, .iov_len = len + (size_t)n };
	return 0;
}

/* Adds the members of obj under prefix, one level of nesting deep (the format has no more). */
static int add_object(struct fields *f, const char *prefix, const json_t *obj, int depth)
{
	const char *key;
	json_t *value;
	char inner[FIELD_MAX];
	int r = 0;

	json_object_foreach((json_t *)obj, key, value) {
		if (json_is_object(value) && depth == 0) {
			if (snprintf(inner, sizeof(inner), "%s_%s", prefix, key) >= (int)sizeof(inner))
				return -E2BIG;
			r = add_object(f, inner, value, 1);
		} else {
			r = add(f, prefix, key, value);
		}
		if (r != 0)
			return r;
	}
	return 0;
}

int audit_journal_send(const json_t *record, const char *message)
{
	static struct fields f;	/* 6 KiB: kept off the stack, the parent is one thread */
	static char msg[FIELD_MAX + 64];
	int r, n;

	f.n = 0;
	r = add_object(&f, "P256SIGN", record, 0);
	if (r != 0)
		return r;
	if (f.n + 3 > FIELDS_MAX)
		return -E2BIG;
	n = snprintf(msg, sizeof(msg), "MESSAGE=%s", message);
	if (n < 0)
		return -EINVAL;
	f.iov[f.n++] = (struct iovec){ .iov_base = msg,
		.iov_len = (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1 };
	f.iov[f.n++] = (struct iovec){ .iov_base = "PRIORITY=6", .iov_len = 10 };
	f.iov[f.n++] = (struct iovec){ .iov_base = "SYSLOG_IDENTIFIER=p256signd", .iov_len = 27 };
	return sd_journal_sendv(f.iov, (int)f.n);
}
