/* SPDX-License-Identifier: ISC */
/* Encoding and decoding of protocol version 1 frames (docs/protocol.md). */
#include "proto.h"

#include <string.h>

#include "cursor.h"

#define BAD (-PROTO_E_BAD_FRAME)

int proto_frame_length(const uint8_t prefix[PROTO_LEN_PREFIX], uint32_t *len)
{
	struct cursor c;
	uint32_t n;

	cursor_init(&c, prefix, PROTO_LEN_PREFIX);
	if (cursor_get_u32(&c, &n) != 0)
		return BAD;
	if (n > PROTO_FRAME_MAX)
		return -PROTO_E_FRAME_TOO_LARGE;
	if (n < PROTO_HEADER_LEN)
		return BAD;
	*len = n;
	return 0;
}

static int name_char_ok(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	    ch == '.' || ch == '_' || ch == '-';
}

int proto_name_valid(const char *name, size_t len)
{
	if (len == 0 || len > PROTO_NAME_MAX)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!name_char_ok(name[i]))
			return 0;
	return 1;
}

int proto_key_name(struct proto_key *k, const char *name)
{
	size_t len = strnlen(name, PROTO_NAME_MAX + 1);

	if (!proto_name_valid(name, len))
		return -PROTO_E_BAD_KEY_SELECTOR;
	memset(k, 0, sizeof(*k));
	k->kind = PROTO_KEY_NAME;
	k->name_len = (uint8_t)len;
	memcpy(k->name, name, len);
	return 0;
}

static int get_header(struct cursor *c, struct proto_header *h)
{
	if (cursor_get_u8(c, &h->version) != 0 || cursor_get_u8(c, &h->type) != 0 ||
	    cursor_get_u16(c, &h->flags) != 0 || cursor_get_u32(c, &h->id) != 0)
		return BAD;
	if (h->version != PROTO_VERSION)
		return -PROTO_E_UNSUPPORTED_VERSION;
	if (h->flags != 0)
		return -PROTO_E_BAD_FLAGS;
	return 0;
}

static void put_header(struct builder *b, const struct proto_header *h)
{
	builder_put_u8(b, h->version);
	builder_put_u8(b, h->type);
	builder_put_u16(b, h->flags);
	builder_put_u32(b, h->id);
}

/* The bytes of an explicit point selector of kind `kind`, or 0 if it is not one. */
static size_t point_len(uint8_t kind)
{
	return kind == PROTO_KEY_POINT ? PROTO_POINT_LEN :
	    kind == PROTO_KEY_POINT_COMPRESSED ? PROTO_POINT_COMPRESSED_LEN : 0;
}

/*
 * A key selector: its kind, then a length (names) before the contents, so that a name length no
 * name has is bad-key-selector however many bytes follow. Whether a point is on the curve is for
 * the daemon to say (bad-point), not the codec.
 */
static int get_key(struct cursor *c, struct proto_key *k, int point_allowed)
{
	const uint8_t *p;

	if (cursor_get_u8(c, &k->kind) != 0)
		return BAD;
	switch (k->kind) {
	case PROTO_KEY_NAME:
		if (cursor_get_u8(c, &k->name_len) != 0)
			return BAD;
		if (k->name_len == 0 || k->name_len > PROTO_NAME_MAX)
			return -PROTO_E_BAD_KEY_SELECTOR;
		if (cursor_get_bytes(c, &p, k->name_len) != 0)
			return BAD;
		if (!proto_name_valid((const char *)p, k->name_len))
			return -PROTO_E_BAD_KEY_SELECTOR;
		memcpy(k->name, p, k->name_len);
		k->name[k->name_len] = '\0';
		return 0;
	case PROTO_KEY_ID:
		return cursor_copy(c, k->id, sizeof(k->id)) == 0 ? 0 : BAD;
	case PROTO_KEY_POINT:
	case PROTO_KEY_POINT_COMPRESSED:
		if (!point_allowed)
			return -PROTO_E_BAD_KEY_SELECTOR;
		return cursor_copy(c, k->point, point_len(k->kind)) == 0 ? 0 : BAD;
	default:
		return -PROTO_E_BAD_KEY_SELECTOR;
	}
}

static int put_key(struct builder *b, const struct proto_key *k)
{
	builder_put_u8(b, k->kind);
	switch (k->kind) {
	case PROTO_KEY_NAME:
		if (!proto_name_valid(k->name, k->name_len))
			return BAD;
		builder_put_u8(b, k->name_len);
		builder_put_bytes(b, k->name, k->name_len);
		return 0;
	case PROTO_KEY_ID:
		builder_put_bytes(b, k->id, sizeof(k->id));
		return 0;
	case PROTO_KEY_POINT:
	case PROTO_KEY_POINT_COMPRESSED:
		builder_put_bytes(b, k->point, point_len(k->kind));
		return 0;
	default:
		return BAD;
	}
}

static int get_format(struct cursor *c, uint8_t *format)
{
	if (cursor_get_u8(c, format) != 0)
		return BAD;
	return *format <= PROTO_FORMAT_RAW ? 0 : -PROTO_E_BAD_FORMAT;
}

static int get_digest(struct cursor *c, uint8_t digest[PROTO_DIGEST_LEN])
{
	uint8_t n;

	if (cursor_get_u8(c, &n) != 0)
		return BAD;
	if (n != PROTO_DIGEST_LEN)
		return -PROTO_E_BAD_DIGEST_LENGTH;
	return cursor_copy(c, digest, PROTO_DIGEST_LEN) == 0 ? 0 : BAD;
}

/* The length rule of every signature field: raw is exactly 64 bytes, DER at most 72. */
static int sig_len_ok(uint8_t format, size_t len)
{
	return format == PROTO_FORMAT_RAW ? len == PROTO_SIG_RAW_LEN : len <= PROTO_SIG_MAX;
}

/* A VERIFY signature field: u16 length, then the bytes. */
static int get_signature(struct cursor *c, uint8_t format, uint8_t *sig, size_t *sig_len)
{
	struct cursor s;

	if (cursor_get_u16_prefixed(c, &s) != 0)
		return BAD;
	if (!sig_len_ok(format, cursor_left(&s)))
		return -PROTO_E_BAD_SIGNATURE;
	*sig_len = cursor_left(&s);
	return cursor_copy(&s, sig, *sig_len) == 0 ? 0 : BAD;
}

/*
 * A SIGN_TLS body after the format: u8 kind; TLS 1.3: u8 side, u8 hash length, the hash; TLS 1.2:
 * client_random, server_random, u8-prefixed ServerECDHParams. Each field is judged as it is read,
 * so the side and the hash length before the hash; the ServerECDHParams' structure
 * (proto_tls_check) once all its bytes are there.
 */
static int get_tls(struct cursor *c, struct proto_tls *t)
{
	struct cursor p;

	if (cursor_get_u8(c, &t->kind) != 0)
		return BAD;
	switch (t->kind) {
	case PROTO_TLS13_CERTIFICATE_VERIFY:
		if (cursor_get_u8(c, &t->side) != 0)
			return BAD;
		if (t->side > PROTO_TLS_CLIENT)
			return -PROTO_E_BAD_TLS_CONTENT;
		/* kind 1's check needs nothing after the hash length */
		if (cursor_get_u8(c, &t->hash_len) != 0)
			return BAD;
		if (proto_tls_check(t) != 0)
			return -PROTO_E_BAD_TLS_CONTENT;
		if (cursor_copy(c, t->hash, t->hash_len) != 0)
			return BAD;
		break;
	case PROTO_TLS12_SERVER_KEY_EXCHANGE:
		if (cursor_copy(c, t->client_random, sizeof(t->client_random)) != 0 ||
		    cursor_copy(c, t->server_random, sizeof(t->server_random)) != 0 ||
		    cursor_get_u8(c, &t->params_len) != 0)
			return BAD;
		if (t->params_len > sizeof(t->params))
			return -PROTO_E_BAD_TLS_CONTENT;
		if (cursor_get_sub(c, &p, t->params_len) != 0 ||
		    cursor_copy(&p, t->params, t->params_len) != 0)
			return BAD;
		break;
	default:
		return -PROTO_E_BAD_TLS_CONTENT;
	}
	return proto_tls_check(t);
}

static void put_tls(struct builder *b, const struct proto_tls *t)
{
	builder_put_u8(b, t->kind);
	if (t->kind == PROTO_TLS13_CERTIFICATE_VERIFY) {
		builder_put_u8(b, t->side);
		builder_put_u8(b, t->hash_len);
		builder_put_bytes(b, t->hash, t->hash_len);
		return;
	}
	builder_put_bytes(b, t->client_random, sizeof(t->client_random));
	builder_put_bytes(b, t->server_random, sizeof(t->server_random));
	builder_put_u8(b, t->params_len);
	builder_put_bytes(b, t->params, t->params_len);
}

static int get_request_body(struct cursor *c, struct proto_request *req)
{
	struct cursor m;
	int r;

	switch (req->h.type) {
	case PROTO_PING:
	case PROTO_LIST_KEYS:
	case PROTO_STATUS:
		return 0;
	case PROTO_SIGN:
		if ((r = get_key(c, &req->key, 0)) != 0 || (r = get_format(c, &req->format)) != 0)
			return r;
		return get_digest(c, req->digest);
	case PROTO_SIGN_MESSAGE:
		if ((r = get_key(c, &req->key, 0)) != 0 || (r = get_format(c, &req->format)) != 0)
			return r;
		if (cursor_get_u16_prefixed(c, &m) != 0)
			return BAD;
		if (cursor_left(&m) > PROTO_MESSAGE_MAX)
			return -PROTO_E_MESSAGE_TOO_LARGE;
		req->message_len = cursor_left(&m);
		return cursor_get_bytes(&m, &req->message, req->message_len) == 0 ? 0 : BAD;
	case PROTO_PUBKEY:
	case PROTO_CERTIFICATE:
		return get_key(c, &req->key, 0);
	case PROTO_SIGN_TLS:
		if ((r = get_key(c, &req->key, 0)) != 0 || (r = get_format(c, &req->format)) != 0)
			return r;
		return get_tls(c, &req->tls);
	case PROTO_VERIFY:
		if ((r = get_key(c, &req->key, 1)) != 0 || (r = get_format(c, &req->format)) != 0 ||
		    (r = get_digest(c, req->digest)) != 0)
			return r;
		return get_signature(c, req->format, req->sig, &req->sig_len);
	default:
		return -PROTO_E_UNKNOWN_TYPE;
	}
}

/* What every decoded frame starts with: its size checked, then its header read. */
static int start_frame(const uint8_t *frame, size_t len, struct cursor *c, struct proto_header *h)
{
	if (len > PROTO_FRAME_MAX)
		return -PROTO_E_FRAME_TOO_LARGE;
	cursor_init(c, frame, len);
	return get_header(c, h);
}

int proto_decode_request(const uint8_t *frame, size_t len, struct proto_request *req)
{
	struct cursor c;
	int r;

	memset(req, 0, sizeof(*req));
	if ((r = start_frame(frame, len, &c, &req->h)) != 0 || (r = get_request_body(&c, req)) != 0)
		return r;
	return cursor_end(&c) == 0 ? 0 : BAD;
}

static int put_request_body(struct builder *b, const struct proto_request *req)
{
	int r;

	switch (req->h.type) {
	case PROTO_PING:
	case PROTO_LIST_KEYS:
	case PROTO_STATUS:
		return 0;
	case PROTO_SIGN:
	case PROTO_SIGN_MESSAGE:
	case PROTO_VERIFY:
		if ((point_len(req->key.kind) != 0 && req->h.type != PROTO_VERIFY) ||
		    req->format > PROTO_FORMAT_RAW || (r = put_key(b, &req->key)) != 0)
			return BAD;
		builder_put_u8(b, req->format);
		if (req->h.type == PROTO_SIGN_MESSAGE) {
			if (req->message_len > PROTO_MESSAGE_MAX)
				return BAD;
			builder_put_u16(b, (uint16_t)req->message_len);
			builder_put_bytes(b, req->message, req->message_len);
			return 0;
		}
		builder_put_u8(b, PROTO_DIGEST_LEN);
		builder_put_bytes(b, req->digest, PROTO_DIGEST_LEN);
		if (req->h.type == PROTO_VERIFY) {
			if (!sig_len_ok(req->format, req->sig_len))
				return BAD;
			builder_put_u16(b, (uint16_t)req->sig_len);
			builder_put_bytes(b, req->sig, req->sig_len);
		}
		return 0;
	case PROTO_PUBKEY:
	case PROTO_CERTIFICATE:
		return point_len(req->key.kind) != 0 ? BAD : put_key(b, &req->key);
	case PROTO_SIGN_TLS:
		if (point_len(req->key.kind) != 0 || req->format > PROTO_FORMAT_RAW ||
		    proto_tls_check(&req->tls) != 0 || (r = put_key(b, &req->key)) != 0)
			return BAD;
		builder_put_u8(b, req->format);
		put_tls(b, &req->tls);
		return 0;
	default:
		return BAD;
	}
}

/* Patches the length prefix of a frame built as prefix, header, body. */
static int finish_frame(struct builder *b, size_t *out_len)
{
	size_t len;

	if (builder_finish(b, &len) != 0 || len - PROTO_LEN_PREFIX > PROTO_FRAME_MAX)
		return BAD;
	builder_patch_u32(b, 0, (uint32_t)(len - PROTO_LEN_PREFIX));
	return builder_finish(b, out_len) != 0 ? BAD : 0;	/* the patch's error, if any */
}

/* What every encoded frame starts with: a length prefix patched by finish_frame, the header. */
static int start_build(struct builder *b, uint8_t *buf, size_t cap, const struct proto_header *h)
{
	if (h->version != PROTO_VERSION || h->flags != 0)
		return BAD;
	builder_init(b, buf, cap);
	builder_put_u32(b, 0);
	put_header(b, h);
	return 0;
}

int proto_encode_request(const struct proto_request *req, uint8_t *buf, size_t cap, size_t *out_len)
{
	struct builder b;
	int r;

	if ((r = start_build(&b, buf, cap, &req->h)) != 0 || (r = put_request_body(&b, req)) != 0)
		return r;
	return finish_frame(&b, out_len);
}

/* Points *p at all the bytes left in c and consumes them. */
static int get_rest(struct cursor *c, const char **p, size_t *len)
{
	const uint8_t *rest;
	size_t n = cursor_left(c);

	if (cursor_get_bytes(c, &rest, n) != 0)
		return BAD;
	*p = (const char *)rest;
	*len = n;
	return 0;
}

/* A CERTIFICATE answer: the key id, then the u16-prefixed DER of 1 .. PROTO_CERT_MAX bytes. */
static int get_certificate(struct cursor *c, struct proto_response *resp)
{
	struct cursor d;

	if (cursor_copy(c, resp->key_id, sizeof(resp->key_id)) != 0 ||
	    cursor_get_u16_prefixed(c, &d) != 0 || cursor_left(&d) == 0 ||
	    cursor_left(&d) > PROTO_CERT_MAX)
		return BAD;
	resp->cert_len = cursor_left(&d);
	return cursor_get_bytes(&d, &resp->cert, resp->cert_len) == 0 ? 0 : BAD;
}

static int get_response_body(struct cursor *c, struct proto_response *resp)
{
	struct cursor t;
	uint8_t n;

	if (resp->h.type == PROTO_ERROR) {
		if (cursor_get_u16(c, &resp->error) != 0 || resp->error == 0 ||
		    cursor_get_u16_prefixed(c, &t) != 0 || cursor_left(&t) > PROTO_TEXT_MAX)
			return BAD;
		return get_rest(&t, &resp->text, &resp->text_len);
	}
	switch (resp->h.type & ~PROTO_RESPONSE) {
	case PROTO_PING:
		return 0;
	case PROTO_SIGN:
	case PROTO_SIGN_MESSAGE:
	case PROTO_SIGN_TLS:
		if (get_format(c, &resp->format) != 0 || cursor_get_u8(c, &n) != 0 ||
		    !sig_len_ok(resp->format, n) || cursor_copy(c, resp->sig, n) != 0)
			return BAD;
		resp->sig_len = n;
		return 0;
	case PROTO_PUBKEY:
		if (cursor_copy(c, resp->key_id, sizeof(resp->key_id)) != 0 ||
		    cursor_copy(c, resp->point, sizeof(resp->point)) != 0 ||
		    cursor_copy(c, resp->spki, sizeof(resp->spki)) != 0)
			return BAD;
		return 0;
	case PROTO_CERTIFICATE:
		return get_certificate(c, resp);
	case PROTO_VERIFY:
		if (cursor_get_u8(c, &resp->valid) != 0 || resp->valid > 1)
			return BAD;
		return 0;
	case PROTO_LIST_KEYS:
	case PROTO_STATUS:
		return get_rest(c, &resp->json, &resp->json_len);
	default:
		return -PROTO_E_UNKNOWN_TYPE;
	}
}

int proto_decode_response(const uint8_t *frame, size_t len, struct proto_response *resp)
{
	struct cursor c;
	int r;

	memset(resp, 0, sizeof(*resp));
	if ((r = start_frame(frame, len, &c, &resp->h)) != 0)
		return r;
	if (resp->h.type != PROTO_ERROR && !(resp->h.type & PROTO_RESPONSE))
		return BAD;
	if ((r = get_response_body(&c, resp)) != 0)
		return r;
	return cursor_end(&c) == 0 ? 0 : BAD;
}

static int put_response_body(struct builder *b, const struct proto_response *resp)
{
	if (resp->h.type == PROTO_ERROR) {
		if (resp->error == 0 || resp->text_len > PROTO_TEXT_MAX)
			return BAD;
		builder_put_u16(b, resp->error);
		builder_put_u16(b, (uint16_t)resp->text_len);
		builder_put_bytes(b, resp->text, resp->text_len);
		return 0;
	}
	if (!(resp->h.type & PROTO_RESPONSE))
		return BAD;
	switch (resp->h.type & ~PROTO_RESPONSE) {
	case PROTO_PING:
		return 0;
	case PROTO_SIGN:
	case PROTO_SIGN_MESSAGE:
	case PROTO_SIGN_TLS:
		if (resp->format > PROTO_FORMAT_RAW || !sig_len_ok(resp->format, resp->sig_len))
			return BAD;
		builder_put_u8(b, resp->format);
		builder_put_u8(b, (uint8_t)resp->sig_len);
		builder_put_bytes(b, resp->sig, resp->sig_len);
		return 0;
	case PROTO_PUBKEY:
		builder_put_bytes(b, resp->key_id, sizeof(resp->key_id));
		builder_put_bytes(b, resp->point, sizeof(resp->point));
		builder_put_bytes(b, resp->spki, sizeof(resp->spki));
		return 0;
	case PROTO_CERTIFICATE:
		if (resp->cert_len == 0 || resp->cert_len > PROTO_CERT_MAX)
			return BAD;
		builder_put_bytes(b, resp->key_id, sizeof(resp->key_id));
		builder_put_u16(b, (uint16_t)resp->cert_len);
		builder_put_bytes(b, resp->cert, resp->cert_len);
		return 0;
	case PROTO_VERIFY:
		builder_put_u8(b, resp->valid ? 1 : 0);
		return 0;
	case PROTO_LIST_KEYS:
	case PROTO_STATUS:
		builder_put_bytes(b, resp->json, resp->json_len);
		return 0;
	default:
		return BAD;
	}
}

int proto_encode_response(const struct proto_response *resp, uint8_t *buf, size_t cap,
	size_t *out_len)
{
	struct builder b;
	int r;

	if ((r = start_build(&b, buf, cap, &resp->h)) != 0 || (r = put_response_body(&b, resp)) != 0)
		return r;
	return finish_frame(&b, out_len);
}

const char *proto_type_name(uint8_t type)
{
	switch (type) {
	case PROTO_PING: return "ping";
	case PROTO_SIGN: return "sign";
	case PROTO_SIGN_MESSAGE: return "sign-message";
	case PROTO_PUBKEY: return "pubkey";
	case PROTO_VERIFY: return "verify";
	case PROTO_LIST_KEYS: return "list-keys";
	case PROTO_STATUS: return "status";
	case PROTO_SIGN_TLS: return "sign-tls";
	case PROTO_CERTIFICATE: return "certificate";
	default: return "unknown";
	}
}

void proto_error_response(struct proto_response *resp, uint32_t id, uint16_t code)
{
	memset(resp, 0, sizeof(*resp));
	resp->h.version = PROTO_VERSION;
	resp->h.type = PROTO_ERROR;
	resp->h.id = id;
	resp->error = code;
	resp->text = proto_error_text(code);
	resp->text_len = strlen(resp->text);
}
