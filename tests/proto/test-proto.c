/* SPDX-License-Identifier: ISC */
/*
 * The wire codec (proto/proto.h): every request and response type survives encode -> decode ->
 * encode unchanged, and every refusal of the decoders and encoders comes with its exact code.
 * Frames are decoded from exact-size heap copies so that the sanitizers see any over-read.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "cursor.h"
#include "proto.h"
#include "samples.h"

#define BAD (-PROTO_E_BAD_FRAME)
#define FRAME_BUF (PROTO_LEN_PREFIX + PROTO_FRAME_MAX)
#define MAX_SAMPLES 32

static struct sample_values values;
static struct sample samples[MAX_SAMPLES];
static size_t n_samples;

/* Decodes `len` bytes of p as a request or response, from a heap copy of exactly that size. */
static int decode_copy(int is_request, const uint8_t *p, size_t len, struct proto_request *req,
	struct proto_response *resp)
{
	uint8_t *copy = malloc(len > 0 ? len : 1);
	int r;

	if (copy == NULL) {
		CHECK(!"out of memory");
		return -PROTO_E_INTERNAL;
	}
	memcpy(copy, p, len);
	r = is_request ? proto_decode_request(copy, len, req) : proto_decode_response(copy, len, resp);
	free(copy);
	return r;
}

static int decode_req(const uint8_t *p, size_t len)
{
	struct proto_request req;

	return decode_copy(1, p, len, &req, NULL);
}

static int decode_resp(const uint8_t *p, size_t len)
{
	struct proto_response resp;

	return decode_copy(0, p, len, NULL, &resp);
}

static int is_json_response(const struct sample *s)
{
	uint8_t t = (uint8_t)(s->resp.h.type & ~PROTO_RESPONSE);

	return !s->is_request && s->resp.h.type != PROTO_ERROR &&
	    (t == PROTO_LIST_KEYS || t == PROTO_STATUS);
}

/* encode -> length prefix -> decode gives the same fields, and encoding those the same bytes. */
static void test_round_trips(void)
{
	static uint8_t buf[FRAME_BUF], again[FRAME_BUF];

	for (size_t i = 0; i < n_samples; i++) {
		const struct sample *s = &samples[i];
		struct proto_request req;
		struct proto_response resp;
		size_t len = 0, len2 = 0;
		uint32_t n = 0;

		test_case = s->name;
		CHECK(sample_encode(s, buf, sizeof(buf), &len) == 0);
		CHECK(proto_frame_length(buf, &n) == 0 && n == len - PROTO_LEN_PREFIX);
		if (n != len - PROTO_LEN_PREFIX)
			continue;
		if (s->is_request) {
			CHECK(proto_decode_request(buf + PROTO_LEN_PREFIX, n, &req) == 0);
			CHECK(request_equal(&req, &s->req));
			CHECK(proto_encode_request(&req, again, sizeof(again), &len2) == 0);
			/* a request is never mistaken for a response */
			CHECK(decode_resp(buf + PROTO_LEN_PREFIX, n) == BAD);
		} else {
			CHECK(proto_decode_response(buf + PROTO_LEN_PREFIX, n, &resp) == 0);
			CHECK(response_equal(&resp, &s->resp));
			CHECK(proto_encode_response(&resp, again, sizeof(again), &len2) == 0);
			CHECK(decode_req(buf + PROTO_LEN_PREFIX, n) == -PROTO_E_UNKNOWN_TYPE);
		}
		CHECK(len2 == len && memcmp(buf, again, len) == 0);
	}
}

/*
 * Every proper prefix of every sample frame is bad-frame. LIST_KEYS and STATUS responses are the
 * exception by design: their JSON fills the rest of the frame, so a shorter frame is a valid
 * response with shorter JSON (the length prefix is what delimits it).
 */
static void test_truncations(void)
{
	static uint8_t buf[FRAME_BUF];

	for (size_t i = 0; i < n_samples; i++) {
		const struct sample *s = &samples[i];
		const uint8_t *frame = buf + PROTO_LEN_PREFIX;
		size_t len = 0;

		test_case = s->name;
		CHECK(sample_encode(s, buf, sizeof(buf), &len) == 0);
		if (len < PROTO_LEN_PREFIX)
			continue;
		len -= PROTO_LEN_PREFIX;
		for (size_t cut = 0; cut < len; cut++) {
			struct proto_response resp;

			if (s->is_request) {
				CHECK(decode_req(frame, cut) == BAD);
			} else if (is_json_response(s) && cut >= PROTO_HEADER_LEN) {
				CHECK(decode_copy(0, frame, cut, NULL, &resp) == 0 &&
				    resp.json_len == cut - PROTO_HEADER_LEN);
			} else {
				CHECK(decode_resp(frame, cut) == BAD);
			}
		}
	}
}

/* One byte after the last field is bad-frame (JSON bodies have no last field: see above). */
static void test_trailing(void)
{
	static uint8_t buf[FRAME_BUF + 1];

	for (size_t i = 0; i < n_samples; i++) {
		const struct sample *s = &samples[i];
		size_t len = 0;

		if (is_json_response(s))
			continue;
		test_case = s->name;
		CHECK(sample_encode(s, buf, sizeof(buf) - 1, &len) == 0);
		if (len < PROTO_LEN_PREFIX)
			continue;
		buf[len] = 0;
		len = len + 1 - PROTO_LEN_PREFIX;
		CHECK((s->is_request ? decode_req(buf + PROTO_LEN_PREFIX, len) :
		    decode_resp(buf + PROTO_LEN_PREFIX, len)) == BAD);
	}
}

/* A hand-built frame (header and body, no length prefix) for the refusals. */
static uint8_t raw_buf[PROTO_FRAME_MAX + 1024];
static struct builder raw;

static void raw_start(uint8_t version, uint8_t type, uint16_t flags)
{
	builder_init(&raw, raw_buf, sizeof(raw_buf));
	builder_put_u8(&raw, version);
	builder_put_u8(&raw, type);
	builder_put_u16(&raw, flags);
	builder_put_u32(&raw, 0x01020304);
}

static void raw_zeros(size_t n)
{
	for (size_t i = 0; i < n; i++)
		builder_put_u8(&raw, 0);
}

static void raw_name(const char *name, size_t len)
{
	builder_put_u8(&raw, PROTO_KEY_NAME);
	builder_put_u8(&raw, (uint8_t)len);
	builder_put_bytes(&raw, name, len);
}

static void raw_point(void)
{
	builder_put_u8(&raw, PROTO_KEY_POINT);
	builder_put_bytes(&raw, values.point, sizeof(values.point));
}

/* A compressed point selector: `prefix`, then x of the example point. */
static void raw_compressed(uint8_t prefix)
{
	builder_put_u8(&raw, PROTO_KEY_POINT_COMPRESSED);
	builder_put_u8(&raw, prefix);
	builder_put_bytes(&raw, values.point + 1, 32);
}

/* The rest of a SIGN body after the selector: format, digest length n, n digest bytes. */
static void raw_format_digest(uint8_t format, uint8_t n)
{
	builder_put_u8(&raw, format);
	builder_put_u8(&raw, n);
	raw_zeros(n);
}

/* A u16-prefixed field of n zero bytes: a message, a signature or an error text. */
static void raw_field16(size_t n)
{
	builder_put_u16(&raw, (uint16_t)n);
	raw_zeros(n);
}

static size_t raw_len(void)
{
	size_t len = 0;

	CHECK(builder_finish(&raw, &len) == 0);
	return len;
}

static int raw_req(void)
{
	return decode_req(raw_buf, raw_len());
}

static int raw_resp(void)
{
	return decode_resp(raw_buf, raw_len());
}

static void test_header(void)
{
	static const uint8_t versions[] = { 0, 2, 0xff };
	static const uint16_t flags[] = { 1, 0x0100, 0x8000, 0xffff };
	struct proto_request req;
	struct proto_response resp;

	test_case = "header";
	for (size_t i = 0; i < sizeof(versions); i++) {
		raw_start(versions[i], PROTO_PING, 0);
		CHECK(decode_copy(1, raw_buf, raw_len(), &req, NULL) == -PROTO_E_UNSUPPORTED_VERSION);
		CHECK(req.h.id == 0x01020304); /* for the error reply */
		raw_start(versions[i], PROTO_PING | PROTO_RESPONSE, 0);
		CHECK(decode_copy(0, raw_buf, raw_len(), NULL, &resp) == -PROTO_E_UNSUPPORTED_VERSION);
		/* the version is checked first */
		raw_start(versions[i], 0x42, 1);
		CHECK(raw_req() == -PROTO_E_UNSUPPORTED_VERSION);
	}
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		raw_start(PROTO_VERSION, PROTO_PING, flags[i]);
		CHECK(decode_copy(1, raw_buf, raw_len(), &req, NULL) == -PROTO_E_BAD_FLAGS);
		CHECK(req.h.id == 0x01020304);
		raw_start(PROTO_VERSION, PROTO_PING | PROTO_RESPONSE, flags[i]);
		CHECK(raw_resp() == -PROTO_E_BAD_FLAGS);
	}
}

static void test_types(void)
{
	static const uint8_t req_types[] = { 0x00, 0x0a, 0x7f, 0x80, 0x81, 0x89, 0xfe, 0xff };
	static const uint8_t resp_unknown[] = { 0x80, 0x8a, 0xfe };
	static const uint8_t resp_not_response[] = { 0x00, 0x01, 0x07, 0x7f };

	test_case = "types";
	for (size_t i = 0; i < sizeof(req_types); i++) {
		raw_start(PROTO_VERSION, req_types[i], 0);
		CHECK(raw_req() == -PROTO_E_UNKNOWN_TYPE);
	}
	for (size_t i = 0; i < sizeof(resp_unknown); i++) {
		raw_start(PROTO_VERSION, resp_unknown[i], 0);
		CHECK(raw_resp() == -PROTO_E_UNKNOWN_TYPE);
	}
	for (size_t i = 0; i < sizeof(resp_not_response); i++) {
		raw_start(PROTO_VERSION, resp_not_response[i], 0);
		CHECK(raw_resp() == BAD);
	}
}

/* A SIGN request naming `name` (len bytes) is refused with `want`. */
static void check_sign_name(const char *name, size_t len, int want)
{
	raw_start(PROTO_VERSION, PROTO_SIGN, 0);
	raw_name(name, len);
	raw_format_digest(PROTO_FORMAT_DER, PROTO_DIGEST_LEN);
	CHECK(raw_req() == want);
}

static void test_selectors(void)
{
	static const uint8_t kinds[] = { 0, 5, 0x80, 0xff };
	static const uint8_t name_lens[] = { 0, PROTO_NAME_MAX + 1, 0x80, 0xff };
	static const char *const bad_names[] = { "a b", "a/b", "a@b", "a:b", "\x80", "caf\xc3\xa9",
		"a\tb", "a+b", "*" };
	static const uint8_t typed[] = { PROTO_SIGN, PROTO_SIGN_MESSAGE, PROTO_PUBKEY };
	char name[PROTO_NAME_MAX + 1];

	test_case = "selectors";
	for (size_t i = 0; i < sizeof(kinds); i++) {
		raw_start(PROTO_VERSION, PROTO_SIGN, 0);
		builder_put_u8(&raw, kinds[i]);
		raw_zeros(PROTO_POINT_LEN);
		raw_format_digest(PROTO_FORMAT_DER, PROTO_DIGEST_LEN);
		CHECK(raw_req() == -PROTO_E_BAD_KEY_SELECTOR);
	}
	memset(name, 'a', sizeof(name));
	check_sign_name(name, 0, -PROTO_E_BAD_KEY_SELECTOR);
	check_sign_name(name, PROTO_NAME_MAX + 1, -PROTO_E_BAD_KEY_SELECTOR);
	check_sign_name(name, PROTO_NAME_MAX, 0);
	check_sign_name("a\0b", 3, -PROTO_E_BAD_KEY_SELECTOR);
	for (size_t i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); i++)
		check_sign_name(bad_names[i], strlen(bad_names[i]), -PROTO_E_BAD_KEY_SELECTOR);
	check_sign_name("ABCXYZabcxyz0189._-", 19, 0);
	/* the name is checked before the fields after it */
	raw_start(PROTO_VERSION, PROTO_SIGN, 0);
	raw_name("a b", 3);
	raw_format_digest(7, 33);
	CHECK(raw_req() == -PROTO_E_BAD_KEY_SELECTOR);
	/* its length before its contents: a length no name has, whatever follows (or not) */
	for (size_t i = 0; i < sizeof(name_lens); i++) {
		for (size_t follow = 0; follow <= 3; follow++) {
			raw_start(PROTO_VERSION, PROTO_SIGN, 0);
			builder_put_u8(&raw, PROTO_KEY_NAME);
			builder_put_u8(&raw, name_lens[i]);
			builder_put_bytes(&raw, "abc", follow);
			CHECK(raw_req() == -PROTO_E_BAD_KEY_SELECTOR);
		}
	}
	/* a length a name may have, with fewer bytes after it than it says: truncated */
	raw_start(PROTO_VERSION, PROTO_SIGN, 0);
	builder_put_u8(&raw, PROTO_KEY_NAME);
	builder_put_u8(&raw, PROTO_NAME_MAX);
	builder_put_bytes(&raw, "abc", 3);
	CHECK(raw_req() == BAD);

	/* an explicit point, uncompressed or compressed, is for VERIFY only */
	for (size_t i = 0; i < 2 * sizeof(typed); i++) {
		raw_start(PROTO_VERSION, typed[i / 2], 0);
		if (i % 2)
			raw_compressed(0x02);
		else
			raw_point();
		if (typed[i / 2] == PROTO_SIGN)
			raw_format_digest(PROTO_FORMAT_DER, PROTO_DIGEST_LEN);
		if (typed[i / 2] == PROTO_SIGN_MESSAGE) {
			builder_put_u8(&raw, PROTO_FORMAT_DER);
			raw_field16(1);
		}
		CHECK(raw_req() == -PROTO_E_BAD_KEY_SELECTOR);
	}
	raw_start(PROTO_VERSION, PROTO_VERIFY, 0);
	raw_point();
	raw_format_digest(PROTO_FORMAT_DER, PROTO_DIGEST_LEN);
	raw_field16(8);
	CHECK(raw_req() == 0);
	/*
	 * A compressed point is 33 bytes whatever its prefix: whether those are a point is the
	 * daemon's bad-point, so the codec takes 0x04 and 0x05 too and reads on in step.
	 */
	for (unsigned prefix = 0x02; prefix <= 0x05; prefix++) {
		raw_start(PROTO_VERSION, PROTO_VERIFY, 0);
		raw_compressed((uint8_t)prefix);
		raw_format_digest(PROTO_FORMAT_DER, PROTO_DIGEST_LEN);
		raw_field16(8);
		CHECK(raw_req() == 0);
	}
	raw_start(PROTO_VERSION, PROTO_VERIFY, 0);
	builder_put_u8(&raw, PROTO_KEY_POINT_COMPRESSED);
	raw_zeros(PROTO_POINT_COMPRESSED_LEN - 1);
	CHECK(raw_req() == BAD);
}

static void test_formats_and_digests(void)
{
	static const uint8_t formats[] = { 2, 0x7f, 0xff };
	static const uint8_t digest_lens[] = { 0, 31, 33, 64, 0xff };

	test_case = "formats";
	for (size_t i = 0; i < sizeof(formats); i++) {
		raw_start(PROTO_VERSION, PROTO_SIGN, 0);
		raw_name("k", 1);
		raw_format_digest(formats[i], PROTO_DIGEST_LEN);
		CHECK(raw_req() == -PROTO_E_BAD_FORMAT);
		raw_start(PROTO_VERSION, PROTO_SIGN_MESSAGE, 0);
		raw_name("k", 1);
		builder_put_u8(&raw, formats[i]);
		raw_field16(1);
		CHECK(raw_req() == -PROTO_E_BAD_FORMAT);
		raw_start(PROTO_VERSION, PROTO_VERIFY, 0);
		raw_name("k", 1);
		raw_format_digest(formats[i], PROTO_DIGEST_LEN);
		raw_field16(PROTO_SIG_RAW_LEN);
		CHECK(raw_req() == -PROTO_E_BAD_FORMAT);
	}
	test_case = "digest lengths";
	for (size_t i = 0; i < sizeof(digest_lens); i++) {
		raw_start(PROTO_VERSION, PROTO_SIGN, 0);
		raw_name("k", 1);
		raw_format_digest(PROTO_FORMAT_DER, digest_lens[i]);
		CHECK(raw_req() == -PROTO_E_BAD_DIGEST_LENGTH);
		raw_start(PROTO_VERSION, PROTO_VERIFY, 0);
		raw_point();
		raw_format_digest(PROTO_FORMAT_DER, digest_lens[i]);
		raw_field16(8);
		CHECK(raw_req() == -PROTO_E_BAD_DIGEST_LENGTH);
	}
}

static void check_message(size_t n, int want)
{
	raw_start(PROTO_VERSION, PROTO_SIGN_MESSAGE, 0);
	raw_name("k", 1);
	builder_put_u8(&raw, PROTO_FORMAT_RAW);
	raw_field16(n);
	CHECK(raw_req() == want);
}

static void check_verify_sig(uint8_t format, size_t n, int want)
{
	raw_start(PROTO_VERSION, PROTO_VERIFY, 0);
	raw_name("k", 1);
	raw_format_digest(format, PROTO_DIGEST_LEN);
	raw_field16(n);
	CHECK(raw_req() == want);
}

static void test_lengths(void)
{
	test_case = "message lengths";
	check_message(0, 0);
	check_message(PROTO_MESSAGE_MAX, 0);
	check_message(PROTO_MESSAGE_MAX + 1, -PROTO_E_MESSAGE_TOO_LARGE);
	check_message(40000, -PROTO_E_MESSAGE_TOO_LARGE);

	test_case = "signature lengths";
	check_verify_sig(PROTO_FORMAT_RAW, PROTO_SIG_RAW_LEN, 0);
	check_verify_sig(PROTO_FORMAT_RAW, 0, -PROTO_E_BAD_SIGNATURE);
	check_verify_sig(PROTO_FORMAT_RAW, PROTO_SIG_RAW_LEN - 1, -PROTO_E_BAD_SIGNATURE);
	check_verify_sig(PROTO_FORMAT_RAW, PROTO_SIG_RAW_LEN + 1, -PROTO_E_BAD_SIGNATURE);
	check_verify_sig(PROTO_FORMAT_RAW, PROTO_SIG_MAX, -PROTO_E_BAD_SIGNATURE);
	check_verify_sig(PROTO_FORMAT_DER, 0, 0);
	check_verify_sig(PROTO_FORMAT_DER, PROTO_SIG_MAX, 0);
	check_verify_sig(PROTO_FORMAT_DER, PROTO_SIG_MAX + 1, -PROTO_E_BAD_SIGNATURE);
	check_verify_sig(PROTO_FORMAT_DER, 1000, -PROTO_E_BAD_SIGNATURE);
}

static void check_prefix(uint32_t v, int want)
{
	uint8_t p[PROTO_LEN_PREFIX] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8),
		(uint8_t)v };
	uint32_t len = 0xdeadbeef;

	CHECK(proto_frame_length(p, &len) == want);
	CHECK(len == (want == 0 ? v : 0xdeadbeef));
}

/* A STATUS response of exactly `len` bytes after the prefix. */
static void raw_status(size_t len)
{
	raw_start(PROTO_VERSION, PROTO_STATUS | PROTO_RESPONSE, 0);
	raw_zeros(len - PROTO_HEADER_LEN);
}

/* A SIGN_TLS of kind 1 up to its hash length: side, hash length, then `hash` of its bytes. */
static void raw_tls13(uint8_t side, uint8_t hash_len, size_t hash)
{
	raw_start(PROTO_VERSION, PROTO_SIGN_TLS, 0);
	raw_name("k", 1);
	builder_put_u8(&raw, PROTO_FORMAT_DER);
	builder_put_u8(&raw, PROTO_TLS13_CERTIFICATE_VERIFY);
	builder_put_u8(&raw, side);
	builder_put_u8(&raw, hash_len);
	raw_zeros(hash);
}

/*
 * Several faults in one frame: the codec's first in reading order decides, each field's kind or
 * length before its contents, trailing bytes last (docs/protocol.md section 7, phase 1).
 */
static void test_reading_order(void)
{
	test_case = "reading order";
	raw_tls13(2, 32, 0);			/* side 2: nothing after it matters */
	CHECK(raw_req() == -PROTO_E_BAD_TLS_CONTENT);
	raw_tls13(0, 20, 0);			/* a hash length no hash has, no hash */
	CHECK(raw_req() == -PROTO_E_BAD_TLS_CONTENT);
	raw_tls13(1, 48, 10);			/* a good length, its hash cut short */
	CHECK(raw_req() == BAD);
	raw_tls13(1, 48, 49);			/* one byte more: trailing */
	CHECK(raw_req() == BAD);
	raw_tls13(1, 64, 64);
	CHECK(raw_req() == 0);

	/* VERIFY: format before digest length before signature length before trailing bytes */
	raw_start(PROTO_VERSION, PROTO_VERIFY, 0);
	raw_compressed(0x05);
	raw_format_digest(7, 33);
	CHECK(raw_req() == -PROTO_E_BAD_FORMAT);
	raw_start(PROTO_VERSION, PROTO_VERIFY, 0);
	raw_point();
	raw_format_digest(PROTO_FORMAT_RAW, 31);
	CHECK(raw_req() == -PROTO_E_BAD_DIGEST_LENGTH);
	raw_start(PROTO_VERSION, PROTO_VERIFY, 0);
	raw_point();
	raw_format_digest(PROTO_FORMAT_RAW, PROTO_DIGEST_LEN);
	raw_field16(63);
	builder_put_u8(&raw, 0);
	CHECK(raw_req() == -PROTO_E_BAD_SIGNATURE);
	/* a point that is no point and one trailing byte: the codec sees only the byte */
	raw_start(PROTO_VERSION, PROTO_VERIFY, 0);
	raw_compressed(0x05);
	raw_format_digest(PROTO_FORMAT_DER, PROTO_DIGEST_LEN);
	raw_field16(8);
	builder_put_u8(&raw, 0);
	CHECK(raw_req() == BAD);
	/* a name length of 65 with a frame too short for it, and a trailing byte after a name */
	raw_start(PROTO_VERSION, PROTO_VERIFY, 0);
	builder_put_u8(&raw, PROTO_KEY_NAME);
	builder_put_u8(&raw, PROTO_NAME_MAX + 1);
	raw_zeros(3);
	CHECK(raw_req() == -PROTO_E_BAD_KEY_SELECTOR);
	raw_start(PROTO_VERSION, PROTO_PUBKEY, 0);
	raw_name("nope", 4);
	builder_put_u8(&raw, 0);
	CHECK(raw_req() == BAD);
}

static void test_frame_lengths(void)
{
	test_case = "frame lengths";
	check_prefix(0, BAD);
	check_prefix(PROTO_HEADER_LEN - 1, BAD);
	check_prefix(PROTO_HEADER_LEN, 0);
	check_prefix(PROTO_FRAME_MAX, 0);
	check_prefix(PROTO_FRAME_MAX + 1, -PROTO_E_FRAME_TOO_LARGE);
	check_prefix(0x01000000, -PROTO_E_FRAME_TOO_LARGE);
	check_prefix(0xffffffff, -PROTO_E_FRAME_TOO_LARGE);

	/* the decoders hold the same limit */
	raw_status(PROTO_FRAME_MAX);
	CHECK(raw_resp() == 0);
	raw_status(PROTO_FRAME_MAX + 1);
	CHECK(raw_resp() == -PROTO_E_FRAME_TOO_LARGE);
	raw_start(PROTO_VERSION, PROTO_PING, 0);
	raw_zeros(PROTO_FRAME_MAX + 1 - PROTO_HEADER_LEN);
	CHECK(raw_req() == -PROTO_E_FRAME_TOO_LARGE);
}

static void test_response_refusals(void)
{
	test_case = "response refusals";
	/* ERROR: code 0 is no error; text at most 256 bytes */
	raw_start(PROTO_VERSION, PROTO_ERROR, 0);
	builder_put_u16(&raw, 0);
	builder_put_u16(&raw, 0);
	CHECK(raw_resp() == BAD);
	raw_start(PROTO_VERSION, PROTO_ERROR, 0);
	builder_put_u16(&raw, PROTO_E_INTERNAL);
	raw_field16(PROTO_TEXT_MAX);
	CHECK(raw_resp() == 0);
	raw_start(PROTO_VERSION, PROTO_ERROR, 0);
	builder_put_u16(&raw, PROTO_E_INTERNAL);
	raw_field16(PROTO_TEXT_MAX + 1);
	CHECK(raw_resp() == BAD);
	/* VERIFY: valid is 0 or 1 */
	raw_start(PROTO_VERSION, PROTO_VERIFY | PROTO_RESPONSE, 0);
	builder_put_u8(&raw, 2);
	CHECK(raw_resp() == BAD);
	/* SIGN: format known, raw exactly 64, DER at most 72 */
	raw_start(PROTO_VERSION, PROTO_SIGN | PROTO_RESPONSE, 0);
	builder_put_u8(&raw, 2);
	builder_put_u8(&raw, PROTO_SIG_RAW_LEN);
	raw_zeros(PROTO_SIG_RAW_LEN);
	CHECK(raw_resp() == BAD);
	raw_start(PROTO_VERSION, PROTO_SIGN_MESSAGE | PROTO_RESPONSE, 0);
	builder_put_u8(&raw, PROTO_FORMAT_RAW);
	builder_put_u8(&raw, PROTO_SIG_RAW_LEN - 1);
	raw_zeros(PROTO_SIG_RAW_LEN - 1);
	CHECK(raw_resp() == BAD);
	raw_start(PROTO_VERSION, PROTO_SIGN | PROTO_RESPONSE, 0);
	builder_put_u8(&raw, PROTO_FORMAT_DER);
	builder_put_u8(&raw, PROTO_SIG_MAX + 1);
	raw_zeros(PROTO_SIG_MAX + 1);
	CHECK(raw_resp() == BAD);
	/* CERTIFICATE: the key id, then 1 .. 16384 DER bytes, u16-prefixed, nothing after */
	raw_start(PROTO_VERSION, PROTO_CERTIFICATE | PROTO_RESPONSE, 0);
	raw_zeros(PROTO_KEY_ID_LEN);
	raw_field16(0);
	CHECK(raw_resp() == BAD);
	raw_start(PROTO_VERSION, PROTO_CERTIFICATE | PROTO_RESPONSE, 0);
	raw_zeros(PROTO_KEY_ID_LEN);
	raw_field16(PROTO_CERT_MAX);
	CHECK(raw_resp() == 0);
	raw_start(PROTO_VERSION, PROTO_CERTIFICATE | PROTO_RESPONSE, 0);
	raw_zeros(PROTO_KEY_ID_LEN);
	raw_field16(PROTO_CERT_MAX + 1);
	CHECK(raw_resp() == BAD);
	raw_start(PROTO_VERSION, PROTO_CERTIFICATE | PROTO_RESPONSE, 0);
	raw_zeros(PROTO_KEY_ID_LEN - 1);
	CHECK(raw_resp() == BAD);
	/* CERTIFICATE request: a name or an id, never a point */
	raw_start(PROTO_VERSION, PROTO_CERTIFICATE, 0);
	raw_point();
	CHECK(raw_req() == -PROTO_E_BAD_KEY_SELECTOR);
}

/* The sample called `name`, copied so that a test may change it. */
static struct sample sample_named(const char *name)
{
	for (size_t i = 0; i < n_samples; i++)
		if (strcmp(samples[i].name, name) == 0)
			return samples[i];
	CHECK(!"no such sample");
	return samples[0];
}

/* The last frame encoded by enc_req or enc_resp. */
static uint8_t enc_buf[FRAME_BUF];

static int enc_req(const struct proto_request *req)
{
	size_t len;

	return proto_encode_request(req, enc_buf, sizeof(enc_buf), &len);
}

static int enc_resp(const struct proto_response *resp)
{
	size_t len;

	return proto_encode_response(resp, enc_buf, sizeof(enc_buf), &len);
}

static void test_request_encoder_refusals(void)
{
	static const char *const names[] = { "sign-request-name-der", "sign-message-request",
		"pubkey-request", "certificate-request" };
	static uint8_t big[PROTO_MESSAGE_MAX + 1];
	struct sample s;

	test_case = "request encoder";
	s = sample_named("ping-request");
	s.req.h.version = 2;
	CHECK(enc_req(&s.req) == BAD);
	s = sample_named("ping-request");
	s.req.h.flags = 1;
	CHECK(enc_req(&s.req) == BAD);
	s.req.h.flags = 0;
	s.req.h.type = PROTO_PING | PROTO_RESPONSE;
	CHECK(enc_req(&s.req) == BAD);
	s.req.h.type = 0x08;
	CHECK(enc_req(&s.req) == BAD);
	s.req.h.type = PROTO_ERROR;
	CHECK(enc_req(&s.req) == BAD);

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		s = sample_named(names[i]);
		s.req.key.name_len = 0;
		CHECK(enc_req(&s.req) == BAD);
		s = sample_named(names[i]);
		memset(s.req.key.name, 'a', sizeof(s.req.key.name));
		s.req.key.name_len = PROTO_NAME_MAX + 1;
		CHECK(enc_req(&s.req) == BAD);
		s = sample_named(names[i]);
		s.req.key.name[3] = ' ';
		CHECK(enc_req(&s.req) == BAD);
		s = sample_named(names[i]);
		s.req.key.kind = 0;
		CHECK(enc_req(&s.req) == BAD);
		s.req.key.kind = 4;
		CHECK(enc_req(&s.req) == BAD);
		s.req.key.kind = PROTO_KEY_POINT;
		CHECK(enc_req(&s.req) == BAD);
	}
	s = sample_named("sign-request-name-der");
	s.req.format = 2;
	CHECK(enc_req(&s.req) == BAD);
	s = sample_named("sign-message-request");
	s.req.format = 2;
	CHECK(enc_req(&s.req) == BAD);
	s.req.format = PROTO_FORMAT_DER;
	s.req.message = big;
	s.req.message_len = sizeof(big);
	CHECK(enc_req(&s.req) == BAD);
	s.req.message_len = sizeof(big) - 1;
	CHECK(enc_req(&s.req) == 0);

	s = sample_named("verify-request-point");
	s.req.format = 2;
	CHECK(enc_req(&s.req) == BAD);
	s = sample_named("verify-request-point");
	s.req.sig_len = PROTO_SIG_MAX + 1;
	CHECK(enc_req(&s.req) == BAD);
	s = sample_named("verify-request-keyid-raw");
	s.req.sig_len = PROTO_SIG_RAW_LEN - 1;
	CHECK(enc_req(&s.req) == BAD);
	s.req.sig_len = PROTO_SIG_RAW_LEN + 1;
	CHECK(enc_req(&s.req) == BAD);
}

static void test_response_encoder_refusals(void)
{
	static char big[PROTO_FRAME_MAX];
	struct sample s;

	test_case = "sign-tls encoder";
	s = sample_named("sign-tls13-request");
	s.req.tls.hash_len = 20;	/* not a TLS hash: never put on the wire */
	CHECK(enc_req(&s.req) == BAD);
	s = sample_named("sign-tls12-request");
	s.req.tls.params[0] = 1;	/* explicit curve: not ServerECDHParams as accepted */
	CHECK(enc_req(&s.req) == BAD);

	test_case = "response encoder";
	s = sample_named("ping-response");
	s.resp.h.version = 0;
	CHECK(enc_resp(&s.resp) == BAD);
	s = sample_named("ping-response");
	s.resp.h.flags = 0x8000;
	CHECK(enc_resp(&s.resp) == BAD);
	s.resp.h.flags = 0;
	s.resp.h.type = PROTO_PING;
	CHECK(enc_resp(&s.resp) == BAD);
	s.resp.h.type = 0x8a;
	CHECK(enc_resp(&s.resp) == BAD);

	s = sample_named("error-unknown-key");
	s.resp.error = 0;
	CHECK(enc_resp(&s.resp) == BAD);
	s = sample_named("error-unknown-key");
	s.resp.text = big;
	s.resp.text_len = PROTO_TEXT_MAX + 1;
	CHECK(enc_resp(&s.resp) == BAD);

	s = sample_named("sign-response-der");
	s.resp.format = 2;
	CHECK(enc_resp(&s.resp) == BAD);
	s = sample_named("sign-response-der");
	s.resp.sig_len = PROTO_SIG_MAX + 1;
	CHECK(enc_resp(&s.resp) == BAD);
	s = sample_named("sign-response-raw");
	s.resp.sig_len = PROTO_SIG_RAW_LEN - 1;
	CHECK(enc_resp(&s.resp) == BAD);

	s = sample_named("verify-response");
	s.resp.valid = 2; /* any non-zero is valid, encoded as 1 */
	CHECK(enc_resp(&s.resp) == 0 && enc_buf[PROTO_LEN_PREFIX + PROTO_HEADER_LEN] == 1);

	s = sample_named("status-response");
	s.resp.json = big;
	s.resp.json_len = PROTO_FRAME_MAX - PROTO_HEADER_LEN;
	CHECK(enc_resp(&s.resp) == 0);
	s.resp.json_len++;
	CHECK(enc_resp(&s.resp) == BAD);

	s = sample_named("certificate-response");
	s.resp.cert_len = 0;
	CHECK(enc_resp(&s.resp) == BAD);
	s.resp.cert = (const uint8_t *)big;
	s.resp.cert_len = PROTO_CERT_MAX;
	CHECK(enc_resp(&s.resp) == 0);
	s.resp.cert_len++;
	CHECK(enc_resp(&s.resp) == BAD);
}

/* Each sample needs a buffer of its full size: every smaller one is refused. */
static void test_small_buffers(void)
{
	static uint8_t buf[FRAME_BUF];

	for (size_t i = 0; i < n_samples; i++) {
		size_t len = 0, len2 = 0;

		test_case = samples[i].name;
		CHECK(sample_encode(&samples[i], buf, sizeof(buf), &len) == 0);
		CHECK(sample_encode(&samples[i], buf, len, &len2) == 0 && len2 == len);
		for (size_t cap = 0; cap < len; cap++)
			CHECK(sample_encode(&samples[i], buf, cap, &len2) == BAD);
	}
}

static void test_names(void)
{
	struct proto_key k;
	char long_name[PROTO_NAME_MAX + 2];

	test_case = "names";
	CHECK(proto_name_valid("release", 7));
	CHECK(proto_name_valid("a", 1));
	CHECK(!proto_name_valid("", 0));
	CHECK(!proto_name_valid("a b", 3));
	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	CHECK(!proto_name_valid(long_name, PROTO_NAME_MAX + 1));
	CHECK(proto_name_valid(long_name, PROTO_NAME_MAX));

	memset(&k, 0x5a, sizeof(k));
	CHECK(proto_key_name(&k, "k-1.x_Y") == 0);
	CHECK(k.kind == PROTO_KEY_NAME && k.name_len == 7 && strcmp(k.name, "k-1.x_Y") == 0);
	CHECK(k.id[0] == 0 && k.point[0] == 0);
	CHECK(proto_key_name(&k, long_name) == -PROTO_E_BAD_KEY_SELECTOR);
	CHECK(proto_key_name(&k, "") == -PROTO_E_BAD_KEY_SELECTOR);
	CHECK(proto_key_name(&k, "a/b") == -PROTO_E_BAD_KEY_SELECTOR);
	CHECK(strcmp(k.name, "k-1.x_Y") == 0); /* untouched by a refusal */
	long_name[PROTO_NAME_MAX] = '\0';
	CHECK(proto_key_name(&k, long_name) == 0 && k.name_len == PROTO_NAME_MAX);
}

static void test_error_table(void)
{
	struct proto_response resp;

	test_case = "error table";
	for (uint16_t code = 1; code <= PROTO_E_MAX; code++) {
		const char *text = proto_error_text(code);

		CHECK(strcmp(proto_error_tag(code), "unknown-error") != 0);
		CHECK(strlen(text) > 0 && strlen(text) <= PROTO_TEXT_MAX);
		for (uint16_t other = 1; other < code; other++)
			CHECK(strcmp(proto_error_tag(code), proto_error_tag(other)) != 0);
		CHECK(proto_error_closes(code) == (code == PROTO_E_BAD_FRAME ||
		    code == PROTO_E_UNSUPPORTED_VERSION || code == PROTO_E_FRAME_TOO_LARGE ||
		    code == PROTO_E_TOO_MANY_CONNECTIONS));
		proto_error_response(&resp, 77, code);
		CHECK(resp.h.version == PROTO_VERSION && resp.h.type == PROTO_ERROR &&
		    resp.h.flags == 0 && resp.h.id == 77 && resp.error == code);
		CHECK(resp.text_len == strlen(text) && memcmp(resp.text, text, resp.text_len) == 0);
		CHECK(enc_resp(&resp) == 0);
	}
	CHECK(strcmp(proto_error_tag(0), "unknown-error") == 0);
	CHECK(strcmp(proto_error_tag(PROTO_E_MAX + 1), "unknown-error") == 0);
	CHECK(strcmp(proto_error_text(0xffff), "unknown error") == 0);
	CHECK(proto_error_closes(0) == 0 && proto_error_closes(0xffff) == 0);
	CHECK(strcmp(proto_error_tag(PROTO_E_UNKNOWN_KEY), "unknown-key") == 0);
}

int main(void)
{
	test_case = "samples";
	CHECK(sample_values_init(&values) == 0);
	CHECK(samples_init(&values, samples, MAX_SAMPLES, &n_samples) == 0);
	if (test_failures != 0)
		return 1;
	test_round_trips();
	test_truncations();
	test_trailing();
	test_header();
	test_types();
	test_selectors();
	test_formats_and_digests();
	test_lengths();
	test_reading_order();
	test_frame_lengths();
	test_response_refusals();
	test_request_encoder_refusals();
	test_response_encoder_refusals();
	test_small_buffers();
	test_names();
	test_error_table();
	if (test_failures != 0)
		fprintf(stderr, "%d check(s) failed\n", test_failures);
	return test_failures != 0;
}
