/* SPDX-License-Identifier: ISC */
#ifndef P256_CURSOR_H
#define P256_CURSOR_H

#include <stddef.h>
#include <stdint.h>

/*
 * The one way untrusted bytes are read (after BoringSSL's CBS and OpenSSH's sshbuf). A cursor does
 * not own its bytes. Every getter checks the bounds first and advances only on success, returning 0
 * or a negative enum p256_err code (errors.h). Length-prefixed fields and DER contents become
 * sub-cursors that the caller must use up exactly (cursor_end).
 */
struct cursor {
	const uint8_t *p;
	size_t len;
};

void cursor_init(struct cursor *c, const void *data, size_t len);

/* Bytes not yet read. */
size_t cursor_left(const struct cursor *c);

/* Where the next byte is: for a reader that notes where a part begins (a PEM body). */
const uint8_t *cursor_position(const struct cursor *c);

/* 0 when every byte was read, else P256_ERR_TRAILING. */
int cursor_end(const struct cursor *c);

/* Big-endian integers. */
int cursor_get_u8(struct cursor *c, uint8_t *v);
int cursor_get_u16(struct cursor *c, uint16_t *v);
int cursor_get_u32(struct cursor *c, uint32_t *v);

/* Points *p at the next n bytes (still owned by the input) and skips them. */
int cursor_get_bytes(struct cursor *c, const uint8_t **p, size_t n);

/* Copies the next n bytes to out. Copies whatever the bytes are: safe for secrets. */
int cursor_copy(struct cursor *c, void *out, size_t n);

/* Splits the next n bytes off as *sub. */
int cursor_get_sub(struct cursor *c, struct cursor *sub, size_t n);

/* A u16-length-prefixed field as *sub. */
int cursor_get_u16_prefixed(struct cursor *c, struct cursor *sub);

/* The tag of the next DER element without consuming it. */
int cursor_peek_u8(const struct cursor *c, uint8_t *v);

/* 1 when what is left of c is exactly the n bytes at p (BoringSSL's CBS_mem_equal), else 0;
 * variable time: for public bytes such as OIDs. */
int cursor_equal(const struct cursor *c, const void *p, size_t n);

/*
 * One DER element with the single-byte tag `tag`: definite, minimally encoded length; its contents
 * become *contents. P256_ERR_DER_TAG if the tag differs, P256_ERR_DER_LENGTH for a length that is
 * indefinite, longer than needed or longer than 4 bytes, P256_ERR_TRUNCATED if it overruns.
 */
int cursor_get_der(struct cursor *c, uint8_t tag, struct cursor *contents);

/*
 * A DER INTEGER that must be non-negative and minimally encoded; *p and *n get its magnitude
 * without the sign byte (n may be 0 for the value 0). P256_ERR_DER_INTEGER otherwise.
 */
int cursor_get_der_uint(struct cursor *c, const uint8_t **p, size_t *n);

/*
 * A builder writes into a caller's fixed buffer; the first error sticks and builder_finish
 * reports it, so a sequence of puts needs one check.
 */
struct builder {
	uint8_t *buf;
	size_t cap;
	size_t len;
	int err;
};

void builder_init(struct builder *b, void *buf, size_t cap);
void builder_put_u8(struct builder *b, uint8_t v);
void builder_put_u16(struct builder *b, uint16_t v);
void builder_put_u32(struct builder *b, uint32_t v);
void builder_put_bytes(struct builder *b, const void *p, size_t n);

/*
 * A DER element as a child of b (BoringSSL's CBB_add_asn1): builder_open_der writes tag and a
 * placeholder length and returns where the child starts; builder_close_der patches in the length
 * of what was written since, in the short form (contents of at most 127 bytes: longer ones set
 * the error, as this library builds nothing longer).
 */
size_t builder_open_der(struct builder *b, uint8_t tag);
void builder_close_der(struct builder *b, size_t at);

/* Writes a u32 at an earlier offset (a length known only later). */
void builder_patch_u32(struct builder *b, size_t at, uint32_t v);

/* 0 and *len = bytes written, or the first error (P256_ERR_BUFFER). */
int builder_finish(const struct builder *b, size_t *len);

#endif
