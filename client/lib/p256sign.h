/* SPDX-License-Identifier: ISC */
#ifndef P256SIGN_H
#define P256SIGN_H

/*
 * libp256sign: the client library of the p256sign daemon (p256signd), which signs SHA-256 digests
 * with ECDSA P-256 keys that the calling process never sees. See libp256sign(3).
 *
 * Conventions
 * - Every function returning int returns 0 on success or a negative P256SIGN_E_* code;
 *   p256sign_strerror() turns a code into a one-line message.
 * - A handle (struct p256sign) is one connection to the daemon. It may be used by one thread at a
 *   time: different handles are fully independent (the library has no global state), and a handle
 *   may move between threads if the caller synchronises the hand-over. Threads that share one
 *   handle must hold a lock of their own around every call.
 * - Fork: in a child made by fork(3), the first call on an inherited handle notices the fork (a
 *   pthread_atfork handler counts them), closes the inherited descriptor without writing to it,
 *   forgets the parent's outstanding requests and connects again, so parent and child never
 *   share a connection. A child made by clone(2) or _Fork(3), which run no atfork handler, must
 *   not use its parent's handles.
 * - Timeouts: every request has a deadline (default P256SIGN_TIMEOUT_DEFAULT ms, per handle with
 *   p256sign_set_timeout). When any outstanding request passes its deadline the daemon is
 *   taken as stuck: the connection is closed and every outstanding request fails with
 *   P256SIGN_E_TIMEOUT. The next request connects again.
 * - Reconnection: when the daemon restarted (the socket stays, e.g. with socket activation), the
 *   old connection fails when a request is written. A request none of whose bytes reached the
 *   old connection is sent again on one new connection, transparently. A request already written
 *   when the connection broke fails with P256SIGN_E_CLOSED and is not re-sent by the library: a
 *   request that crashes the daemon would otherwise be replayed; the caller may retry it.
 *   Answers the daemon sent before it closed the connection are still delivered.
 * - The library never raises SIGPIPE (it writes with MSG_NOSIGNAL) and its descriptor is
 *   close-on-exec.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define P256SIGN_API __attribute__((visibility("default")))

#define P256SIGN_SOCKET_DEFAULT "/run/p256sign/p256sign.sock"
#define P256SIGN_SOCKET_ENV "P256SIGN_SOCKET"
#define P256SIGN_TIMEOUT_DEFAULT 5000	/* milliseconds */

#define P256SIGN_DIGEST_LEN 32		/* SHA-256 */
#define P256SIGN_KEY_ID_LEN 32		/* SHA-256 of the SubjectPublicKeyInfo */
#define P256SIGN_POINT_LEN 65		/* SEC 1 uncompressed point: 0x04 || x || y */
#define P256SIGN_SPKI_LEN 91		/* DER SubjectPublicKeyInfo */
#define P256SIGN_SIG_RAW_LEN 64		/* r || s */
#define P256SIGN_SIG_MAX 72		/* the longest DER signature */
#define P256SIGN_MESSAGE_MAX 16384	/* the largest message p256sign_sign_message accepts */
#define P256SIGN_CERT_MAX 16384		/* the largest certificate (DER) the daemon hands out */

/* Error codes. -1 .. -23 are the daemon's wire error codes (docs/protocol.md), negated. */
enum p256sign_error {
	P256SIGN_OK = 0,
	P256SIGN_E_BAD_FRAME = -1,		/* the daemon could not parse a request */
	P256SIGN_E_UNSUPPORTED_VERSION = -2,	/* the daemon speaks another protocol version */
	P256SIGN_E_UNKNOWN_TYPE = -3,		/* the daemon does not know the request type */
	P256SIGN_E_UNKNOWN_KEY = -4,		/* no key by that name or id */
	P256SIGN_E_BAD_DIGEST_LENGTH = -5,	/* the digest is not 32 bytes */
	P256SIGN_E_OVERLOADED = -6,		/* too many requests in flight; retry later */
	P256SIGN_E_INTERNAL = -7,		/* the daemon failed; the request may be retried */
	P256SIGN_E_BAD_FORMAT = -8,		/* unknown signature format */
	P256SIGN_E_MESSAGE_TOO_LARGE = -9,	/* message over 16384 bytes */
	P256SIGN_E_BAD_KEY_SELECTOR = -10,	/* malformed key name or selector */
	P256SIGN_E_FRAME_TOO_LARGE = -11,	/* a frame over the protocol's maximum */
	P256SIGN_E_BAD_FLAGS = -12,		/* reserved flags set */
	P256SIGN_E_BAD_POINT = -13,		/* explicit public point not on P-256 */
	P256SIGN_E_BAD_SIGNATURE = -14,		/* signature not decodable in the given format */
	P256SIGN_E_SIGN_FAILED = -15,		/* the signature failed its own check; none released */
	P256SIGN_E_SHUTTING_DOWN = -16,		/* the daemon is stopping */
	P256SIGN_E_DAEMON_TIMEOUT = -17,	/* the request took too long inside the daemon */
	P256SIGN_E_DENIED = -18,		/* this process may not use the key */
	P256SIGN_E_BAD_TLS_CONTENT = -19,	/* SIGN_TLS: not a TLS handshake signature input */
	P256SIGN_E_AUDIT_UNAVAILABLE = -20,	/* the daemon cannot write its audit log; retry later */
	P256SIGN_E_TOO_MANY_CONNECTIONS = -21,	/* the daemon refused the connection (a limit) */
	P256SIGN_E_BAD_TLS_POINT = -22,		/* SIGN_TLS: a ServerECDHParams point off its curve */
	P256SIGN_E_NO_CERTIFICATE = -23,	/* CERTIFICATE: the key has no certificate */
	/* raised by the library itself */
	P256SIGN_E_CONNECT = -100,		/* cannot connect to the daemon's socket */
	P256SIGN_E_TIMEOUT = -101,		/* no response before the deadline */
	P256SIGN_E_CLOSED = -102,		/* the daemon closed the connection */
	P256SIGN_E_PROTOCOL = -103,		/* the daemon sent something malformed or unexpected */
	P256SIGN_E_INVALID = -104,		/* an invalid argument */
	P256SIGN_E_NOMEM = -105,		/* out of memory */
	P256SIGN_E_BUFFER = -106,		/* the output buffer is too small */
	P256SIGN_E_AGAIN = -107,		/* p256sign_next_result: no result is ready yet */
	P256SIGN_E_IO = -108,			/* a socket call failed (errno tells more) */
	P256SIGN_E_DAEMON = -109,		/* a daemon error code this library does not know */
	/* refusals of a key-reference file (p256sign_keyref_*) */
	P256SIGN_E_KEYREF_STRUCTURE = -110,	/* not a SEQUENCE of the three fields in DER */
	P256SIGN_E_KEYREF_VERSION = -111,	/* a version other than 1 */
	P256SIGN_E_KEYREF_KEY = -112,		/* the key is neither [0] name nor [1] id */
	P256SIGN_E_KEYREF_NAME = -113,		/* a name empty, over 64 bytes or with a NUL */
	P256SIGN_E_KEYREF_ID = -114,		/* an id that is not 32 bytes */
	P256SIGN_E_KEYREF_SOCKET = -115,	/* a socket path empty, over 107 bytes or with a NUL */
	P256SIGN_E_KEYREF_TRAILING = -116,	/* bytes after a field or after the SEQUENCE */
	P256SIGN_E_KEYREF_ABSENT = -117,	/* no P256SIGN_KEYREF_PEM_LABEL block in the text */
	P256SIGN_E_KEYREF_PEM = -118,		/* such a block, but not base64 of a key reference */
	/* refusals of a certificate's DER (p256sign_cert_fields) */
	P256SIGN_E_CERT_STRUCTURE = -119,	/* not the SEQUENCEs of an X.509 certificate in DER */
};

/* Signature encodings. */
enum p256sign_format {
	P256SIGN_DER = 0,	/* SEQUENCE { INTEGER r, INTEGER s }, at most 72 bytes */
	P256SIGN_RAW = 1,	/* r || s, 64 bytes */
};

/* Request kinds, as reported in results. */
enum p256sign_op {
	P256SIGN_OP_PING = 1,
	P256SIGN_OP_SIGN = 2,
	P256SIGN_OP_SIGN_MESSAGE = 3,
	P256SIGN_OP_PUBKEY = 4,
	P256SIGN_OP_VERIFY = 5,
	P256SIGN_OP_LIST_KEYS = 6,
	P256SIGN_OP_STATUS = 7,
	P256SIGN_OP_SIGN_TLS = 8,
	P256SIGN_OP_CERTIFICATE = 9,
};

/*
 * A TLS handshake signature's parts (SIGN_TLS): the daemon builds the signed content itself, so
 * that a key of purpose tls-server or tls-client signs handshakes only (docs/protocol.md).
 * kind P256SIGN_TLS13: TLS 1.3 CertificateVerify, side and the transcript hash (32, 48 or 64
 * bytes). kind P256SIGN_TLS12: TLS 1.2 ServerKeyExchange, both randoms and the ServerECDHParams.
 */
enum p256sign_tls_kind {
	P256SIGN_TLS13 = 1,
	P256SIGN_TLS12 = 2,
};

enum p256sign_tls_side {
	P256SIGN_TLS_SERVER = 0,
	P256SIGN_TLS_CLIENT = 1,
};

struct p256sign_tls {
	int kind;			/* enum p256sign_tls_kind */
	int side;			/* enum p256sign_tls_side (TLS 1.3) */
	const uint8_t *hash;		/* TLS 1.3: the transcript hash */
	size_t hash_len;
	const uint8_t *client_random;	/* TLS 1.2: 32 bytes each */
	const uint8_t *server_random;
	const uint8_t *params;		/* TLS 1.2: ServerECDHParams, at most 137 bytes */
	size_t params_len;
};

/*
 * Which key a request uses: set exactly one member. `name` is a key name of the daemon's
 * configuration (1 to 64 of A-Z a-z 0-9 . _ -), `id` points to a 32-byte key id (SHA-256 of the
 * key's DER SubjectPublicKeyInfo), `point` (verification only) to a 65-byte SEC 1 uncompressed
 * public point. The pointed-to bytes are copied when the request is submitted.
 */
struct p256sign_key {
	const char *name;
	const uint8_t *id;
	const uint8_t *point;
};

/* A public key as the daemon reports it. */
struct p256sign_pubkey {
	uint8_t key_id[P256SIGN_KEY_ID_LEN];
	uint8_t point[P256SIGN_POINT_LEN];
	uint8_t spki[P256SIGN_SPKI_LEN];
};

/*
 * A completed request (non-blocking API). `error` is 0 or the request's P256SIGN_E_* code; the
 * other members are set for a successful result of the matching op only. `json` and
 * `certificate` are owned by the result: release them with p256sign_result_clear.
 */
struct p256sign_result {
	uint32_t id;			/* the id the submit call returned */
	int op;				/* enum p256sign_op */
	int error;
	int format;			/* SIGN, SIGN_MESSAGE: enum p256sign_format */
	uint8_t sig[P256SIGN_SIG_MAX];	/* SIGN, SIGN_MESSAGE */
	size_t sig_len;
	struct p256sign_pubkey pubkey;	/* PUBKEY */
	int valid;			/* VERIFY: 1 valid, 0 invalid */
	char *json;			/* LIST_KEYS, STATUS: NUL-terminated UTF-8 JSON */
	size_t json_len;
	uint8_t *certificate;		/* CERTIFICATE: the DER, 1 .. P256SIGN_CERT_MAX bytes */
	size_t certificate_len;
	uint8_t certificate_key_id[P256SIGN_KEY_ID_LEN];	/* CERTIFICATE: the key's id */
};

/* A connection handle; its layout is private. */
struct p256sign;

/* ---- connection ------------------------------------------------------------------------------ */

/*
 * Allocates a handle and connects to the daemon's socket at `path`; when path is NULL, at
 * $P256SIGN_SOCKET (ignored in set-uid programs), else at P256SIGN_SOCKET_DEFAULT. On success
 * *out owns the handle (release with p256sign_close). Errors: P256SIGN_E_INVALID (path too long
 * for a Unix socket), P256SIGN_E_CONNECT (no daemon listening, or its backlog stayed full for the
 * timeout, P256SIGN_TIMEOUT_DEFAULT here, also across signals; errno tells why), P256SIGN_E_NOMEM.
 * On error *out is NULL.
 */
P256SIGN_API int p256sign_connect(struct p256sign **out, const char *path);

/* Closes the connection and frees the handle and every result not yet read. NULL is allowed. */
P256SIGN_API void p256sign_close(struct p256sign *h);

/* Sets the handle's per-request timeout in milliseconds (1 .. INT_MAX); P256SIGN_E_INVALID
 * otherwise. */
P256SIGN_API int p256sign_set_timeout(struct p256sign *h, int timeout_ms);

/* The socket path this handle connects to; owned by the handle. */
P256SIGN_API const char *p256sign_socket_path(const struct p256sign *h);

/* A one-line English message for a P256SIGN_E_* code (or 0); never NULL, static storage. */
P256SIGN_API const char *p256sign_strerror(int err);

/* ---- blocking calls: each sends one request and waits for its response or its deadline ------- */

/* Checks that the daemon answers. */
P256SIGN_API int p256sign_ping(struct p256sign *h);

/*
 * Signs a 32-byte SHA-256 digest with the key. Writes the signature in `format` to sig (sig_cap
 * bytes: 64 suffice for raw, P256SIGN_SIG_MAX for DER) and its length to *sig_len. Errors: the
 * daemon's (P256SIGN_E_UNKNOWN_KEY, P256SIGN_E_DENIED, ...), P256SIGN_E_BUFFER when sig_cap is
 * too small, and the connection errors.
 */
P256SIGN_API int p256sign_sign_digest(struct p256sign *h, const struct p256sign_key *key,
	const uint8_t digest[P256SIGN_DIGEST_LEN], int format, uint8_t *sig, size_t sig_cap,
	size_t *sig_len);

/* Like p256sign_sign_digest, but the daemon hashes `msg` (msg_len <= P256SIGN_MESSAGE_MAX)
 * with SHA-256. */
P256SIGN_API int p256sign_sign_message(struct p256sign *h, const struct p256sign_key *key,
	const void *msg, size_t msg_len, int format, uint8_t *sig, size_t sig_cap, size_t *sig_len);

/* Like p256sign_sign_digest, for a TLS handshake's parts (struct p256sign_tls): the daemon
 * builds what the handshake signs. Malformed parts: P256SIGN_E_INVALID before anything is sent
 * (the daemon would answer P256SIGN_E_BAD_TLS_CONTENT); a side the key's purpose does not allow:
 * P256SIGN_E_DENIED. */
P256SIGN_API int p256sign_sign_tls(struct p256sign *h, const struct p256sign_key *key,
	const struct p256sign_tls *tls, int format, uint8_t *sig, size_t sig_cap, size_t *sig_len);

/* The key's id, SEC 1 point and DER SubjectPublicKeyInfo into *pub. */
P256SIGN_API int p256sign_get_pubkey(struct p256sign *h, const struct p256sign_key *key,
	struct p256sign_pubkey *pub);

/*
 * The key's X.509 certificate (the leaf the daemon's configuration names for it) in DER into
 * der (cap bytes; P256SIGN_CERT_MAX always suffice), its length into *der_len. *der_len is set
 * also when cap is too small (P256SIGN_E_BUFFER), so that a caller may ask again with a buffer of
 * that size. Errors: P256SIGN_E_NO_CERTIFICATE (the key has none), the daemon's
 * (P256SIGN_E_UNKNOWN_KEY, P256SIGN_E_DENIED, ...), P256SIGN_E_UNKNOWN_TYPE (a daemon older than
 * this request), the connection errors.
 */
P256SIGN_API int p256sign_certificate(struct p256sign *h, const struct p256sign_key *key,
	uint8_t *der, size_t cap, size_t *der_len);

/*
 * Asks the daemon to verify sig (sig_len bytes in `format`) over digest under the key (which may
 * be an explicit point). *valid is 1 when the signature is valid, else 0; the return value is 0
 * in both cases and negative only when the question could not be answered.
 */
P256SIGN_API int p256sign_verify(struct p256sign *h, const struct p256sign_key *key,
	const uint8_t digest[P256SIGN_DIGEST_LEN], int format, const uint8_t *sig, size_t sig_len,
	int *valid);

/*
 * The daemon's key list (docs/protocol.md) as a NUL-terminated JSON text in *json, which the
 * caller releases with free(); *json is NULL on error.
 */
P256SIGN_API int p256sign_list_keys(struct p256sign *h, char **json);

/* The daemon's status object as JSON, like p256sign_list_keys. */
P256SIGN_API int p256sign_status(struct p256sign *h, char **json);

/* ---- non-blocking API: many requests in flight on one connection ----------------------------- */

/*
 * Each submit call queues one request and returns at once with its id in *id (never 0). The
 * request is written as far as the socket accepts without blocking; the rest stays queued until
 * p256sign_process is called with the descriptor writable. Submitting connects first when the
 * handle has no connection (after a failure, a timeout or a fork); on a Unix socket that does not
 * wait for the daemon. Errors are only those found before queueing (P256SIGN_E_INVALID,
 * P256SIGN_E_NOMEM, P256SIGN_E_CONNECT, P256SIGN_E_MESSAGE_TOO_LARGE, and P256SIGN_E_OVERLOADED
 * when the next id would still name the oldest outstanding request, 2^32 - 1 submissions ago);
 * everything later arrives as the result's error.
 */
P256SIGN_API int p256sign_submit_ping(struct p256sign *h, uint32_t *id);
P256SIGN_API int p256sign_submit_sign(struct p256sign *h, const struct p256sign_key *key,
	const uint8_t digest[P256SIGN_DIGEST_LEN], int format, uint32_t *id);
P256SIGN_API int p256sign_submit_sign_message(struct p256sign *h, const struct p256sign_key *key,
	const void *msg, size_t msg_len, int format, uint32_t *id);
P256SIGN_API int p256sign_submit_sign_tls(struct p256sign *h, const struct p256sign_key *key,
	const struct p256sign_tls *tls, int format, uint32_t *id);
P256SIGN_API int p256sign_submit_pubkey(struct p256sign *h, const struct p256sign_key *key,
	uint32_t *id);
P256SIGN_API int p256sign_submit_verify(struct p256sign *h, const struct p256sign_key *key,
	const uint8_t digest[P256SIGN_DIGEST_LEN], int format, const uint8_t *sig, size_t sig_len,
	uint32_t *id);
P256SIGN_API int p256sign_submit_list_keys(struct p256sign *h, uint32_t *id);
P256SIGN_API int p256sign_submit_certificate(struct p256sign *h, const struct p256sign_key *key,
	uint32_t *id);
P256SIGN_API int p256sign_submit_status(struct p256sign *h, uint32_t *id);

/*
 * The descriptor to watch for POLLIN (and POLLOUT when p256sign_want_write says so), or -1 when
 * the handle has no connection. It changes when the library reconnects: read it again after every
 * submit and process call.
 */
P256SIGN_API int p256sign_fd(const struct p256sign *h);

/* 1 when queued bytes wait for the descriptor to become writable, else 0. */
P256SIGN_API int p256sign_want_write(const struct p256sign *h);

/*
 * Milliseconds until the earliest deadline of the outstanding requests (0 when passed), or -1
 * when no request is outstanding: a poll timeout for the caller's event loop.
 */
P256SIGN_API int p256sign_next_timeout(const struct p256sign *h);

/*
 * Does whatever can be done without blocking: writes queued bytes, reads and decodes responses,
 * expires deadlines, and turns a broken connection into failed results. Returns the number of
 * results ready for p256sign_next_result (>= 0), or P256SIGN_E_NOMEM. Connection failures are
 * reported through results, never here.
 */
P256SIGN_API int p256sign_process(struct p256sign *h);

/*
 * Moves the oldest ready result into *res (the caller then owns res->json and releases it with
 * p256sign_result_clear). P256SIGN_E_AGAIN when no result is ready.
 */
P256SIGN_API int p256sign_next_result(struct p256sign *h, struct p256sign_result *res);

/* Frees res->json and res->certificate and zeroes *res. NULL is allowed. */
P256SIGN_API void p256sign_result_clear(struct p256sign_result *res);

/*
 * Waits (blocking, up to the deadline of the request) until the result of request `id` is ready
 * and moves it into *res; other results that arrive meanwhile stay queued for
 * p256sign_next_result. P256SIGN_E_INVALID when no request with that id is outstanding. The
 * blocking calls are p256sign_submit_* followed by this.
 */
P256SIGN_API int p256sign_wait(struct p256sign *h, uint32_t id, struct p256sign_result *res);

/*
 * p256sign_wait without blocking: does what p256sign_process does, then moves the result of
 * request `id` into *res and returns its error (0 on success) when it is ready, or returns
 * P256SIGN_E_AGAIN while the request is still outstanding (*res zeroed). For code that waits for
 * one request itself, e.g. from inside an OpenSSL ASYNC job. P256SIGN_E_INVALID when no request
 * with that id is outstanding; P256SIGN_E_NOMEM as p256sign_process.
 */
P256SIGN_API int p256sign_poll_result(struct p256sign *h, uint32_t id, struct p256sign_result *res);

/* ---- offline helpers: no connection, no daemon ---------------------------------------------- */

/*
 * Key-reference files (docs/tls.md): a key held by the daemon named in a PEM block that a TLS
 * server reads as its private key file (the OpenSSL provider turns it into a key), written by
 * `p256signctl export-key-ref`. The block's label is P256SIGN_KEYREF_PEM_LABEL, its body DER:
 *
 *   P256SignKeyReference ::= SEQUENCE {
 *       version  INTEGER (1),
 *       key      CHOICE { name [0] IMPLICIT UTF8String (SIZE (1..64)),
 *                         id   [1] IMPLICIT OCTET STRING (SIZE (32)) },
 *       socket   UTF8String (SIZE (1..107))  -- the daemon's Unix socket path
 *   }
 */
#define P256SIGN_KEYREF_PEM_LABEL "P256SIGN KEY REFERENCE"
#define P256SIGN_KEYREF_NAME_MAX 64
#define P256SIGN_KEYREF_SOCKET_MAX 107	/* sun_path less its NUL */
#define P256SIGN_KEYREF_DER_MAX 192	/* the longest encoding */

struct p256sign_keyref {
	int by_id;					/* 1: id names the key, 0: name */
	char name[P256SIGN_KEYREF_NAME_MAX + 1];	/* NUL-terminated; when !by_id */
	uint8_t id[P256SIGN_KEY_ID_LEN];		/* when by_id */
	char socket[P256SIGN_KEYREF_SOCKET_MAX + 1];	/* NUL-terminated */
};

/* Parses a key reference's DER (len bytes, untrusted) into *ref. 0 or a
 * P256SIGN_E_KEYREF_* code. */
P256SIGN_API int p256sign_keyref_decode(const uint8_t *der, size_t len,
	struct p256sign_keyref *ref);

/* Encodes *ref (fields as p256sign_keyref_decode accepts them) into der (cap bytes,
 * P256SIGN_KEYREF_DER_MAX suffice); its length into *len. 0, P256SIGN_E_KEYREF_NAME,
 * P256SIGN_E_KEYREF_SOCKET or P256SIGN_E_BUFFER. */
P256SIGN_API int p256sign_keyref_encode(const struct p256sign_keyref *ref, uint8_t *der,
	size_t cap, size_t *len);

/*
 * Finds the first block labelled P256SIGN_KEYREF_PEM_LABEL in a PEM text (len bytes, untrusted;
 * other blocks, such as the certificate of a haproxy crt file, may come before it) and writes its
 * base64-decoded body to der (cap bytes) and its length to *der_len, without parsing it. 0,
 * P256SIGN_E_KEYREF_ABSENT when the text has no such block (it is not a key reference), or
 * P256SIGN_E_KEYREF_PEM when the block's body is not base64 of at most cap bytes.
 */
P256SIGN_API int p256sign_keyref_find_pem(const char *text, size_t len, uint8_t *der,
	size_t cap, size_t *der_len);

/*
 * Recognises what a TLS handshake signs, the content SIGN_TLS lets a key of purpose tls-server
 * or tls-client sign: TLS 1.3 CertificateVerify content (RFC 8446 section 4.4.3: 64 bytes 0x20,
 * "TLS 1.3, server CertificateVerify" or "TLS 1.3, client CertificateVerify", 0x00, a transcript
 * hash of 32, 48 or 64 bytes), or the TLS 1.2 ServerKeyExchange signature input (RFC 8422
 * section 5.4: client random, server random, well-formed ServerECDHParams). Sets *tls to the
 * parts, pointing into content (which must outlive it), for p256sign_sign_tls. 0, or
 * P256SIGN_E_BAD_TLS_CONTENT when content is neither.
 */
P256SIGN_API int p256sign_tls_parse(const uint8_t *content, size_t len,
	struct p256sign_tls *tls);

/*
 * The fields of an X.509 certificate (RFC 5280 section 4.1) that PKCS#11's certificate objects
 * show: each one the whole DER element (tag, length, contents), pointing into the certificate.
 */
struct p256sign_cert_fields {
	const uint8_t *serial;		/* serialNumber: the INTEGER */
	size_t serial_len;
	const uint8_t *issuer;		/* issuer: the Name's SEQUENCE */
	size_t issuer_len;
	const uint8_t *subject;		/* subject: the Name's SEQUENCE */
	size_t subject_len;
	/* validity's notBefore and notAfter as "YYYYMMDD" (PKCS#11's CK_DATE, no NUL): all zero
	 * bytes when the Time is not in a form of RFC 5280 section 4.1.2.5 (UTCTime YYMMDDHHMMSSZ,
	 * YY below 50 meaning 20YY, or GeneralizedTime YYYYMMDDHHMMSSZ) */
	char not_before[8];
	char not_after[8];
};

/*
 * Finds the serial number, the issuer, the validity's dates and the subject of a DER
 * certificate (len bytes, untrusted), as CERTIFICATE returns it, without checking anything else
 * of it (the daemon checked that it holds the key's point): Certificate ::= SEQUENCE {
 * tbsCertificate SEQUENCE { [0] version OPTIONAL, serialNumber INTEGER, signature SEQUENCE,
 * issuer SEQUENCE, validity SEQUENCE { notBefore Time, notAfter Time }, subject SEQUENCE, ... },
 * ... } in DER with nothing after it, Time a UTCTime or a GeneralizedTime. 0, or
 * P256SIGN_E_CERT_STRUCTURE (*f zeroed).
 */
P256SIGN_API int p256sign_cert_fields(const uint8_t *der, size_t len,
	struct p256sign_cert_fields *f);

/* A key id written as 64 lowercase hex digits and a NUL, as LIST_KEYS reports it. */
P256SIGN_API void p256sign_key_id_format(const uint8_t id[P256SIGN_KEY_ID_LEN],
	char hex[2 * P256SIGN_KEY_ID_LEN + 1]);

/* A key id from exactly 64 hex digits (either case; len bytes, no NUL needed). 0 or
 * P256SIGN_E_INVALID. */
P256SIGN_API int p256sign_key_id_parse(const char *hex, size_t len,
	uint8_t id[P256SIGN_KEY_ID_LEN]);

/* 0 when point is a SEC 1 uncompressed point on P-256 (not the identity), else
 * P256SIGN_E_BAD_POINT. */
P256SIGN_API int p256sign_point_check(const uint8_t point[P256SIGN_POINT_LEN]);

#ifdef __cplusplus
}
#endif

#endif
