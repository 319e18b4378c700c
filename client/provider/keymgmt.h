/* SPDX-License-Identifier: ISC */
#ifndef P256SIGN_PROVIDER_KEYMGMT_H
#define P256SIGN_PROVIDER_KEYMGMT_H

#include <stdint.h>

#include "keyref.h"
#include "p256sign.h"
#include "provider.h"

/*
 * A key object of the keymgmt (keymgmt.c), which signature.c signs with. A key loaded from the
 * store or a key-reference file holds a reference (has_ref) and can sign; a key imported from
 * another provider (a certificate's, for EVP_PKEY_eq) holds only its public point.
 */
struct prov_key {
	const struct prov_ctx *prov;
	int has_ref;
	struct keyref ref;
	uint8_t point[P256SIGN_POINT_LEN];
	int has_point;
};

#endif
