/* SPDX-License-Identifier: ISC */
/* The bounds-checked cursor over untrusted bytes and the builder that mirrors it (cursor.h). */
#include "cursor.h"

#include <string.h>

#include "errors.h"

void cursor_init(struct cursor *c, const void *data, size_t len)
{
	c->p = data;
	c->len = len;
}

size_t cursor_left(const struct cursor *c)
{
	return c->len;
}

const uint8_t *cursor_position(const struct cursor *c)
{
	return c->p;
}

int cursor_end(const struct cursor *c)
{
	return c->len == 0 ? 0 : P256_ERR_TRAILING;
}

int cursor_get_bytes(struct cursor *c, const uint8_t **p, size_t n)
{
	if (c->len < n)
		return P256_ERR_TRUNCATED;
	*p = c->p;
	c->p += n;
	c->len -= n;
	return 0;
}

static int get_be(struct cursor *c, size_t n, uint32_t *v)
{
	const uint8_t *p;
	int r;

	if ((r = cursor_get_bytes(c, &p, n)) != 0)
		return r;
	*v = 0;
	for (size_t i = 0; i < n; i++)
		*v = (*v << 8) | p[i];
	return 0;
}

int cursor_get_u8(struct cursor *c, uint8_t *v)
{
	uint32_t x;
	int r = get_be(c, 1, &x);

	if (r == 0)
		*v = (uint8_t)x;
	return r;
}

int cursor_get_u16(struct cursor *c, uint16_t *v)
{
	uint32_t x;
	int r = get_be(c, 2, &x);

	if (r == 0)
		*v = (uint16_t)x;
	return r;
}

int cursor_get_u32(struct cursor *c, uint32_t *v)
{
	return get_be(c, 4, v);
}

int cursor_copy(struct cursor *c, void *out, size_t n)
{
	const uint8_t *p;
	int r;

	if ((r = cursor_get_bytes(c, &p, n)) != 0)
		return r;
	memcpy(out, p, n);
	return 0;
}

int cursor_get_sub(struct cursor *c, struct cursor *sub, size_t n)
{
	const uint8_t *p;
	int r;

	if ((r = cursor_get_bytes(c, &p, n)) != 0)
		return r;
	cursor_init(sub, p, n);
	return 0;
}

int cursor_get_u16_prefixed(struct cursor *c, struct cursor *sub)
{
	struct cursor save = *c;
	uint16_t n;
	int r;

	if ((r = cursor_get_u16(c, &n)) != 0 || (r = cursor_get_sub(c, sub, n)) != 0)
		*c = save;
	return r;
}

int cursor_peek_u8(const struct cursor *c, uint8_t *v)
{
	struct cursor copy = *c;

	return cursor_get_u8(&copy, v);
}

int cursor_equal(const struct cursor *c, const void *p, size_t n)
{
	return cursor_left(c) == n && (n == 0 || memcmp(cursor_position(c), p, n) == 0);
}

/* A DER length: short form below 128, else 1-4 length bytes, minimal, no leading zero byte. */
static int get_der_length(struct cursor *c, size_t *len)
{
	uint8_t first;
	uint32_t v;
	int r;

	if ((r = cursor_get_u8(c, &first)) != 0)
		return r;
	if (first < 0x80) {
		*len = first;
		return 0;
	}
	first &= 0x7f;
	if (first == 0 || first > 4)
		return P256_ERR_DER_LENGTH; /* indefinite (BER) or absurdly long */
	if ((r = get_be(c, first, &v)) != 0)
		return r;
	if (v < 0x80 || (first > 1 && (v >> (8 * (first - 1))) == 0))
		return P256_ERR_DER_LENGTH; /* would fit in fewer bytes */
	*len = v;
	return 0;
}

int cursor_get_der(struct cursor *c, uint8_t tag, struct cursor *contents)
{
	struct cursor save = *c;
	uint8_t t;
	size_t len;
	int r;

	if ((r = cursor_get_u8(c, &t)) != 0)
		goto out;
	if ((t & 0x1f) == 0x1f || t != tag) {
		r = P256_ERR_DER_TAG;
		goto out;
	}
	if ((r = get_der_length(c, &len)) != 0)
		goto out;
	r = cursor_get_sub(c, contents, len);
out:
	if (r != 0)
		*c = save;
	return r;
}

int cursor_get_der_uint(struct cursor *c, const uint8_t **p, size_t *n)
{
	struct cursor save = *c, v;
	int r;

	if ((r = cursor_get_der(c, 0x02, &v)) != 0)
		goto out;
	r = P256_ERR_DER_INTEGER;
	if (v.len == 0 || (v.p[0] & 0x80))
		goto out; /* empty or negative */
	if (v.p[0] == 0 && v.len > 1) {
		if (!(v.p[1] & 0x80))
			goto out; /* a zero byte that is not a sign byte */
		v.p++;
		v.len--;
	} else if (v.p[0] == 0) {
		v.len = 0; /* the value 0 */
	}
	*p = v.p;
	*n = v.len;
	r = 0;
out:
	if (r != 0)
		*c = save;
	return r;
}

void builder_init(struct builder *b, void *buf, size_t cap)
{
	b->buf = buf;
	b->cap = cap;
	b->len = 0;
	b->err = 0;
}

void builder_put_bytes(struct builder *b, const void *p, size_t n)
{
	if (b->err != 0)
		return;
	if (b->cap - b->len < n) {
		b->err = P256_ERR_BUFFER;
		return;
	}
	if (n > 0)
		memcpy(b->buf + b->len, p, n);
	b->len += n;
}

void builder_put_u8(struct builder *b, uint8_t v)
{
	builder_put_bytes(b, &v, 1);
}

void builder_put_u16(struct builder *b, uint16_t v)
{
	uint8_t be[2] = { (uint8_t)(v >> 8), (uint8_t)v };

	builder_put_bytes(b, be, sizeof(be));
}

void builder_put_u32(struct builder *b, uint32_t v)
{
	uint8_t be[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };

	builder_put_bytes(b, be, sizeof(be));
}

size_t builder_open_der(struct builder *b, uint8_t tag)
{
	builder_put_u8(b, tag);
	builder_put_u8(b, 0);	/* the length, patched by builder_close_der */
	return b->len;
}

void builder_close_der(struct builder *b, size_t at)
{
	if (b->err != 0)
		return;
	if (at < 2 || at > b->len || b->len - at > 127) {
		b->err = P256_ERR_BUFFER;
		return;
	}
	b->buf[at - 1] = (uint8_t)(b->len - at);
}

void builder_patch_u32(struct builder *b, size_t at, uint32_t v)
{
	if (b->err != 0)
		return;
	if (at > b->len || b->len - at < 4) {
		b->err = P256_ERR_BUFFER;
		return;
	}
	b->buf[at] = (uint8_t)(v >> 24);
	b->buf[at + 1] = (uint8_t)(v >> 16);
	b->buf[at + 2] = (uint8_t)(v >> 8);
	b->buf[at + 3] = (uint8_t)v;
}

int builder_finish(const struct builder *b, size_t *len)
{
	if (b->err == 0)
		*len = b->len;
	return b->err;
}
