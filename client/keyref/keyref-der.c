/* SPDX-License-Identifier: ISC */
/*
 * The key-reference DER (p256sign.h, docs/tls.md): parsed through the cursor API, written field
 * by field.
 *
 * Where the format lives: a file format of the client side alone (p256signctl export-key-ref
 * writes it, the OpenSSL provider reads it, the daemon never sees it), so not proto/, which is
 * the wire between daemon and clients; a static library of its own (client/keyref/), linked
 * whole into libp256sign, which exports it as p256sign_keyref_*. Every program, p256signctl and
 * the provider included, reaches it through that API; only its tests and fuzz harness link the
 * static library itself.
 */
#include <string.h>

#include "cursor.h"
#include "p256sign.h"

#define KEYREF_VERSION 1
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

int p256sign_keyref_decode(const uint8_t *der, size_t len, struct p256sign_keyref *out)
{
	struct cursor in, seq, field;
	const uint8_t *v;
	size_t n;
	uint8_t tag;

	memset(out, 0, sizeof(*out));
	cursor_init(&in, der, len);
	if (cursor_get_der(&in, TAG_SEQUENCE, &seq) != 0)
		return P256SIGN_E_KEYREF_STRUCTURE;
	if (cursor_end(&in) != 0)
		return P256SIGN_E_KEYREF_TRAILING;
	if (cursor_get_der_uint(&seq, &v, &n) != 0)
		return P256SIGN_E_KEYREF_STRUCTURE;
	if (n != 1 || v[0] != KEYREF_VERSION)
		return P256SIGN_E_KEYREF_VERSION;
	if (cursor_peek_u8(&seq, &tag) != 0)
		return P256SIGN_E_KEYREF_STRUCTURE;
	if (tag == TAG_NAME) {
		if (cursor_get_der(&seq, TAG_NAME, &field) != 0)
			return P256SIGN_E_KEYREF_STRUCTURE;
		if (get_text(&field, out->name, P256SIGN_KEYREF_NAME_MAX) != 0)
			return P256SIGN_E_KEYREF_NAME;
	} else if (tag == TAG_ID) {
		if (cursor_get_der(&seq, TAG_ID, &field) != 0)
			return P256SIGN_E_KEYREF_STRUCTURE;
		if (cursor_left(&field) != sizeof(out->id) ||
		    cursor_copy(&field, out->id, sizeof(out->id)) != 0)
			return P256SIGN_E_KEYREF_ID;
		out->by_id = 1;
	} else {
		return P256SIGN_E_KEYREF_KEY;
	}
	if (cursor_get_der(&seq, TAG_UTF8STRING, &field) != 0)
		return P256SIGN_E_KEYREF_STRUCTURE;
	if (get_text(&field, out->socket, P256SIGN_KEYREF_SOCKET_MAX) != 0)
		return P256SIGN_E_KEYREF_SOCKET;
	if (cursor_end(&seq) != 0)
		return P256SIGN_E_KEYREF_TRAILING;
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

int p256sign_keyref_encode(const struct p256sign_keyref *in, uint8_t *out, size_t cap,
	size_t *len)
{
	uint8_t body[P256SIGN_KEYREF_DER_MAX];
	const uint8_t version = KEYREF_VERSION;
	size_t name_len = strnlen(in->name, sizeof(in->name));
	size_t socket_len = strnlen(in->socket, sizeof(in->socket));
	struct builder b;
	size_t body_len;

	if (socket_len == 0 || socket_len > P256SIGN_KEYREF_SOCKET_MAX)
		return P256SIGN_E_KEYREF_SOCKET;
	if (!in->by_id && (name_len == 0 || name_len > P256SIGN_KEYREF_NAME_MAX))
		return P256SIGN_E_KEYREF_NAME;
	builder_init(&b, body, sizeof(body));
	put_der(&b, TAG_INTEGER, &version, 1);
	if (in->by_id)
		put_der(&b, TAG_ID, in->id, sizeof(in->id));
	else
		put_der(&b, TAG_NAME, in->name, name_len);
	put_der(&b, TAG_UTF8STRING, in->socket, socket_len);
	if (builder_finish(&b, &body_len) != 0)
		return P256SIGN_E_BUFFER;
	builder_init(&b, out, cap);
	put_der(&b, TAG_SEQUENCE, body, body_len);
	return builder_finish(&b, len) == 0 ? 0 : P256SIGN_E_BUFFER;
}
