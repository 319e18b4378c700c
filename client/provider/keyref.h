/* SPDX-License-Identifier: ISC */
#ifndef P256SIGN_PROVIDER_KEYREF_H
#define P256SIGN_PROVIDER_KEYREF_H

/*
 * A key reference (keyref.c): what a key object needs to sign through the daemon. Passed by
 * value as the OSSL_OBJECT_PARAM_REFERENCE of a loaded key (so it has no lifetime of its own);
 * `magic` and the size tell a reference of ours from anything else.
 */
#include <stddef.h>
#include <stdint.h>

#include "p256sign.h"
#include "provider.h"
#include "purpose.h"
#include "sign-input.h"

#define KEYREF_MAGIC 0x70323536u	/* "p256" */

struct keyref {
	uint32_t magic;
	const struct prov_ctx *prov;
	int by_id;				/* 1: id selects the key, 0: name */
	char name[P256SIGN_KEYREF_NAME_MAX + 1];
	uint8_t id[P256SIGN_KEY_ID_LEN];
	char socket[P256SIGN_KEYREF_SOCKET_MAX + 1];	/* "" until resolved */
	int timeout_ms;
	uint8_t point[P256SIGN_POINT_LEN];	/* the public key, from the daemon at load */
	char purpose[PURPOSE_MAX + 1];		/* the key's, from the daemon at load; "" unknown */
};

/* An empty reference of the provider's (no key named yet). */
void keyref_init(struct keyref *ref, const struct prov_ctx *prov);

/*
 * Parses a URI `p256sign:NAME` or `p256sign:id=HEX` (64 hex digits), optionally followed by
 * `;socket=PATH`, into *ref (not resolved yet). 0, or -1 with an error raised.
 */
int keyref_parse_uri(const struct prov_ctx *prov, const char *uri, struct keyref *ref);

/*
 * Asks the daemon for the key's public point and purpose (the key load: a missing daemon or key
 * is an error here, not at the first signature) and fixes the socket path the key will use. 0
 * or -1 with an error raised.
 */
int keyref_resolve(struct keyref *ref);

/* Signs in; DER signature into sig (cap bytes), its length into *len. 0 or -1. */
int keyref_sign(const struct keyref *ref, const struct sign_input *in, uint8_t *sig, size_t cap,
	size_t *len);

/* The key's selector for libp256sign calls. */
struct p256sign_key keyref_selector(const struct keyref *ref);

#endif
