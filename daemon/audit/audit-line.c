/* SPDX-License-Identifier: ISC */
/* Compact JSON of an audit record (audit-line.h): the JSON sink of the fields walk. */
#include "audit-line.h"

#include <string.h>

#include "audit-fields.h"

struct out {
	struct audit_sink sink;	/* first: a sink is its out */
	int first;		/* no member yet in the open object */
};

static void put(struct out *o, const char *s, size_t n)
{
	audit_put(&o->sink, s, n);
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

/* "\"name\":" after a comma unless it is the object's first member (name: ours, no escapes). */
static void put_name(struct out *o, const char *name)
{
	put(o, o->first ? "\"" : ",\"", o->first ? 1 : 2);
	put(o, name, strlen(name));
	put(o, "\":", 2);
	o->first = 0;
}

static void line_member(struct audit_sink *s, const char *name, enum audit_value kind,
	const char *value, size_t len)
{
	struct out *o = (struct out *)s;

	put_name(o, name);
	if (kind == AUDIT_VALUE_TEXT) {
		put_string(o, value);
		return;
	}
	if (kind == AUDIT_VALUE_PLAIN)
		put(o, "\"", 1);
	put(o, value, len);
	if (kind == AUDIT_VALUE_PLAIN)
		put(o, "\"", 1);
}

static void line_object(struct audit_sink *s, const char *name)
{
	struct out *o = (struct out *)s;

	if (name == NULL) {
		put(o, "}", 1);
		return;
	}
	put_name(o, name);
	put(o, "{", 1);
	o->first = 1;
}

size_t audit_line(const struct audit_entry *e, uint64_t seq, const uint8_t prev[32], char *out,
	size_t cap)
{
	struct out o = { .sink = { .member = line_member, .object = line_object, .p = out,
		.cap = cap }, .first = 1 };

	put(&o, "{", 1);
	if (audit_fields(e, seq, prev, &o.sink) != 0)
		return 0;
	put(&o, "}", 1);
	return o.sink.full ? 0 : o.sink.len;
}
