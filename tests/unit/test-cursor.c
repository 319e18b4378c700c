/* SPDX-License-Identifier: ISC */
/*
 * The byte cursor and builder of lib/cursor.c: bounds checks that never advance on failure,
 * big-endian integers, sub-cursors, u16-prefixed fields, DER element and INTEGER rules, the
 * builder's sticky overflow; and the error table of lib/errors.c (distinct tags and messages).
 */
#include "cursor.h"
#include "errors.h"
#include "testutil.h"

static void check_reads(void)
{
	static const uint8_t in[] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09 };
	struct cursor c, sub;
	const uint8_t *p;
	uint8_t u8, out[4];
	uint16_t u16;
	uint32_t u32;

	cursor_init(&c, in, sizeof(in));
	CHECK_INT(cursor_left(&c), 9);
	CHECK_INT(cursor_end(&c), P256_ERR_TRAILING);
	CHECK_INT(cursor_peek_u8(&c, &u8), 0);
	CHECK_INT(u8, 0x01);
	CHECK_INT(cursor_left(&c), 9);
	CHECK_INT(cursor_get_u8(&c, &u8), 0);
	CHECK_INT(u8, 0x01);
	CHECK_INT(cursor_get_u16(&c, &u16), 0);
	CHECK_INT(u16, 0x0203);
	CHECK_INT(cursor_get_u32(&c, &u32), 0);
	CHECK_INT(u32, 0x04050607);
	CHECK_INT(cursor_left(&c), 2);
	CHECK(cursor_position(&c) == in + 7);

	/* a failed read leaves the cursor where it was */
	CHECK_INT(cursor_get_u32(&c, &u32), P256_ERR_TRUNCATED);
	CHECK_INT(cursor_copy(&c, out, 3), P256_ERR_TRUNCATED);
	CHECK_INT(cursor_get_bytes(&c, &p, 3), P256_ERR_TRUNCATED);
	CHECK_INT(cursor_get_sub(&c, &sub, 3), P256_ERR_TRUNCATED);
	CHECK_INT(cursor_get_bytes(&c, &p, (size_t)-1), P256_ERR_TRUNCATED);
	CHECK_INT(cursor_left(&c), 2);
	CHECK(cursor_position(&c) == in + 7);
	CHECK_INT(cursor_get_sub(&c, &sub, 1), 0);
	CHECK_INT(cursor_left(&sub), 1);
	CHECK_INT(cursor_get_u16(&sub, &u16), P256_ERR_TRUNCATED);
	CHECK_INT(cursor_get_u8(&sub, &u8), 0);
	CHECK_INT(u8, 0x08);
	CHECK_INT(cursor_end(&sub), 0);
	CHECK_INT(cursor_get_u8(&sub, &u8), P256_ERR_TRUNCATED);
	CHECK_INT(cursor_get_bytes(&c, &p, 1), 0);
	CHECK(p == in + 8);
	CHECK_INT(cursor_end(&c), 0);
	CHECK_INT(cursor_peek_u8(&c, &u8), P256_ERR_TRUNCATED);
	CHECK_INT(cursor_get_bytes(&c, &p, 0), 0);

	cursor_init(&c, in, sizeof(in));
	CHECK_INT(cursor_copy(&c, out, 4), 0);
	CHECK_MEM(out, in, 4);
	CHECK_INT(cursor_left(&c), 5);
}

static void check_u16_prefixed(void)
{
	static const uint8_t in[] = { 0x00, 0x02, 0xaa, 0xbb, 0x00, 0x05, 0xcc };
	struct cursor c, sub;
	uint8_t u8;

	cursor_init(&c, in, sizeof(in));
	CHECK_INT(cursor_get_u16_prefixed(&c, &sub), 0);
	CHECK_INT(cursor_left(&sub), 2);
	CHECK_INT(cursor_get_u8(&sub, &u8), 0);
	CHECK_INT(u8, 0xaa);
	CHECK_INT(cursor_left(&c), 3);
	/* the second field claims 5 bytes but 1 is left: refused, the prefix not consumed */
	CHECK_INT(cursor_get_u16_prefixed(&c, &sub), P256_ERR_TRUNCATED);
	CHECK_INT(cursor_left(&c), 3);
	cursor_init(&c, in, 1);		/* a prefix cut in half */
	CHECK_INT(cursor_get_u16_prefixed(&c, &sub), P256_ERR_TRUNCATED);
	CHECK_INT(cursor_left(&c), 1);
	cursor_init(&c, (const uint8_t[]) { 0, 0 }, 2);	/* an empty field */
	CHECK_INT(cursor_get_u16_prefixed(&c, &sub), 0);
	CHECK_INT(cursor_end(&sub), 0);
	CHECK_INT(cursor_end(&c), 0);
}

/* One DER element read from hex: the error code and, on success, the contents' length. */
static void der(const char *hex, uint8_t tag, int want, size_t want_len)
{
	size_t len;
	uint8_t *in = hex_alloc(hex, &len);
	struct cursor c, contents;

	cursor_init(&c, in, len);
	int r = cursor_get_der(&c, tag, &contents);
	CHECK_INT(r, want);
	if (r == 0) {
		CHECK_INT(cursor_left(&contents), want_len);
		CHECK_INT(cursor_left(&c), len - (size_t)(contents.p - in) - want_len);
	} else {
		CHECK_INT(cursor_left(&c), len);	/* nothing consumed */
	}
	free(in);
}

static void check_der(void)
{
	char big[2 * 300 + 16];
	const uint8_t *p;
	size_t n, len;
	struct cursor c;

	der("0400", 0x04, 0, 0);
	der("040101ff", 0x04, 0, 1);
	der("0401", 0x04, P256_ERR_TRUNCATED, 0);
	der("04", 0x04, P256_ERR_TRUNCATED, 0);
	der("0500", 0x04, P256_ERR_DER_TAG, 0);
	der("1f00", 0x1f, P256_ERR_DER_TAG, 0);		/* multi-byte tag form */
	der("0480", 0x04, P256_ERR_DER_LENGTH, 0);	/* indefinite */
	der("04817f", 0x04, P256_ERR_DER_LENGTH, 0);	/* 127 in long form */
	der("04820080", 0x04, P256_ERR_DER_LENGTH, 0);	/* 128 in two bytes */
	der("0485000000000100", 0x04, P256_ERR_DER_LENGTH, 0);
	der("0481", 0x04, P256_ERR_TRUNCATED, 0);
	der("048180", 0x04, P256_ERR_TRUNCATED, 0);
	der("0484ffffffff", 0x04, P256_ERR_TRUNCATED, 0);
	/* 128 and 300 bytes: the smallest one- and two-byte long forms */
	snprintf(big, sizeof(big), "048180%0256d", 0);
	der(big, 0x04, 0, 128);
	snprintf(big, sizeof(big), "0482012c%0600d", 0);
	der(big, 0x04, 0, 300);

	/* INTEGERs: magnitude without the sign byte */
	uint8_t *in = hex_alloc("020100" "0201ff" "02020080" "02810100", &len);
	cursor_init(&c, in, len);
	CHECK_INT(cursor_get_der_uint(&c, &p, &n), 0);
	CHECK_INT(n, 0);
	CHECK_INT(cursor_get_der_uint(&c, &p, &n), P256_ERR_DER_INTEGER);	/* -1 */
	CHECK_INT(cursor_left(&c), len - 3);
	CHECK_INT(cursor_get_der(&c, 0x02, &(struct cursor) { 0 }), 0);
	CHECK_INT(cursor_get_der_uint(&c, &p, &n), 0);
	CHECK_INT(n, 1);
	CHECK_INT(p[0], 0x80);
	CHECK_INT(cursor_get_der_uint(&c, &p, &n), P256_ERR_DER_LENGTH);
	free(in);
}

static void check_builder(void)
{
	uint8_t buf[8], big[16];
	struct builder b;
	size_t len = 99;

	builder_init(&b, buf, sizeof(buf));
	builder_put_u8(&b, 0x01);
	builder_put_u16(&b, 0x0203);
	builder_put_u32(&b, 0);
	builder_patch_u32(&b, 3, 0x04050607);
	CHECK_INT(builder_finish(&b, &len), 0);
	CHECK_INT(len, 7);
	CHECK_MEM(buf, ((const uint8_t[]) { 1, 2, 3, 4, 5, 6, 7 }), 7);
	builder_patch_u32(&b, 4, 0);		/* would run past the written bytes */
	CHECK_INT(builder_finish(&b, &len), P256_ERR_BUFFER);

	builder_init(&b, buf, sizeof(buf));
	builder_put_bytes(&b, big, 8);
	CHECK_INT(builder_finish(&b, &len), 0);
	CHECK_INT(len, 8);
	builder_put_u8(&b, 0xee);		/* overflow: the error sticks ... */
	builder_put_bytes(&b, big, 0);		/* ... even for puts that would fit */
	len = 99;
	CHECK_INT(builder_finish(&b, &len), P256_ERR_BUFFER);
	CHECK_INT(len, 99);
	CHECK_INT(b.len, 8);

	builder_init(&b, buf, sizeof(buf));
	builder_put_bytes(&b, big, 9);
	builder_put_u8(&b, 1);
	CHECK_INT(builder_finish(&b, &len), P256_ERR_BUFFER);
	CHECK_INT(b.len, 0);
	builder_init(&b, buf, sizeof(buf));
	builder_put_bytes(&b, big, (size_t)-1);
	CHECK_INT(builder_finish(&b, &len), P256_ERR_BUFFER);
	builder_init(&b, buf, sizeof(buf));
	builder_put_u32(&b, 1);
	builder_patch_u32(&b, (size_t)-1, 0);
	CHECK_INT(builder_finish(&b, &len), P256_ERR_BUFFER);
}

/* Child DER elements: lengths patched in, nested; more than 127 bytes of contents refused. */
static void check_builder_der(void)
{
	uint8_t buf[200], big[128] = { 0 };
	struct builder b;
	size_t len = 0, outer, inner;

	builder_init(&b, buf, sizeof(buf));
	outer = builder_open_der(&b, 0x30);
	inner = builder_open_der(&b, 0x02);
	builder_put_u8(&b, 0x7f);
	builder_close_der(&b, inner);
	builder_put_u8(&b, 0x05);		/* after the inner child: the outer one's */
	builder_close_der(&b, outer);
	CHECK_INT(builder_finish(&b, &len), 0);
	CHECK_INT(len, 6);
	CHECK_MEM(buf, ((const uint8_t[]) { 0x30, 4, 0x02, 1, 0x7f, 0x05 }), 6);

	builder_init(&b, buf, sizeof(buf));
	outer = builder_open_der(&b, 0x04);
	builder_put_bytes(&b, big, 127);
	builder_close_der(&b, outer);
	CHECK_INT(builder_finish(&b, &len), 0);
	CHECK_INT(buf[1], 127);
	builder_init(&b, buf, sizeof(buf));
	outer = builder_open_der(&b, 0x04);
	builder_put_bytes(&b, big, 128);	/* the long form is never needed: refused */
	builder_close_der(&b, outer);
	CHECK_INT(builder_finish(&b, &len), P256_ERR_BUFFER);
	builder_init(&b, buf, sizeof(buf));
	builder_close_der(&b, 1);		/* no child opened there */
	CHECK_INT(builder_finish(&b, &len), P256_ERR_BUFFER);
}

static void check_equal(void)
{
	const uint8_t in[] = { 1, 2, 3 };
	struct cursor c;
	uint8_t v;

	cursor_init(&c, in, sizeof(in));
	CHECK_INT(cursor_equal(&c, in, 3), 1);
	CHECK_INT(cursor_equal(&c, in, 2), 0);	/* a prefix is not equal */
	CHECK_INT(cursor_get_u8(&c, &v), 0);
	CHECK_INT(cursor_equal(&c, in + 1, 2), 1);	/* what is left */
	CHECK_INT(cursor_equal(&c, ((const uint8_t[]) { 2, 4 }), 2), 0);
	CHECK_INT(cursor_get_u8(&c, &v), 0);
	CHECK_INT(cursor_get_u8(&c, &v), 0);
	CHECK_INT(cursor_equal(&c, in, 0), 1);
}

/* Every code has its own tag and message; codes outside the table are unknown. */
static void check_errors(void)
{
	for (int a = P256_ERR_MIN; a <= 0; a++) {
		CHECK(p256_strerror(a) != NULL);
		if (strcmp(p256_err_tag(a), "unknown-error") == 0)
			continue;
		for (const char *t = p256_err_tag(a); *t; t++)
			CHECK((*t >= 'a' && *t <= 'z') || (*t >= '0' && *t <= '9') || *t == '-');
		for (int b = P256_ERR_MIN; b < a; b++) {
			CHECK(strcmp(p256_err_tag(a), p256_err_tag(b)) != 0);
			CHECK(strcmp(p256_strerror(a), p256_strerror(b)) != 0);
		}
	}
	CHECK(strcmp(p256_err_tag(P256_ERR_DER_LENGTH), "der-length") == 0);
	CHECK(strcmp(p256_err_tag(1), "unknown-error") == 0);
	CHECK(strcmp(p256_err_tag(P256_ERR_MIN - 1), "unknown-error") == 0);
	CHECK(p256_strerror(P256_ERR_MIN - 1) != NULL);
}

int main(void)
{
	check_reads();
	check_u16_prefixed();
	check_der();
	check_builder();
	check_builder_der();
	check_equal();
	check_errors();
	return test_done("test-cursor");
}
