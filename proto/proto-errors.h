/* SPDX-License-Identifier: ISC */
#ifndef P256SIGN_PROTO_ERRORS_H
#define P256SIGN_PROTO_ERRORS_H

#include <stdint.h>

/* The wire protocol's error codes (docs/protocol.md section 6), apart from the codec so that
 * every part of proto/ can name them; proto.h includes this header. */

/* Wire error codes (u16 in ERROR bodies). Codes marked "closes" end the connection. */
enum proto_error {
	PROTO_E_BAD_FRAME = 1,		/* malformed header or body (closes) */
	PROTO_E_UNSUPPORTED_VERSION = 2, /* header version is not 1 (closes) */
	PROTO_E_UNKNOWN_TYPE = 3,	/* no such request type */
	PROTO_E_UNKNOWN_KEY = 4,	/* no key by that name or id */
	PROTO_E_BAD_DIGEST_LENGTH = 5,	/* a digest that is not 32 bytes */
	PROTO_E_OVERLOADED = 6,		/* a limit on requests in flight was reached; retry later */
	PROTO_E_INTERNAL = 7,		/* the daemon failed; the request may be retried */
	PROTO_E_BAD_FORMAT = 8,		/* unknown signature format */
	PROTO_E_MESSAGE_TOO_LARGE = 9,	/* SIGN_MESSAGE over 16 KiB */
	PROTO_E_BAD_KEY_SELECTOR = 10,	/* key selector kind or name malformed */
	PROTO_E_FRAME_TOO_LARGE = 11,	/* length prefix over the maximum (closes) */
	PROTO_E_BAD_FLAGS = 12,		/* reserved flag bits set */
	PROTO_E_BAD_POINT = 13,		/* explicit point not on P-256 */
	PROTO_E_BAD_SIGNATURE = 14,	/* VERIFY: signature not decodable in the given format */
	PROTO_E_SIGN_FAILED = 15,	/* signing failed its own verification; nothing was released */
	PROTO_E_SHUTTING_DOWN = 16,	/* the daemon is stopping */
	PROTO_E_TIMEOUT = 17,		/* the request took too long inside the daemon */
	PROTO_E_DENIED = 18,		/* the peer may not use this key */
	PROTO_E_BAD_TLS_CONTENT = 19,	/* SIGN_TLS: not a handshake input (kind, side, hash, params) */
	PROTO_E_AUDIT_UNAVAILABLE = 20,	/* the audit record cannot be written: nothing is signed */
	PROTO_E_TOO_MANY_CONNECTIONS = 21, /* sent unrequested (id 0) before closing a connection over a limit */
	PROTO_E_BAD_TLS_POINT = 22,	/* SIGN_TLS: a ServerECDHParams point not on its curve */
	PROTO_E_NO_CERTIFICATE = 23,	/* CERTIFICATE: the key has no certificate */
	PROTO_E_MAX = 23
};

/* The stable tag ("unknown-key") and a short English text of a wire error code. */
const char *proto_error_tag(uint16_t code);
const char *proto_error_text(uint16_t code);

/* 1 when the error ends the connection after it is sent. */
int proto_error_closes(uint16_t code);

#endif
