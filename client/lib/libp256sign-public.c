/* SPDX-License-Identifier: ISC */
/* Public key material without the daemon: key ids in hex, and the check of a P-256 point. */
#include "hex.h"
#include "libp256sign-private.h"
#include "p256.h"

_Static_assert(P256SIGN_POINT_LEN == P256_POINT_LEN, "point length");

void p256sign_key_id_format(const uint8_t id[P256SIGN_KEY_ID_LEN],
	char hex[2 * P256SIGN_KEY_ID_LEN + 1])
{
	hex_encode(id, P256SIGN_KEY_ID_LEN, hex);
}

int p256sign_key_id_parse(const char *hex, size_t len, uint8_t id[P256SIGN_KEY_ID_LEN])
{
	size_t n;

	if (hex == NULL || id == NULL || len != 2 * P256SIGN_KEY_ID_LEN ||
	    hex_decode(hex, len, id, P256SIGN_KEY_ID_LEN, &n) != 0 || n != P256SIGN_KEY_ID_LEN)
		return P256SIGN_E_INVALID;
	return 0;
}

int p256sign_point_check(const uint8_t point[P256SIGN_POINT_LEN])
{
	return point != NULL && p256_point_check(point) == 0 ? 0 : P256SIGN_E_BAD_POINT;
}
