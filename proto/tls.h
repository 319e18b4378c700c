/* SPDX-License-Identifier: ISC */
#ifndef P256SIGN_PROTO_TLS_H
#define P256SIGN_PROTO_TLS_H

#include <stddef.h>
#include <stdint.h>

/*
 * What a TLS handshake signs, built from its parts (SIGN_TLS, docs/protocol.md): the signer
 * builds the signed content itself, so that a key meant for handshakes signs nothing else.
 *
 * - TLS 1.3 CertificateVerify (RFC 8446 section 4.4.3): 64 bytes of 0x20, the context string
 *   "TLS 1.3, server CertificateVerify" (or "client"), a 0x00 byte, the transcript hash (32, 48
 *   or 64 bytes: the cipher suite's hash), hashed with SHA-256 (ecdsa_secp256r1_sha256).
 * - TLS 1.2 ServerKeyExchange (RFC 8422 section 5.4): SHA-256 of client_random, server_random
 *   and the ServerECDHParams, whose structure is checked: curve_type 3 (named_curve), a named
 *   curve of the IANA registry with a defined point encoding, and the point length that curve
 *   implies; then, for secp256r1, secp384r1 and secp521r1, that the point is on the curve.
 */

enum proto_tls_kind {
	PROTO_TLS13_CERTIFICATE_VERIFY = 1,
	PROTO_TLS12_SERVER_KEY_EXCHANGE = 2,
};

enum proto_tls_side {
	PROTO_TLS_SERVER = 0,
	PROTO_TLS_CLIENT = 1,		/* TLS 1.3 only */
};

#define PROTO_TLS_HASH_MAX 64
#define PROTO_TLS_RANDOM_LEN 32
#define PROTO_TLS_PARAMS_MAX 137	/* 3 + 1 + a secp521r1 point */

struct proto_tls {
	uint8_t kind;			/* enum proto_tls_kind */
	uint8_t side;			/* enum proto_tls_side */
	uint8_t hash_len;
	uint8_t hash[PROTO_TLS_HASH_MAX];
	uint8_t client_random[PROTO_TLS_RANDOM_LEN];
	uint8_t server_random[PROTO_TLS_RANDOM_LEN];
	uint8_t params_len;
	uint8_t params[PROTO_TLS_PARAMS_MAX];
};

/* 0 when t is a well-formed handshake input of its kind, else -PROTO_E_BAD_TLS_CONTENT, or
 * -PROTO_E_BAD_TLS_POINT for a well-formed ServerECDHParams whose point is not on its curve, or
 * -PROTO_E_INTERNAL when the arithmetic of that check fails (no memory). */
int proto_tls_check(const struct proto_tls *t);

/* proto_tls_check, then the SHA-256 of the signed content into digest. 0, or proto_tls_check's
 * error, or -PROTO_E_INTERNAL when hashing fails. */
int proto_tls_digest(const struct proto_tls *t, uint8_t digest[32]);

#endif
