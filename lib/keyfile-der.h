/* SPDX-License-Identifier: ISC */
#ifndef P256_KEYFILE_DER_H
#define P256_KEYFILE_DER_H

#include <stddef.h>
#include <stdint.h>

#include "p256.h"

/* The DER structures of a private key file (internal to lib/keyfile*.c). */

/* Which structure a DER key is expected to be. */
enum der_key_kind {
	DER_KEY_ANY,	/* a DER file: told apart by the element after the version */
	DER_KEY_PKCS8,	/* PrivateKeyInfo / OneAsymmetricKey (RFC 5958) */
	DER_KEY_SEC1,	/* ECPrivateKey (RFC 5915) */
};

/* Public keys a file may embed: ECPrivateKey's [1] and OneAsymmetricKey v2's [1]. */
#define DER_KEY_PUBS_MAX 2

struct der_key {
	enum der_key_kind kind;			/* PKCS8 or SEC1 after parsing */
	uint8_t d[P256_SCALAR_LEN];		/* the scalar, left-padded with zeros; secret */
	const uint8_t *pubs[DER_KEY_PUBS_MAX];	/* embedded points, pointing into the DER */
	size_t pub_lens[DER_KEY_PUBS_MAX];
	size_t npubs;
};

/*
 * Parses der (exactly one element, nothing after it) as `kind` into *out, whose pubs point into
 * der. Checks structure, versions, algorithm and curve; not the scalar's range or the public keys
 * (keyfile.c does that). The scalar is only copied, never branched on. On error out->d is wiped.
 * Errors: P256_ERR_TRUNCATED, P256_ERR_TRAILING, P256_ERR_DER_*, P256_ERR_KEY_* (EMPTY for a
 * public key or certificate, ENCRYPTED, ALGORITHM, CURVE, EXPLICIT_CURVE, VERSION),
 * P256_ERR_SCALAR_RANGE for a scalar field empty or longer than 32 bytes.
 */
int der_key_parse(const uint8_t *der, size_t len, enum der_key_kind kind, struct der_key *out);

#endif
