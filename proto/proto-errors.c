/* SPDX-License-Identifier: ISC */
/* The wire protocol's error codes: each one's tag (the name replies and the audit log show) and
 * message. tests/proto/test-proto-examples.c checks this table against docs/protocol.md's. */
#include <string.h>

#include "proto-errors.h"

struct proto_error_text {
	const char *tag;
	const char *text;
	int closes;
};

static const struct proto_error_text texts[PROTO_E_MAX + 1] = {
	[PROTO_E_BAD_FRAME] = { "bad-frame", "malformed frame", 1 },
	[PROTO_E_UNSUPPORTED_VERSION] = { "unsupported-version", "unsupported protocol version", 1 },
	[PROTO_E_UNKNOWN_TYPE] = { "unknown-type", "unknown request type", 0 },
	[PROTO_E_UNKNOWN_KEY] = { "unknown-key", "no such key", 0 },
	[PROTO_E_BAD_DIGEST_LENGTH] = { "bad-digest-length", "digest must be 32 bytes (SHA-256)", 0 },
	[PROTO_E_OVERLOADED] = { "overloaded", "too many requests in flight; retry later", 0 },
	[PROTO_E_INTERNAL] = { "internal", "internal error", 0 },
	[PROTO_E_BAD_FORMAT] = { "bad-format", "unknown signature format", 0 },
	[PROTO_E_MESSAGE_TOO_LARGE] = { "message-too-large", "message larger than 16384 bytes", 0 },
	[PROTO_E_BAD_KEY_SELECTOR] = { "bad-key-selector", "malformed key selector", 0 },
	[PROTO_E_FRAME_TOO_LARGE] = { "frame-too-large", "frame larger than 65536 bytes", 1 },
	[PROTO_E_BAD_FLAGS] = { "bad-flags", "reserved flags set", 0 },
	[PROTO_E_BAD_POINT] = { "bad-point", "public point is not on P-256", 0 },
	[PROTO_E_BAD_SIGNATURE] = { "bad-signature", "signature cannot be decoded", 0 },
	[PROTO_E_SIGN_FAILED] = { "sign-failed", "signature failed verification and was withheld", 0 },
	[PROTO_E_SHUTTING_DOWN] = { "shutting-down", "daemon is shutting down", 0 },
	[PROTO_E_TIMEOUT] = { "timeout", "request timed out in the daemon", 0 },
	[PROTO_E_DENIED] = { "denied", "not allowed to use this key", 0 },
	[PROTO_E_BAD_TLS_CONTENT] = { "bad-tls-content", "not a TLS handshake signature input", 0 },
	[PROTO_E_AUDIT_UNAVAILABLE] = { "audit-unavailable", "the audit log cannot be written; nothing signed", 0 },
	[PROTO_E_TOO_MANY_CONNECTIONS] = { "too-many-connections", "too many connections", 1 },
	[PROTO_E_BAD_TLS_POINT] = { "bad-tls-point", "ServerECDHParams point is not on its curve", 0 },
	[PROTO_E_NO_CERTIFICATE] = { "no-certificate", "the key has no certificate", 0 },
};

static const struct proto_error_text *lookup(uint16_t code)
{
	return code <= PROTO_E_MAX && texts[code].tag != NULL ? &texts[code] : NULL;
}

const char *proto_error_tag(uint16_t code)
{
	const struct proto_error_text *t = lookup(code);
	return t ? t->tag : "unknown-error";
}

const char *proto_error_text(uint16_t code)
{
	const struct proto_error_text *t = lookup(code);
	return t ? t->text : "unknown error";
}

int proto_error_closes(uint16_t code)
{
	const struct proto_error_text *t = lookup(code);
	return t ? t->closes : 0;
}
