/* SPDX-License-Identifier: ISC */
/* Compact JSON of an audit record (audit-line.h). */
#include "audit-line.h"

#include <stdio.h>
#include <string.h>

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

/* A string with JSON's escapes, as jansson writes them: the two-character ones where they
 * exist, \u00XX for the other control characters, everything else (valid UTF-8) as it is. */
static void put_string(struct out *o, const char *s, size_t n)
{
	size_t i, run = 0;

	put(o, "\"", 1);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[8];
		const char *e = NULL;

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		put(o, s + run, i - run);
		run = i + 1;
		switch (c) {
		case '"': e = "\\\""; break;
		case '\\': e = "\\\\"; break;
		case '\b': e = "\\b"; break;
		case '\f': e = "\\f"; break;
		case '\n': e = "\\n"; break;
		case '\r': e = "\\r"; break;
		case '\t': e = "\\t"; break;
		default:
			snprintf(esc, sizeof(esc), "\\u%04X", c);
			e = esc;
		}
		put(o, e, strlen(e));
	}
	put(o, s + run, n - run);
	put(o, "\"", 1);
}

static void put_integer(struct out *o, json_int_t v)
{
	char digits[24], *d = digits + sizeof(digits);
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;

	do
		*--d = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		*--d = '-';
	put(o, d, (size_t)(digits + sizeof(digits) - d));
}

static void put_value(struct out *o, const json_t *v, int depth)
{
	const char *key;
	json_t *member;
	int first = 1;

	switch (json_typeof(v)) {
	case JSON_STRING:
		put_string(o, json_string_value(v), json_string_length(v));
		return;
	case JSON_INTEGER:
		put_integer(o, json_integer_value(v));
		return;
	case JSON_OBJECT:
		if (depth > 2)
			break;	/* a record nests one level (docs/audit.md) */
		put(o, "{", 1);
		json_object_foreach((json_t *)v, key, member) {
			if (!first)
				put(o, ",", 1);
			first = 0;
			put_string(o, key, strlen(key));
			put(o, ":", 1);
			put_value(o, member, depth + 1);
		}
		put(o, "}", 1);
		return;
	default:
		break;
	}
	o->full = 1;	/* no other type belongs in a record */
}

size_t audit_line(const json_t *rec, char *out, size_t cap)
{
	struct out o = { .p = out, .cap = cap };

	put_value(&o, rec, 0);
	return o.full ? 0 : o.len;
}
