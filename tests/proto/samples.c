/* SPDX-License-Identifier: ISC */
/* The protocol's sample messages, shared by the codec test and the documentation test. */
#include "samples.h"

#include <string.h>

#include <openssl/evp.h>

#include "p256.h"

/* RFC 6979 appendix A.2.5: P-256 key, and the SHA-256 signature of "sample". */
static const char rfc_d[] = "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721";
static const char rfc_point[] = "04"
	"60fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6"
	"7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299";
static const char rfc_raw[] =
	"efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716"
	"f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8";
static const char rfc_der[] = "3046"
	"022100efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716"
	"022100f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8";
static const char message[] = "sample";
static const uint8_t cert_der[] = { 0x30, 0x03, 0x02, 0x01, 0x01 };
static const char status_json[] = "{\"version\":\"0.1.0\",\"uptime_s\":42,\"workers\":2,"
	"\"workers_alive\":2,\"workers_replaced\":0,\"workers_hung\":0,\"requests_resent\":0,\"key_set\":1,"
	"\"connections\":1,\"connections_total\":1,\"requests\":9,\"signatures\":3,"
	"\"precomputed_signatures\":0,\"inflight\":0,\"at_workers\":0,\"stopping\":false,"
	"\"max_frame_bytes\":65536,\"errors\":{\"unknown-key\":1},\"latency\":{\"bounds_us\":[25,"
	"50,100,250,500,1000,2500,5000,10000,25000,50000,100000,250000,1000000],"
	"\"ops\":{\"frame\":{\"buckets\":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],\"sum_us\":0,"
	"\"errors\":0},\"ping\":{\"buckets\":[1,0,0,0,0,0,0,0,0,0,0,0,0,0,0],\"sum_us\":11,"
	"\"errors\":0},\"sign\":{\"buckets\":[1,0,0,2,0,0,0,0,0,0,0,0,0,0,0],\"sum_us\":362,"
	"\"errors\":1},\"sign-message\":{\"buckets\":[0,0,0,1,0,0,0,0,0,0,0,0,0,0,0],"
	"\"sum_us\":190,\"errors\":0},\"pubkey\":{\"buckets\":[1,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"
	"\"sum_us\":9,\"errors\":0},\"verify\":{\"buckets\":[0,0,1,0,0,0,0,0,0,0,0,0,0,0,0],"
	"\"sum_us\":85,\"errors\":0},\"list-keys\":{\"buckets\":[0,1,0,0,0,0,0,0,0,0,0,0,0,0,0],"
	"\"sum_us\":30,\"errors\":0},\"status\":{\"buckets\":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"
	"\"sum_us\":0,\"errors\":0},\"sign-tls\":{\"buckets\":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"
	"\"sum_us\":0,\"errors\":0},\"certificate\":{\"buckets\":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
	"0],\"sum_us\":0,\"errors\":0}}},\"log_lines_dropped\":0,\"audit\":\"not configured\"}";
static const char list_json[] = "{\"keys\":[{\"name\":\"release\",\"key_id\":\"5a7a\","
	"\"public_key\":\"04\",\"nonce\":\"deterministic\",\"verify_after_sign\":true,"
	"\"signatures\":3,\"precomputed_signatures\":0}]}";

static int hex_digit(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

long hex_parse(const char *s, size_t s_len, uint8_t *out, size_t cap)
{
	size_t n = 0;
	int high = -1;

	for (size_t i = 0; i < s_len; i++) {
		int v;

		if (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')
			continue;
		if ((v = hex_digit(s[i])) < 0)
			return -1;
		if (high < 0) {
			high = v;
			continue;
		}
		if (n == cap)
			return -1;
		out[n++] = (uint8_t)(high << 4 | v);
		high = -1;
	}
	return high < 0 ? (long)n : -1;
}

static int hex_exact(const char *s, uint8_t *out, size_t len)
{
	return hex_parse(s, strlen(s), out, len) == (long)len ? 0 : -1;
}

int sample_values_init(struct sample_values *v)
{
	long der_len;

	memset(v, 0, sizeof(*v));
	if (hex_exact(rfc_d, v->d, sizeof(v->d)) != 0 ||
	    hex_exact(rfc_point, v->point, sizeof(v->point)) != 0 ||
	    hex_exact(rfc_raw, v->raw, sizeof(v->raw)) != 0)
		return -1;
	der_len = hex_parse(rfc_der, strlen(rfc_der), v->der, sizeof(v->der));
	if (der_len < 0)
		return -1;
	v->der_len = (size_t)der_len;
	p256_spki(v->point, v->spki);
	if (p256_key_id(v->point, v->key_id) != 0 ||
	    EVP_Digest(message, strlen(message), v->digest, NULL, EVP_sha256(), NULL) != 1)
		return -1;
	return 0;
}

static struct sample *add(struct sample *out, size_t cap, size_t *n, const char *name, int in_doc,
	int is_request, uint8_t type, uint32_t id)
{
	struct sample *s;

	if (*n == cap)
		return NULL;
	s = &out[(*n)++];
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->in_doc = in_doc;
	s->is_request = is_request;
	if (is_request) {
		s->req.h = (struct proto_header){ PROTO_VERSION, type, 0, id };
	} else {
		s->resp.h = (struct proto_header){ PROTO_VERSION, type, 0, id };
	}
	return s;
}

static void set_sig(struct proto_response *r, const struct sample_values *v, uint8_t format)
{
	r->format = format;
	r->sig_len = format == PROTO_FORMAT_DER ? v->der_len : sizeof(v->raw);
	memcpy(r->sig, format == PROTO_FORMAT_DER ? v->der : v->raw, r->sig_len);
}

int samples_init(const struct sample_values *v, struct sample *out, size_t cap, size_t *n)
{
	struct sample *s;

	*n = 0;
	/* The documented examples, in the order of docs/protocol.md. */
	if (!add(out, cap, n, "ping-request", 1, 1, PROTO_PING, 1) ||
	    !add(out, cap, n, "ping-response", 1, 0, PROTO_PING | PROTO_RESPONSE, 1))
		return -1;
	if (!(s = add(out, cap, n, "sign-request-name-der", 1, 1, PROTO_SIGN, 2)) ||
	    proto_key_name(&s->req.key, "release") != 0)
		return -1;
	s->req.format = PROTO_FORMAT_DER;
	memcpy(s->req.digest, v->digest, sizeof(v->digest));
	if (!(s = add(out, cap, n, "sign-response-der", 1, 0, PROTO_SIGN | PROTO_RESPONSE, 2)))
		return -1;
	set_sig(&s->resp, v, PROTO_FORMAT_DER);
	if (!(s = add(out, cap, n, "sign-request-keyid-raw", 1, 1, PROTO_SIGN, 3)))
		return -1;
	s->req.key.kind = PROTO_KEY_ID;
	memcpy(s->req.key.id, v->key_id, sizeof(v->key_id));
	s->req.format = PROTO_FORMAT_RAW;
	memcpy(s->req.digest, v->digest, sizeof(v->digest));
	if (!(s = add(out, cap, n, "sign-response-raw", 1, 0, PROTO_SIGN | PROTO_RESPONSE, 3)))
		return -1;
	set_sig(&s->resp, v, PROTO_FORMAT_RAW);
	if (!(s = add(out, cap, n, "sign-message-request", 1, 1, PROTO_SIGN_MESSAGE, 4)) ||
	    proto_key_name(&s->req.key, "release") != 0)
		return -1;
	s->req.format = PROTO_FORMAT_DER;
	s->req.message = (const uint8_t *)message;
	s->req.message_len = strlen(message);
	if (!(s = add(out, cap, n, "sign-message-response", 1, 0,
	    PROTO_SIGN_MESSAGE | PROTO_RESPONSE, 4)))
		return -1;
	set_sig(&s->resp, v, PROTO_FORMAT_DER);
	if (!(s = add(out, cap, n, "pubkey-request", 1, 1, PROTO_PUBKEY, 5)) ||
	    proto_key_name(&s->req.key, "release") != 0)
		return -1;
	if (!(s = add(out, cap, n, "pubkey-response", 1, 0, PROTO_PUBKEY | PROTO_RESPONSE, 5)))
		return -1;
	memcpy(s->resp.key_id, v->key_id, sizeof(v->key_id));
	memcpy(s->resp.point, v->point, sizeof(v->point));
	memcpy(s->resp.spki, v->spki, sizeof(v->spki));
	if (!(s = add(out, cap, n, "verify-request-point", 1, 1, PROTO_VERIFY, 6)))
		return -1;
	s->req.key.kind = PROTO_KEY_POINT;
	memcpy(s->req.key.point, v->point, sizeof(v->point));
	s->req.format = PROTO_FORMAT_DER;
	memcpy(s->req.digest, v->digest, sizeof(v->digest));
	memcpy(s->req.sig, v->der, v->der_len);
	s->req.sig_len = v->der_len;
	if (!(s = add(out, cap, n, "verify-response", 1, 0, PROTO_VERIFY | PROTO_RESPONSE, 6)))
		return -1;
	s->resp.valid = 1;
	if (!add(out, cap, n, "list-keys-request", 1, 1, PROTO_LIST_KEYS, 7) ||
	    !add(out, cap, n, "status-request", 1, 1, PROTO_STATUS, 8))
		return -1;
	if (!(s = add(out, cap, n, "status-response", 1, 0, PROTO_STATUS | PROTO_RESPONSE, 8)))
		return -1;
	s->resp.json = status_json;
	s->resp.json_len = strlen(status_json);
	if (!(s = add(out, cap, n, "error-unknown-key", 1, 0, PROTO_ERROR, 9)))
		return -1;
	proto_error_response(&s->resp, 9, PROTO_E_UNKNOWN_KEY);

	/* Further shapes, for the round trips only. */
	if (!(s = add(out, cap, n, "verify-request-keyid-raw", 0, 1, PROTO_VERIFY, 10)))
		return -1;
	s->req.key.kind = PROTO_KEY_ID;
	memcpy(s->req.key.id, v->key_id, sizeof(v->key_id));
	s->req.format = PROTO_FORMAT_RAW;
	memcpy(s->req.digest, v->digest, sizeof(v->digest));
	memcpy(s->req.sig, v->raw, sizeof(v->raw));
	s->req.sig_len = sizeof(v->raw);
	if (!(s = add(out, cap, n, "pubkey-request-keyid", 0, 1, PROTO_PUBKEY, 11)))
		return -1;
	s->req.key.kind = PROTO_KEY_ID;
	memcpy(s->req.key.id, v->key_id, sizeof(v->key_id));
	if (!(s = add(out, cap, n, "sign-message-request-empty", 0, 1, PROTO_SIGN_MESSAGE,
	    0xffffffff)) || proto_key_name(&s->req.key, "A.b_c-9") != 0)
		return -1;
	s->req.format = PROTO_FORMAT_RAW;
	if (!(s = add(out, cap, n, "verify-response-invalid", 0, 0, PROTO_VERIFY | PROTO_RESPONSE,
	    12)))
		return -1;
	if (!(s = add(out, cap, n, "list-keys-response", 0, 0, PROTO_LIST_KEYS | PROTO_RESPONSE,
	    7)))
		return -1;
	s->resp.json = list_json;
	s->resp.json_len = strlen(list_json);
	if (!(s = add(out, cap, n, "error-unknown-code-empty-text", 0, 0, PROTO_ERROR, 0)))
		return -1;
	s->resp.error = 0xfffe;
	if (!(s = add(out, cap, n, "sign-tls-response", 0, 0, PROTO_SIGN_TLS | PROTO_RESPONSE, 14)))
		return -1;
	set_sig(&s->resp, v, PROTO_FORMAT_RAW);

	/* Documented after the others (section 10 of docs/protocol.md, from VERIFY on). */
	if (!(s = add(out, cap, n, "verify-request-compressed", 1, 1, PROTO_VERIFY, 15)))
		return -1;
	s->req.key.kind = PROTO_KEY_POINT_COMPRESSED;
	if (p256_point_compress(v->point, s->req.key.point) != 0)
		return -1;
	s->req.format = PROTO_FORMAT_RAW;
	memcpy(s->req.digest, v->digest, sizeof(v->digest));
	memcpy(s->req.sig, v->raw, sizeof(v->raw));
	s->req.sig_len = sizeof(v->raw);
	if (!(s = add(out, cap, n, "sign-tls13-request", 1, 1, PROTO_SIGN_TLS, 16)) ||
	    proto_key_name(&s->req.key, "release") != 0)
		return -1;
	s->req.format = PROTO_FORMAT_DER;
	s->req.tls = (struct proto_tls){ .kind = PROTO_TLS13_CERTIFICATE_VERIFY,
		.side = PROTO_TLS_SERVER, .hash_len = 32 };
	memcpy(s->req.tls.hash, v->digest, s->req.tls.hash_len);	/* any 32 bytes */
	if (!(s = add(out, cap, n, "sign-tls12-request", 1, 1, PROTO_SIGN_TLS, 17)))
		return -1;
	s->req.key.kind = PROTO_KEY_ID;
	memcpy(s->req.key.id, v->key_id, sizeof(v->key_id));
	s->req.format = PROTO_FORMAT_RAW;
	s->req.tls = (struct proto_tls){ .kind = PROTO_TLS12_SERVER_KEY_EXCHANGE,
		.side = PROTO_TLS_SERVER, .params_len = 36,
		.params = { 3, 0, 29, 32, 0x09 } };	/* x25519, its base point u = 9 */
	for (size_t i = 0; i < sizeof(s->req.tls.client_random); i++) {
		s->req.tls.client_random[i] = (uint8_t)i;
		s->req.tls.server_random[i] = (uint8_t)(0x20 + i);
	}
	if (!(s = add(out, cap, n, "certificate-request", 1, 1, PROTO_CERTIFICATE, 18)) ||
	    proto_key_name(&s->req.key, "release") != 0)
		return -1;
	if (!(s = add(out, cap, n, "error-no-certificate", 1, 0, PROTO_ERROR, 18)))
		return -1;
	proto_error_response(&s->resp, 18, PROTO_E_NO_CERTIFICATE);
	/* The codec carries the DER as bytes: any will do for the round trip. */
	if (!(s = add(out, cap, n, "certificate-response", 0, 0,
	    PROTO_CERTIFICATE | PROTO_RESPONSE, 19)))
		return -1;
	memcpy(s->resp.key_id, v->key_id, sizeof(v->key_id));
	s->resp.cert = cert_der;
	s->resp.cert_len = sizeof(cert_der);
	return 0;
}

static int header_equal(const struct proto_header *a, const struct proto_header *b)
{
	return a->version == b->version && a->type == b->type && a->flags == b->flags &&
	    a->id == b->id;
}

static int key_equal(const struct proto_key *a, const struct proto_key *b)
{
	if (a->kind != b->kind)
		return 0;
	switch (a->kind) {
	case PROTO_KEY_NAME:
		return a->name_len == b->name_len && memcmp(a->name, b->name, a->name_len) == 0;
	case PROTO_KEY_ID:
		return memcmp(a->id, b->id, sizeof(a->id)) == 0;
	case PROTO_KEY_POINT:
	case PROTO_KEY_POINT_COMPRESSED:
		return memcmp(a->point, b->point, sizeof(a->point)) == 0;
	default:
		return 0;
	}
}

static int bytes_equal(const void *a, size_t a_len, const void *b, size_t b_len)
{
	return a_len == b_len && (a_len == 0 || memcmp(a, b, a_len) == 0);
}

int request_equal(const struct proto_request *a, const struct proto_request *b)
{
	if (!header_equal(&a->h, &b->h))
		return 0;
	switch (a->h.type) {
	case PROTO_SIGN:
		return key_equal(&a->key, &b->key) && a->format == b->format &&
		    memcmp(a->digest, b->digest, sizeof(a->digest)) == 0;
	case PROTO_SIGN_MESSAGE:
		return key_equal(&a->key, &b->key) && a->format == b->format &&
		    bytes_equal(a->message, a->message_len, b->message, b->message_len);
	case PROTO_PUBKEY:
		return key_equal(&a->key, &b->key);
	case PROTO_SIGN_TLS:
		return key_equal(&a->key, &b->key) && a->format == b->format &&
		    memcmp(&a->tls, &b->tls, sizeof(a->tls)) == 0;
	case PROTO_VERIFY:
		return key_equal(&a->key, &b->key) && a->format == b->format &&
		    memcmp(a->digest, b->digest, sizeof(a->digest)) == 0 &&
		    bytes_equal(a->sig, a->sig_len, b->sig, b->sig_len);
	default:
		return 1; /* empty bodies */
	}
}

int response_equal(const struct proto_response *a, const struct proto_response *b)
{
	if (!header_equal(&a->h, &b->h))
		return 0;
	if (a->h.type == PROTO_ERROR)
		return a->error == b->error && bytes_equal(a->text, a->text_len, b->text, b->text_len);
	switch (a->h.type & ~PROTO_RESPONSE) {
	case PROTO_SIGN:
	case PROTO_SIGN_MESSAGE:
		return a->format == b->format && bytes_equal(a->sig, a->sig_len, b->sig, b->sig_len);
	case PROTO_PUBKEY:
		return memcmp(a->key_id, b->key_id, sizeof(a->key_id)) == 0 &&
		    memcmp(a->point, b->point, sizeof(a->point)) == 0 &&
		    memcmp(a->spki, b->spki, sizeof(a->spki)) == 0;
	case PROTO_VERIFY:
		return a->valid == b->valid;
	case PROTO_LIST_KEYS:
	case PROTO_STATUS:
		return bytes_equal(a->json, a->json_len, b->json, b->json_len);
	default:
		return 1; /* PING */
	}
}

int sample_encode(const struct sample *s, uint8_t *buf, size_t cap, size_t *len)
{
	return s->is_request ? proto_encode_request(&s->req, buf, cap, len) :
	    proto_encode_response(&s->resp, buf, cap, len);
}
