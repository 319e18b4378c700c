/* SPDX-License-Identifier: ISC */
#ifndef P256_KEYFILE_H
#define P256_KEYFILE_H

#include <stddef.h>
#include <stdint.h>

#include "p256.h"

/*
 * P-256 private key files, read strictly (docs/keys.md): PKCS#8 (RFC 5958, v1 and v2) or SEC 1
 * (RFC 5915) ECPrivateKey, as DER or PEM, for id-ecPublicKey on the named curve prime256v1 only.
 * The scalar must satisfy 1 <= d < n and every embedded public key must equal d*G. Each refusal
 * has its own enum p256_err code (errors.h); p256_err_tag and p256_strerror name it.
 * Base64 and the key bytes are handled in constant time; every copy of the key that these
 * functions make is wiped before they return, and *out is wiped on any refusal.
 */

/* The largest key file read, and the largest DER inside a PEM private-key block. */
#define KEYFILE_MAX (64 * 1024)
#define KEYFILE_DER_MAX 8192

/* Where the key came from: structure and encoding. */
enum keyfile_form {
	KEYFILE_PKCS8_DER,
	KEYFILE_PKCS8_PEM,
	KEYFILE_SEC1_DER,
	KEYFILE_SEC1_PEM,
};

struct keyfile_key {
	uint8_t d[P256_SCALAR_LEN];	/* secret scalar, 1 <= d < n; wipe with keyfile_key_clear */
	uint8_t pub[P256_POINT_LEN];	/* d*G, 0x04 || x || y */
	enum keyfile_form form;
};

/*
 * Parses a key file's bytes: DER when the first byte is 0x30 ('0'), PEM otherwise (the first
 * private-key block is used; blocks and text before it are skipped). Fills *out; the caller owns
 * buf.
 * Returns 0 or a negative code; on error *out is wiped.
 */
int keyfile_parse(const uint8_t *buf, size_t len, struct keyfile_key *out);

/*
 * Reads the file at path (at most KEYFILE_MAX bytes, into a buffer that is wiped and freed) and
 * parses it with keyfile_parse. P256_ERR_KEY_FILE if it cannot be read (errno says why),
 * P256_ERR_KEY_TOO_LARGE if it is larger than KEYFILE_MAX, P256_ERR_KEY_FILE_OWNER or
 * P256_ERR_KEY_FILE_MODE, before any byte is read, unless only its owner, root or the effective
 * user, may access it (keyfile_check_access in keyfile-read.h).
 */
int keyfile_load(const char *path, struct keyfile_key *out);

/* Wipes a key (safe on a zeroed one). */
void keyfile_key_clear(struct keyfile_key *key);

/* "pkcs8-pem", "pkcs8-der", "sec1-pem" or "sec1-der": a static string. */
const char *keyfile_form_name(enum keyfile_form form);

#endif
