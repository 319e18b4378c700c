/* SPDX-License-Identifier: ISC */
#ifndef P256SIGN_KEYREF_DER_H
#define P256SIGN_KEYREF_DER_H

/*
 * Key-reference files: a key held by p256signd named in a PEM block that TLS servers read as
 * their private key file (the provider's decoder turns it into a key). The block's label is
 * KEYREF_PEM_LABEL and its body this DER (docs/tls.md):
 *
 *   P256SignKeyReference ::= SEQUENCE {
 *       version  INTEGER (1),
 *       key      CHOICE { name [0] IMPLICIT UTF8String (SIZE (1..64)),
 *                         id   [1] IMPLICIT OCTET STRING (SIZE (32)) },
 *       socket   UTF8String (SIZE (1..107))  -- the daemon's Unix socket path
 *   }
 */

#include <stddef.h>
#include <stdint.h>

#include "p256sign.h"

#define KEYREF_PEM_LABEL "P256SIGN KEY REFERENCE"
#define KEYREF_VERSION 1
#define KEYREF_NAME_MAX 64
#define KEYREF_SOCKET_MAX 107	/* sun_path less its NUL */
#define KEYREF_DER_MAX 192	/* the longest encoding */

struct keyref_der {
	int by_id;
	char name[KEYREF_NAME_MAX + 1];		/* NUL-terminated; when !by_id */
	uint8_t id[P256SIGN_KEY_ID_LEN];	/* when by_id */
	char socket[KEYREF_SOCKET_MAX + 1];	/* NUL-terminated */
};

/* Refusals of keyref_der_decode, each with its message (keyref_der_strerror). */
enum keyref_der_error {
	KEYREF_E_STRUCTURE = -1,	/* not a SEQUENCE of the three fields in DER */
	KEYREF_E_VERSION = -2,		/* a version other than 1 */
	KEYREF_E_KEY_TAG = -3,		/* the key is neither [0] name nor [1] id */
	KEYREF_E_NAME = -4,		/* a name empty, over 64 bytes or with a NUL */
	KEYREF_E_ID = -5,		/* an id that is not 32 bytes */
	KEYREF_E_SOCKET = -6,		/* a socket path empty, over 107 bytes or with a NUL */
	KEYREF_E_TRAILING = -7,		/* bytes after a field or after the SEQUENCE */
	KEYREF_E_BUFFER = -8,		/* keyref_der_encode: the output does not fit */
};

/* Parses der (len bytes, untrusted) into *out. 0 or a KEYREF_E_* code. */
int keyref_der_decode(const uint8_t *der, size_t len, struct keyref_der *out);

/* Encodes *in (fields as keyref_der_decode accepts them) into out. 0 or a KEYREF_E_* code. */
int keyref_der_encode(const struct keyref_der *in, uint8_t *out, size_t cap, size_t *len);

/* A one-line message for a KEYREF_E_* code. */
const char *keyref_der_strerror(int err);

#endif
