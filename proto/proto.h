/* SPDX-License-Identifier: ISC */
#ifndef P256_PROTO_H
#define P256_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "proto-errors.h"
#include "tls.h"

/*
 * The p256sign wire protocol, version 1 (docs/protocol.md is the specification). Shared by the
 * daemon (decode requests, encode responses) and the client library (the reverse). All integers are
 * big-endian. A frame is a u32 length, then that many bytes: an 8-byte header (u8 version, u8 type,
 * u16 flags, u32 request id) and a body that depends on the type. Decoders read only through
 * lib/cursor.h and return 0 or a negative wire error code (-PROTO_E_*), so that the code to send
 * back is simply -r.
 */

#define PROTO_VERSION 1
#define PROTO_LEN_PREFIX 4
#define PROTO_HEADER_LEN 8
#define PROTO_FRAME_MAX 65536		/* the most bytes a length prefix may announce */
#define PROTO_NAME_MAX 64		/* key names: 1..64 of [A-Za-z0-9._-] */
#define PROTO_MESSAGE_MAX 16384		/* SIGN_MESSAGE payload */
#define PROTO_TEXT_MAX 256		/* error text */
#define PROTO_DIGEST_LEN 32
#define PROTO_SIG_MAX 72		/* DER signatures: at most 72 bytes */
#define PROTO_SIG_RAW_LEN 64		/* raw r || s: exactly 64 bytes */
#define PROTO_POINT_LEN 65
#define PROTO_POINT_COMPRESSED_LEN 33
#define PROTO_SPKI_LEN 91
#define PROTO_KEY_ID_LEN 32
#define PROTO_CERT_MAX 16384		/* CERTIFICATE: the most DER bytes of a key's certificate */

/* Message types. A successful response has the request's type with PROTO_RESPONSE set. */
enum proto_type {
	PROTO_PING = 0x01,		/* client -> daemon: empty body */
	PROTO_SIGN = 0x02,		/* client -> daemon: key, format, digest */
	PROTO_SIGN_MESSAGE = 0x03,	/* client -> daemon: key, format, message (SHA-256 by the daemon) */
	PROTO_PUBKEY = 0x04,		/* client -> daemon: key */
	PROTO_VERIFY = 0x05,		/* client -> daemon: key or point, format, digest, signature */
	PROTO_LIST_KEYS = 0x06,		/* client -> daemon: empty body */
	PROTO_STATUS = 0x07,		/* client -> daemon: empty body */
	PROTO_SIGN_TLS = 0x08,		/* client -> daemon: key, format, a handshake's parts (tls.h) */
	PROTO_CERTIFICATE = 0x09,	/* client -> daemon: key */
	PROTO_RESPONSE = 0x80,		/* daemon -> client: bit set on every success response */
	PROTO_ERROR = 0xff,		/* daemon -> client: u16 code, u16-prefixed text */
};

/* Signature encodings. */
enum proto_format {
	PROTO_FORMAT_DER = 0,		/* SEQUENCE { INTEGER r, INTEGER s } */
	PROTO_FORMAT_RAW = 1,		/* r || s, 64 bytes */
};

/* How a request names a key. */
enum proto_key_kind {
	PROTO_KEY_NAME = 1,		/* u8 length, name */
	PROTO_KEY_ID = 2,		/* 32 bytes: SHA-256 of the SubjectPublicKeyInfo */
	PROTO_KEY_POINT = 3,		/* 65 bytes: an explicit SEC 1 uncompressed point (VERIFY only) */
	PROTO_KEY_POINT_COMPRESSED = 4,	/* 33 bytes: an explicit SEC 1 compressed point (VERIFY only) */
};

/* The log name of a request type: "ping", "sign", "sign-message", ..., or "unknown". */
const char *proto_type_name(uint8_t type);

/* 1 when name (len bytes, no NUL needed) is a valid key name: 1..64 of [A-Za-z0-9._-]. */
int proto_name_valid(const char *name, size_t len);

struct proto_header {
	uint8_t version;
	uint8_t type;
	uint16_t flags;			/* reserved: 0 */
	uint32_t id;			/* chosen by the client, echoed in the response */
};

struct proto_key {
	uint8_t kind;			/* enum proto_key_kind */
	uint8_t name_len;
	char name[PROTO_NAME_MAX + 1];	/* NUL-terminated */
	uint8_t id[PROTO_KEY_ID_LEN];
	uint8_t point[PROTO_POINT_LEN];	/* kind 3: 65 bytes; kind 4: the first 33 */
};

/*
 * Sets k to select the key called `name` (a NUL-terminated string, copied): kind, name and
 * name_len, the rest zeroed. 0, or -PROTO_E_BAD_KEY_SELECTOR (k untouched) if the name is invalid.
 */
int proto_key_name(struct proto_key *k, const char *name);

struct proto_request {
	struct proto_header h;
	struct proto_key key;		/* SIGN, SIGN_MESSAGE, PUBKEY, VERIFY, CERTIFICATE */
	uint8_t format;			/* SIGN, SIGN_MESSAGE, VERIFY */
	uint8_t digest[PROTO_DIGEST_LEN]; /* SIGN, VERIFY */
	const uint8_t *message;		/* SIGN_MESSAGE; points into the decoded frame */
	size_t message_len;
	uint8_t sig[PROTO_SIG_MAX];	/* VERIFY */
	size_t sig_len;
	struct proto_tls tls;		/* SIGN_TLS */
};

struct proto_response {
	struct proto_header h;		/* type: request type | PROTO_RESPONSE, or PROTO_ERROR */
	uint16_t error;			/* ERROR */
	const char *text;		/* ERROR; not NUL-terminated; points into the frame when decoded */
	size_t text_len;
	uint8_t format;			/* SIGN, SIGN_MESSAGE */
	uint8_t sig[PROTO_SIG_MAX];
	size_t sig_len;
	uint8_t spki[PROTO_SPKI_LEN];	/* PUBKEY */
	uint8_t point[PROTO_POINT_LEN];
	uint8_t key_id[PROTO_KEY_ID_LEN]; /* PUBKEY, CERTIFICATE */
	const uint8_t *cert;		/* CERTIFICATE: DER, 1 .. PROTO_CERT_MAX bytes; points into
					 * the frame when decoded */
	size_t cert_len;
	uint8_t valid;			/* VERIFY: 1 valid, 0 invalid */
	const char *json;		/* LIST_KEYS, STATUS: UTF-8 JSON, not NUL-terminated */
	size_t json_len;
};

/*
 * Reads a frame's 4-byte length prefix. 0 and *len when PROTO_HEADER_LEN <= *len <=
 * PROTO_FRAME_MAX; -PROTO_E_FRAME_TOO_LARGE above it (the caller closes before buffering the body);
 * -PROTO_E_BAD_FRAME below the header's size.
 */
int proto_frame_length(const uint8_t prefix[PROTO_LEN_PREFIX], uint32_t *len);

/*
 * Decodes a request from the `len` bytes after the length prefix. req->h is filled as soon as the
 * header is read, so an error reply can carry the request id even when the body is refused. Errors:
 * -PROTO_E_FRAME_TOO_LARGE (len over PROTO_FRAME_MAX, nothing read),
 * -PROTO_E_BAD_FRAME, -PROTO_E_UNSUPPORTED_VERSION, -PROTO_E_BAD_FLAGS, -PROTO_E_UNKNOWN_TYPE,
 * -PROTO_E_BAD_KEY_SELECTOR, -PROTO_E_BAD_FORMAT, -PROTO_E_BAD_DIGEST_LENGTH,
 * -PROTO_E_MESSAGE_TOO_LARGE, -PROTO_E_BAD_SIGNATURE, -PROTO_E_BAD_TLS_CONTENT,
 * -PROTO_E_BAD_TLS_POINT: the first fault in reading order, each field's kind or length before
 * its contents, bytes left over last (phase 1 of docs/protocol.md section 7); -PROTO_E_INTERNAL
 * when the point check of a ServerECDHParams has no memory. An explicit point is taken as bytes: whether it is on the curve
 * is for the caller (bad-point). req->message points into frame.
 */
int proto_decode_request(const uint8_t *frame, size_t len, struct proto_request *req);

/*
 * Encodes a whole frame, length prefix included, into buf; *out_len is its size. -PROTO_E_BAD_FRAME
 * if buf is too small or a field is out of range, i.e. whenever the decoder would refuse the frame
 * (a raw VERIFY signature must be 64 bytes). Every frame a decoder accepts encodes back to the
 * same bytes.
 */
int proto_encode_request(const struct proto_request *req, uint8_t *buf, size_t cap, size_t *out_len);

/*
 * The mirror pair for responses; decoded text and json point into frame. The decoder returns
 * -PROTO_E_FRAME_TOO_LARGE, -PROTO_E_UNSUPPORTED_VERSION, -PROTO_E_BAD_FLAGS, -PROTO_E_UNKNOWN_TYPE
 * (a response type it does not know) or -PROTO_E_BAD_FRAME (anything else, including an ERROR with
 * code 0 and a raw signature that is not 64 bytes); the encoder -PROTO_E_BAD_FRAME.
 */
int proto_decode_response(const uint8_t *frame, size_t len, struct proto_response *resp);
int proto_encode_response(const struct proto_response *resp, uint8_t *buf, size_t cap,
	size_t *out_len);

/* Fills resp as an ERROR response to request id `id` with code's standard text. */
void proto_error_response(struct proto_response *resp, uint32_t id, uint16_t code);

#endif
