/* SPDX-License-Identifier: ISC */
#ifndef P256_CERT_H
#define P256_CERT_H

#include <stddef.h>
#include <stdint.h>

#include "p256.h"

/*
 * X.509 certificates that accompany a key, parsed by OpenSSL (they hold only public data). The
 * key id of a certificate is p256_key_id of its public point, the same value as for its key.
 */

/*
 * Reads the certificate at path (DER, or PEM: the first CERTIFICATE block) and writes its P-256
 * public point (0x04 || x || y) to pub. Errors: P256_ERR_KEY_FILE / P256_ERR_KEY_TOO_LARGE (file),
 * P256_ERR_CERT_INVALID (no parsable certificate, or bytes after a DER one),
 * P256_ERR_CERT_ALGORITHM (its key is not EC on prime256v1).
 */
int cert_load(const char *path, uint8_t pub[P256_POINT_LEN]);

/*
 * cert_load, then 0 when the certificate's point equals key_pub, else P256_ERR_CERT_MISMATCH (or
 * cert_load's error).
 */
int cert_check(const char *path, const uint8_t key_pub[P256_POINT_LEN]);

/* cert_check, and *not_after gets the certificate's notAfter as a Unix time (seconds; 0 after an
 * error), read from the same bytes. */
int cert_check_until(const char *path, const uint8_t key_pub[P256_POINT_LEN], int64_t *not_after);

/* A certificate's DER encoding, in a buffer of its own (cert_der_free). */
struct cert_der {
	uint8_t *der;
	size_t len;
};

/*
 * cert_check_until, and der gets the certificate's DER as OpenSSL parsed it: the file's bytes for
 * a DER file, the first CERTIFICATE block's for PEM. On error der is empty (nothing to free).
 */
int cert_read(const char *path, const uint8_t key_pub[P256_POINT_LEN], int64_t *not_after,
	struct cert_der *der);

/* Frees der's buffer; der is empty afterwards (and may be freed again). */
void cert_der_free(struct cert_der *der);

#endif
