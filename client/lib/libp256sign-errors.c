/* SPDX-License-Identifier: ISC */
/* Error messages: the daemon's wire codes keep proto/'s texts; the library's own are here. */
#include "libp256sign-private.h"

/* The wire codes map to library codes by negation; keep the public enum in step with proto.h. */
_Static_assert(P256SIGN_E_BAD_FRAME == -PROTO_E_BAD_FRAME, "wire code");
_Static_assert(P256SIGN_E_UNSUPPORTED_VERSION == -PROTO_E_UNSUPPORTED_VERSION, "wire code");
_Static_assert(P256SIGN_E_UNKNOWN_TYPE == -PROTO_E_UNKNOWN_TYPE, "wire code");
_Static_assert(P256SIGN_E_UNKNOWN_KEY == -PROTO_E_UNKNOWN_KEY, "wire code");
_Static_assert(P256SIGN_E_BAD_DIGEST_LENGTH == -PROTO_E_BAD_DIGEST_LENGTH, "wire code");
_Static_assert(P256SIGN_E_OVERLOADED == -PROTO_E_OVERLOADED, "wire code");
_Static_assert(P256SIGN_E_INTERNAL == -PROTO_E_INTERNAL, "wire code");
_Static_assert(P256SIGN_E_BAD_FORMAT == -PROTO_E_BAD_FORMAT, "wire code");
_Static_assert(P256SIGN_E_MESSAGE_TOO_LARGE == -PROTO_E_MESSAGE_TOO_LARGE, "wire code");
_Static_assert(P256SIGN_E_BAD_KEY_SELECTOR == -PROTO_E_BAD_KEY_SELECTOR, "wire code");
_Static_assert(P256SIGN_E_FRAME_TOO_LARGE == -PROTO_E_FRAME_TOO_LARGE, "wire code");
_Static_assert(P256SIGN_E_BAD_FLAGS == -PROTO_E_BAD_FLAGS, "wire code");
_Static_assert(P256SIGN_E_BAD_POINT == -PROTO_E_BAD_POINT, "wire code");
_Static_assert(P256SIGN_E_BAD_SIGNATURE == -PROTO_E_BAD_SIGNATURE, "wire code");
_Static_assert(P256SIGN_E_SIGN_FAILED == -PROTO_E_SIGN_FAILED, "wire code");
_Static_assert(P256SIGN_E_SHUTTING_DOWN == -PROTO_E_SHUTTING_DOWN, "wire code");
_Static_assert(P256SIGN_E_DAEMON_TIMEOUT == -PROTO_E_TIMEOUT, "wire code");
_Static_assert(P256SIGN_E_DENIED == -PROTO_E_DENIED, "wire code");
_Static_assert(P256SIGN_E_BAD_TLS_CONTENT == -PROTO_E_BAD_TLS_CONTENT, "wire code");
_Static_assert(P256SIGN_E_AUDIT_UNAVAILABLE == -PROTO_E_AUDIT_UNAVAILABLE, "wire code");
_Static_assert(P256SIGN_E_TOO_MANY_CONNECTIONS == -PROTO_E_TOO_MANY_CONNECTIONS, "wire code");
_Static_assert(P256SIGN_E_BAD_TLS_POINT == -PROTO_E_BAD_TLS_POINT, "wire code");
_Static_assert(P256SIGN_E_NO_CERTIFICATE == -PROTO_E_NO_CERTIFICATE, "wire code");
_Static_assert(PROTO_E_MAX == 23, "a new wire code needs a P256SIGN_E_ code");

static const char *const local_messages[] = {
	[-P256SIGN_E_CONNECT - 100] = "cannot connect to the p256sign daemon",
	[-P256SIGN_E_TIMEOUT - 100] = "no response from the daemon before the timeout",
	[-P256SIGN_E_CLOSED - 100] = "the daemon closed the connection",
	[-P256SIGN_E_PROTOCOL - 100] = "malformed or unexpected response from the daemon",
	[-P256SIGN_E_INVALID - 100] = "invalid argument",
	[-P256SIGN_E_NOMEM - 100] = "out of memory",
	[-P256SIGN_E_BUFFER - 100] = "output buffer too small",
	[-P256SIGN_E_AGAIN - 100] = "no result ready yet",
	[-P256SIGN_E_IO - 100] = "socket error",
	[-P256SIGN_E_DAEMON - 100] = "unknown error code from the daemon",
	[-P256SIGN_E_KEYREF_STRUCTURE - 100] = "not a key reference (malformed DER)",
	[-P256SIGN_E_KEYREF_VERSION - 100] = "unsupported key reference version",
	[-P256SIGN_E_KEYREF_KEY - 100] = "the key is neither a name nor an id",
	[-P256SIGN_E_KEYREF_NAME - 100] = "key name empty, over 64 bytes or with a NUL",
	[-P256SIGN_E_KEYREF_ID - 100] = "key id is not 32 bytes",
	[-P256SIGN_E_KEYREF_SOCKET - 100] = "socket path empty, over 107 bytes or with a NUL",
	[-P256SIGN_E_KEYREF_TRAILING - 100] = "bytes after the key reference",
	[-P256SIGN_E_KEYREF_ABSENT - 100] = "no " P256SIGN_KEYREF_PEM_LABEL " block in the text",
	[-P256SIGN_E_KEYREF_PEM - 100] = "the block is not base64 of a key reference",
	[-P256SIGN_E_CERT_STRUCTURE - 100] = "not an X.509 certificate in DER",
};

const char *p256sign_strerror(int err)
{
	if (err == 0)
		return "success";
	if (err < 0 && err >= -PROTO_E_MAX)
		return proto_error_text((uint16_t)-err);
	if (err <= P256SIGN_E_CONNECT && err >= P256SIGN_E_CERT_STRUCTURE)
		return local_messages[-err - 100];
	return "unknown error";
}
