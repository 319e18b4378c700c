/* SPDX-License-Identifier: ISC */
/*
 * Public keys given to the offline commands (verify --pubkey, audit-verify --pubkey): a PEM or DER
 * SubjectPublicKeyInfo, as p256signctl pubkey writes it, or a bare SEC 1 point, uncompressed or
 * compressed (decompressed with its square root checked).
 */
#include <errno.h>
#include <string.h>

#include "base64.h"
#include "ctl.h"
#include "cursor.h"
#include "p256.h"
#include "pem.h"

/* The most bytes of a public key file: a PEM SubjectPublicKeyInfo with room for comments. */
#define PUBKEY_FILE_MAX 4096

int ctl_point_from_bytes(const uint8_t *p, size_t len, uint8_t point[P256SIGN_POINT_LEN])
{
	uint8_t spki[P256_SPKI_LEN];

	if (len == P256_POINT_COMPRESSED_LEN)
		return p256_point_decompress(p, point) == 0 ? 0 : -1;
	if (len == P256_SPKI_LEN) {
		memcpy(point, p + P256_SPKI_LEN - P256_POINT_LEN, P256_POINT_LEN);
		p256_spki(point, spki);
		if (memcmp(spki, p, P256_SPKI_LEN) != 0)
			return -1;
	} else if (len == P256_POINT_LEN) {
		memcpy(point, p, P256_POINT_LEN);
	} else {
		return -1;
	}
	return p256_point_check(point) == 0 ? 0 : -1;
}

/* A "PUBLIC KEY" PEM block's DER bytes into der. */
static int pem_public_key(const uint8_t *text, size_t len, uint8_t *der, size_t cap,
	size_t *der_len)
{
	struct cursor c;
	struct pem_block b;

	cursor_init(&c, text, len);
	while (pem_next(&c, &b) == 0)
		if (pem_label_is(&b, "PUBLIC KEY"))
			return base64_decode(b.body, b.body_len, der, cap, der_len) == 0 ? 0 : -1;
	return -1;
}

int ctl_load_pubkey_file(const char *cmd, const char *path, uint8_t point[P256SIGN_POINT_LEN])
{
	uint8_t buf[PUBKEY_FILE_MAX], der[PUBKEY_FILE_MAX];
	size_t len, der_len;

	if (ctl_read_file(path, buf, sizeof(buf), &len) != 0) {
		ctl_error(cmd, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (ctl_point_from_bytes(buf, len, point) == 0 ||
	    (pem_public_key(buf, len, der, sizeof(der), &der_len) == 0 &&
	     ctl_point_from_bytes(der, der_len, point) == 0))
		return 0;
	ctl_error(cmd, "%s: not a P-256 public key (PEM or DER SubjectPublicKeyInfo, or a SEC 1 point, "
		"uncompressed or compressed)", path);
	return -2;
}
