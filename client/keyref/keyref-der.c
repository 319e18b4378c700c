/* SPDX-License-Identifier: ISC */
/* The key-reference DER (keyref-der.h): parsed through the cursor API, written field by field. */
#include <string.h>

#include "cursor.h"
#include "keyref-der.h"

#define TAG_SEQUENCE 0x30
#define TAG_INTEGER 0x02
#define TAG_UTF8STRING 0x0c
#define TAG_NAME 0x80	/* [0] IMPLICIT, primitive */
#define TAG_ID 0x81	/* [1] IMPLICIT, primitive */

/* Copies a text field of 1..max bytes without NUL into out (max + 1 bytes). */
static int get_text(struct cursor *c, char *out, size_t max)
{
	size_t n = cursor_left(c);

	if (n == 0 || n > max || cursor_copy(c, out, n) != 0 || memchr(out, '\0', n) != NULL)
		return -1;
	out[n] = '\0';
	return 0;
}

int keyref_der_decode(const uint8_t *der, size_t len, struct keyref_der *out)
{
	struct cursor in, seq, field;
	const uint8_t *v;
	size_t n;
	uint8_t tag;

	memset(out, 0, sizeof(*out));
	cursor_init(&in, der, len);
	if (cursor_get_der(&in, TAG_SEQUENCE, &seq) != 0)
		return KEYREF_E_STRUCTURE;
	if (cursor_end(&in) != 0)
		return KEYREF_E_TRAILING;
	if (cursor_get_der_uint(&seq, &v, &n) != 0)
		return KEYREF_E_STRUCTURE;
	if (n != 1 || v[0] != KEYREF_VERSION)
		return KEYREF_E_VERSION;
	if (cursor_peek_u8(&seq, &tag) != 0)
		return KEYREF_E_STRUCTURE;
	if (tag == TAG_NAME) {
		if (cursor_get_der(&seq, TAG_NAME, &field) != 0)
			return KEYREF_E_STRUCTURE;
		if (get_text(&field, out->name, KEYREF_NAME_MAX) != 0)
			return KEYREF_E_NAME;
	} else if (tag == TAG_ID) {
		if (cursor_get_der(&seq, TAG_ID, &field) != 0)
			return KEYREF_E_STRUCTURE;
		if (cursor_left(&field) != sizeof(out->id) ||
		    cursor_copy(&field, out->id, sizeof(out->id)) != 0)
			return KEYREF_E_ID;
		out->by_id = 1;
	} else {
		return KEYREF_E_KEY_TAG;
	}
	if (cursor_get_der(&seq, TAG_UTF8STRING, &field) != 0)
		return KEYREF_E_STRUCTURE;
	if (get_text(&field, out->socket, KEYREF_SOCKET_MAX) != 0)
		return KEYREF_E_SOCKET;
	if (cursor_end(&seq) != 0)
		return KEYREF_E_TRAILING;
	return 0;
}

/* One DER element; every length here is below 256, so one or two length bytes. */
static void put_der(struct builder *b, uint8_t tag, const void *p, size_t n)
{
	builder_put_u8(b, tag);
	if (n >= 0x80)
		builder_put_u8(b, 0x81);
	builder_put_u8(b, (uint8_t)n);
	builder_put_bytes(b, p, n);
}

int keyref_der_encode(const struct keyref_der *in, uint8_t *out, size_t cap, size_t *len)
{
	uint8_t body[KEYREF_DER_MAX];
	const uint8_t version = KEYREF_VERSION;
	size_t name_len = strnlen(in->name, sizeof(in->name));
	size_t socket_len = strnlen(in->socket, sizeof(in->socket));
	struct builder b;
	size_t body_len;

	if (socket_len == 0 || socket_len > KEYREF_SOCKET_MAX)
		return KEYREF_E_SOCKET;
	if (!in->by_id && (name_len == 0 || name_len > KEYREF_NAME_MAX))
		return KEYREF_E_NAME;
	builder_init(&b, body, sizeof(body));
	put_der(&b, TAG_INTEGER, &version, 1);
	if (in->by_id)
		put_der(&b, TAG_ID, in->id, sizeof(in->id));
	else
		put_der(&b, TAG_NAME, in->name, name_len);
	put_der(&b, TAG_UTF8STRING, in->socket, socket_len);
	if (builder_finish(&b, &body_len) != 0)
		return KEYREF_E_BUFFER;
	builder_init(&b, out, cap);
	put_der(&b, TAG_SEQUENCE, body, body_len);
	return builder_finish(&b, len) == 0 ? 0 : KEYREF_E_BUFFER;
}

const char *keyref_der_strerror(int err)
{
	switch (err) {
	case 0:
		return "success";
	case KEYREF_E_STRUCTURE:
		return "not a key reference (malformed DER)";
	case KEYREF_E_VERSION:
		return "unsupported key reference version";
	case KEYREF_E_KEY_TAG:
		return "the key is neither a name nor an id";
	case KEYREF_E_NAME:
		return "key name empty, over 64 bytes or with a NUL";
	case KEYREF_E_ID:
		return "key id is not 32 bytes";
	case KEYREF_E_SOCKET:
		return "socket path empty, over 107 bytes or with a NUL";
	case KEYREF_E_TRAILING:
		return "bytes after the key reference";
	case KEYREF_E_BUFFER:
		return "key reference does not fit";
	default:
		return "unknown key reference error";
	}
}
