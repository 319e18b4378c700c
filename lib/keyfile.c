/* SPDX-License-Identifier: ISC */
/* Key files: DER or PEM, the checks every key must pass, and loading from a path. */
#include "keyfile.h"

#include <string.h>

#include "base64.h"
#include "keyfile-der.h"
#include "keyfile-read.h"
#include "pem.h"

#define PRIVATE_KEY_SUFFIX " PRIVATE KEY"

/* An embedded public key equals pub when it is its SEC 1 uncompressed or compressed encoding. */
static int public_matches(const uint8_t *emb, size_t len, const uint8_t pub[P256_POINT_LEN])
{
	if (len == P256_POINT_LEN)
		return memcmp(emb, pub, P256_POINT_LEN) == 0;
	if (len == 1 + P256_SCALAR_LEN)
		return emb[0] == (0x02 | (pub[P256_POINT_LEN - 1] & 1)) &&
			memcmp(emb + 1, pub + 1, P256_SCALAR_LEN) == 0;
	return 0;
}

/*
 * Parses a DER key and checks it: 1 <= d < n and d*G (the signing core's constant-time path)
 * equals every embedded public key. Only the one-bit outcomes of these checks are public.
 */
static int key_from_der(const uint8_t *der, size_t len, enum der_key_kind kind, int pem,
	struct keyfile_key *out)
{
	struct der_key dk;
	int r = P256_ERR_INTERNAL;

	if ((r = der_key_parse(der, len, kind, &dk)) != 0 ||
	    (r = p256_public_from_private(dk.d, out->pub)) != 0)
		goto out;
	for (size_t i = 0; i < dk.npubs; i++) {
		if (!public_matches(dk.pubs[i], dk.pub_lens[i], out->pub)) {
			r = P256_ERR_KEY_PUBLIC_MISMATCH;
			goto out;
		}
	}
	memcpy(out->d, dk.d, P256_SCALAR_LEN);
	if (dk.kind == DER_KEY_PKCS8)
		out->form = pem ? KEYFILE_PKCS8_PEM : KEYFILE_PKCS8_DER;
	else
		out->form = pem ? KEYFILE_SEC1_PEM : KEYFILE_SEC1_DER;
	r = 0;
out:
	explicit_bzero(&dk, sizeof(dk));
	return r;
}

/* The structure a PEM label promises, or an error for a private key this program cannot use. */
static int label_kind(const struct pem_block *block, enum der_key_kind *kind, int *is_key)
{
	size_t n = strlen(PRIVATE_KEY_SUFFIX);

	*is_key = 1;
	if (pem_label_is(block, "PRIVATE KEY"))
		*kind = DER_KEY_PKCS8;
	else if (pem_label_is(block, "EC PRIVATE KEY"))
		*kind = DER_KEY_SEC1;
	else if (pem_label_is(block, "ENCRYPTED PRIVATE KEY"))
		return P256_ERR_KEY_ENCRYPTED;
	else if (block->label_len > n &&
	    memcmp(block->label + block->label_len - n, PRIVATE_KEY_SUFFIX, n) == 0)
		return P256_ERR_KEY_ALGORITHM; /* RSA, DSA, OPENSSH PRIVATE KEY, ... */
	else
		*is_key = 0;
	return 0;
}

/* The first private-key block; other blocks before it must still be well-formed. */
static int parse_pem(const uint8_t *buf, size_t len, struct keyfile_key *out)
{
	uint8_t der[KEYFILE_DER_MAX];
	size_t der_len = 0;
	struct pem_block block;
	struct cursor text;
	enum der_key_kind kind = DER_KEY_ANY;
	int is_key = 0, r = P256_ERR_INTERNAL;

	cursor_init(&text, buf, len);
	do {
		if ((r = pem_next(&text, &block)) != 0 || (r = label_kind(&block, &kind, &is_key)) != 0)
			goto out;
	} while (!is_key);
	if (block.encrypted) {
		r = P256_ERR_KEY_ENCRYPTED;
		goto out;
	}
	if ((r = base64_decode(block.body, block.body_len, der, sizeof(der), &der_len)) != 0) {
		if (r == P256_ERR_BUFFER)
			r = P256_ERR_KEY_TOO_LARGE;
		goto out;
	}
	r = key_from_der(der, der_len, kind, 1, out);
out:
	explicit_bzero(der, sizeof(der));
	return r;
}

int keyfile_parse(const uint8_t *buf, size_t len, struct keyfile_key *out)
{
	int r = P256_ERR_INTERNAL;

	memset(out, 0, sizeof(*out));
	if (keyfile_is_der(buf, len))
		r = key_from_der(buf, len, DER_KEY_ANY, 0, out);
	else
		r = parse_pem(buf, len, out);
	if (r != 0)
		keyfile_key_clear(out);
	return r;
}

int keyfile_load(const char *path, struct keyfile_key *out)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	int r = P256_ERR_INTERNAL;

	memset(out, 0, sizeof(*out));
	if ((r = keyfile_read_secret(path, KEYFILE_MAX, &buf, &len)) != 0 ||
	    (r = keyfile_parse(buf, len, out)) != 0)
		goto out;
out:
	keyfile_read_free(buf, KEYFILE_MAX);
	return r;
}

void keyfile_key_clear(struct keyfile_key *key)
{
	explicit_bzero(key, sizeof(*key));
}

const char *keyfile_form_name(enum keyfile_form form)
{
	switch (form) {
	case KEYFILE_PKCS8_DER:
		return "pkcs8-der";
	case KEYFILE_PKCS8_PEM:
		return "pkcs8-pem";
	case KEYFILE_SEC1_DER:
		return "sec1-der";
	case KEYFILE_SEC1_PEM:
		return "sec1-pem";
	}
	return "unknown";
}

