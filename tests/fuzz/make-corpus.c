/* SPDX-License-Identifier: ISC */
/*
 * Writes the seed corpora of the fuzz harnesses: make-corpus DIR writes DIR/der/NAME and
 * DIR/eip7951/NAME (the directories must exist). Deterministic: fixed keys, RFC 6979 nonces and
 * SHA-256 digests of fixed strings, so that rerunning it reproduces the committed files.
 */
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

#include "p256.h"

/* The RFC 6979 A.2.5 key, 1 (public point G) and n - 1. */
static const uint8_t KEYS[][P256_SCALAR_LEN] = {
	{ 0xc9, 0xaf, 0xa9, 0xd8, 0x45, 0xba, 0x75, 0x16, 0x6b, 0x5c, 0x21, 0x57, 0x67, 0xb1, 0xd6, 0x93,
	  0x4e, 0x50, 0xc3, 0xdb, 0x36, 0xe8, 0x9b, 0x12, 0x7b, 0x8a, 0x62, 0x2b, 0x12, 0x0f, 0x67, 0x21 },
	{ [31] = 1 },
	{ 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	  0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x50 },
};
#define NKEYS (sizeof(KEYS) / sizeof(KEYS[0]))

/* n, the group order */
static const uint8_t ORDER[32] = {
	0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51
};

static const char *dir;

static int put(const char *sub, const char *name, const uint8_t *p, size_t n)
{
	char path[4096];
	FILE *f;
	int ok;

	if (snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name) >= (int)sizeof(path) ||
	    (f = fopen(path, "wb")) == NULL) {
		perror(path);
		return -1;
	}
	ok = fwrite(p, 1, n, f) == n;
	if (fclose(f) != 0 || !ok) {
		perror(path);
		return -1;
	}
	return 0;
}

/* DER of a raw r||s, and the same bytes with one defect per file. */
static int der_files(const char *name, const uint8_t sig[P256_SIG_LEN])
{
	uint8_t der[P256_SIG_DER_MAX + 2], bad[P256_SIG_DER_MAX + 2];
	char fname[64];
	size_t len;

	if (p256_sig_to_der(sig, der, &len) != 0 || put("der", name, der, len) != 0)
		return -1;
	memcpy(bad, der, len);
	bad[len] = 0;				/* a trailing byte */
	snprintf(fname, sizeof(fname), "%s-trailing", name);
	if (put("der", fname, bad, len + 1) != 0)
		return -1;
	bad[0] = 0x31;				/* SET instead of SEQUENCE */
	snprintf(fname, sizeof(fname), "%s-tag", name);
	if (put("der", fname, bad, len) != 0)
		return -1;
	bad[0] = 0x30;				/* the same length in non-minimal long form */
	bad[1] = 0x81;
	bad[2] = der[1];
	memcpy(bad + 3, der + 2, len - 2);
	snprintf(fname, sizeof(fname), "%s-long-length", name);
	return put("der", fname, bad, len + 1);
}

/* hash || r || s || x || y, and variants that must all fail. */
static int eip_files(const char *name, const uint8_t digest[32], const uint8_t sig[64],
	const uint8_t pub[P256_POINT_LEN])
{
	uint8_t in[161];
	char fname[64];

	memcpy(in, digest, 32);
	memcpy(in + 32, sig, 64);
	memcpy(in + 96, pub + 1, 64);
	if (put("eip7951", name, in, 160) != 0)
		return -1;
	snprintf(fname, sizeof(fname), "%s-short", name);
	if (put("eip7951", fname, in, 159) != 0)
		return -1;
	in[160] = 0;
	snprintf(fname, sizeof(fname), "%s-long", name);
	if (put("eip7951", fname, in, 161) != 0)
		return -1;
	in[0] ^= 1;				/* another digest */
	snprintf(fname, sizeof(fname), "%s-digest", name);
	if (put("eip7951", fname, in, 160) != 0)
		return -1;
	in[0] ^= 1;
	memcpy(in + 64, ORDER, 32);		/* s = n */
	snprintf(fname, sizeof(fname), "%s-s-order", name);
	if (put("eip7951", fname, in, 160) != 0)
		return -1;
	memcpy(in + 64, sig + 32, 32);
	in[159] ^= 1;				/* a point off the curve */
	snprintf(fname, sizeof(fname), "%s-off-curve", name);
	return put("eip7951", fname, in, 160);
}

int main(int argc, char **argv)
{
	uint8_t digest[32], sig[P256_SIG_LEN], pub[P256_POINT_LEN], raw[P256_SIG_LEN];
	char msg[32], name[32];
	int r;

	if (argc != 2) {
		fprintf(stderr, "usage: make-corpus DIR\n");
		return 2;
	}
	dir = argv[1];
	for (size_t i = 0; i < NKEYS; i++) {
		snprintf(msg, sizeof(msg), "corpus message %zu", i);
		if (EVP_Digest(msg, strlen(msg), digest, NULL, EVP_sha256(), NULL) != 1)
			return fprintf(stderr, "make-corpus: SHA-256 failed\n"), 1;
		if ((r = p256_public_from_private(KEYS[i], pub)) != 0 ||
		    (r = p256_sign(KEYS[i], digest, P256_NONCE_DETERMINISTIC, NULL, 0, sig)) != 0)
			return fprintf(stderr, "make-corpus: %s\n", p256_strerror(r)), 1;
		snprintf(name, sizeof(name), "sig-%zu", i);
		if (der_files(name, sig) != 0)
			return 1;
		snprintf(name, sizeof(name), "valid-%zu", i);
		if (eip_files(name, digest, sig, pub) != 0)
			return 1;
	}
	/* integers of every DER shape: zero, short, high bit set (a sign byte), the maximum */
	memset(raw, 0, sizeof(raw));
	raw[63] = 1;
	if (der_files("zero-one", raw) != 0)
		return 1;
	memset(raw, 0xff, sizeof(raw));
	if (der_files("all-ones", raw) != 0)
		return 1;
	memset(raw, 0, sizeof(raw));
	raw[31] = 0x80;
	raw[40] = 0x7f;
	return der_files("short", raw) != 0;
}
