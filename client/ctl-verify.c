/* SPDX-License-Identifier: ISC */
/*
 * p256signctl verify: with KEY the daemon answers; with --pubkey or --pubkey-hex the signing core
 * verifies here, offline. Prints "valid" (exit 0) or "invalid" (exit 1); a signature that cannot
 * even be decoded is invalid.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "base64.h"
#include "ctl-digest.h"
#include "cursor.h"
#include "p256.h"
#include "pem.h"

/* The most bytes of a public key file: a PEM SubjectPublicKeyInfo with room for comments. */
#define PUBKEY_FILE_MAX 4096

struct verify_args {
	const char *key;		/* KEY: ask the daemon */
	const char *pubkey_file;	/* --pubkey FILE */
	const char *pubkey_hex;		/* --pubkey-hex HEX */
	const char *sig_file;		/* --signature FILE */
	const char *sig_hex;		/* --signature-hex HEX */
	struct ctl_digest digest;
	int format;
};

/*
 * A public point from DER or raw bytes: a P-256 SubjectPublicKeyInfo (exactly the 91 bytes the
 * core would build for its last 65 bytes), a bare 65-byte SEC 1 point on the curve, or a 33-byte
 * SEC 1 compressed one (decompressed with its square root checked).
 */
static int point_from_bytes(const uint8_t *p, size_t len, uint8_t point[P256_POINT_LEN])
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

static int load_pubkey(const struct verify_args *a, uint8_t point[P256_POINT_LEN])
{
	uint8_t buf[PUBKEY_FILE_MAX], der[PUBKEY_FILE_MAX];
	size_t len, der_len;

	if (a->pubkey_hex != NULL) {
		if (ctl_hex_decode(a->pubkey_hex, buf, sizeof(buf), &len) != 0 ||
		    point_from_bytes(buf, len, point) != 0)
			return ctl_error("verify", "--pubkey-hex is not a P-256 point (SEC 1, uncompressed "
				"or compressed) or SubjectPublicKeyInfo");
		return 0;
	}
	if (ctl_read_file(a->pubkey_file, buf, sizeof(buf), &len) != 0)
		return ctl_error("verify", "%s: %s", a->pubkey_file, strerror(errno));
	if (point_from_bytes(buf, len, point) == 0 ||
	    (pem_public_key(buf, len, der, sizeof(der), &der_len) == 0 &&
	     point_from_bytes(der, der_len, point) == 0))
		return 0;
	return ctl_error("verify", "%s: not a P-256 public key (PEM or DER SubjectPublicKeyInfo, "
		"or a SEC 1 point, uncompressed or compressed)", a->pubkey_file);
}

static int load_signature(const struct verify_args *a, uint8_t *sig, size_t *len)
{
	if (a->sig_hex != NULL) {
		if (ctl_hex_decode(a->sig_hex, sig, P256SIGN_SIG_MAX, len) != 0)
			return ctl_error("verify", "--signature-hex must be hex of at most %d bytes",
				P256SIGN_SIG_MAX);
		return 0;
	}
	if (ctl_read_file(a->sig_file, sig, P256SIGN_SIG_MAX, len) != 0)
		return ctl_error("verify", "%s: %s", a->sig_file,
			errno == EFBIG ? "larger than any signature" : strerror(errno));
	return 0;
}

/* The core's answer: 1 valid, 0 invalid (undecodable counts as invalid). */
static int verify_offline(const uint8_t point[P256_POINT_LEN], const uint8_t *digest, int format,
	const uint8_t *sig, size_t sig_len)
{
	uint8_t rs[P256_SIG_LEN];

	if (format == P256SIGN_RAW) {
		if (sig_len != P256_SIG_LEN)
			return 0;
		memcpy(rs, sig, P256_SIG_LEN);
	} else if (p256_sig_from_der(sig, sig_len, rs) != 0) {
		return 0;
	}
	return p256_verify(point, P256_POINT_LEN, digest, rs, 0) == 0;
}

/* The daemon's answer: 1 valid, 0 invalid, or -1 after printing the error. */
static int verify_online(const struct ctl_options *o, const char *key_arg, const uint8_t *digest,
	int format, const uint8_t *sig, size_t sig_len)
{
	uint8_t id[P256SIGN_KEY_ID_LEN];
	struct p256sign_key key;
	struct p256sign *h;
	int r, valid = 0;

	if (ctl_parse_key(key_arg, &key, id) != 0) {
		ctl_error("verify", "KEY must be a key name or id: and 64 hex digits");
		return -1;
	}
	if ((h = ctl_connect(o, "verify")) == NULL)
		return -1;
	r = p256sign_verify(h, &key, digest, format, sig, sig_len, &valid);
	p256sign_close(h);
	if (r == P256SIGN_E_BAD_SIGNATURE)
		return 0;
	if (r != 0) {
		ctl_lib_error("verify", r);
		return -1;
	}
	return valid;
}

static int parse_args(struct verify_args *a, int argc, char **argv)
{
	static const struct option options[] = {
		{ "pubkey", required_argument, NULL, 'p' },
		{ "pubkey-hex", required_argument, NULL, 'P' },
		{ "signature", required_argument, NULL, 's' },
		{ "signature-hex", required_argument, NULL, 'S' },
		{ "digest", required_argument, NULL, 'd' },
		{ "file", required_argument, NULL, 'f' },
		{ "format", required_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "-p:P:s:S:d:f:F:", options, NULL)) != -1) {
		switch (opt) {
		case 'p': a->pubkey_file = optarg; break;
		case 'P': a->pubkey_hex = optarg; break;
		case 's': a->sig_file = optarg; break;
		case 'S': a->sig_hex = optarg; break;
		case 'd':
		case 'f':
			if (ctl_digest_set(&a->digest, "verify", opt == 'd' ? optarg : NULL,
					opt == 'f' ? optarg : NULL) != 0)
				return -1;
			break;
		case 'F':
			if (ctl_parse_format(optarg, &a->format) != 0)
				return -1;
			break;
		case 1:
			if (a->key != NULL)
				return -1;
			a->key = optarg;
			break;
		default:
			return -1;
		}
	}
	if ((a->key != NULL) + (a->pubkey_file != NULL) + (a->pubkey_hex != NULL) != 1 ||
	    (a->sig_file != NULL) + (a->sig_hex != NULL) != 1 ||
	    (a->digest.hex == NULL && a->digest.file == NULL))
		return -1;
	return 0;
}

int ctl_verify(const struct ctl_options *o, int argc, char **argv)
{
	struct verify_args a = { .format = P256SIGN_DER };
	uint8_t digest[P256SIGN_DIGEST_LEN], sig[P256SIGN_SIG_MAX], point[P256_POINT_LEN];
	size_t sig_len;
	int r, valid;

	if (parse_args(&a, argc, argv) != 0)
		return ctl_usage("verify");
	if ((r = ctl_digest_get(&a.digest, "verify", digest)) != 0 ||
	    (r = load_signature(&a, sig, &sig_len)) != 0)
		return r;
	if (a.key != NULL) {
		if ((valid = verify_online(o, a.key, digest, a.format, sig, sig_len)) < 0)
			return CTL_EXIT_REFUSED;
	} else {
		if ((r = load_pubkey(&a, point)) != 0)
			return r;
		valid = verify_offline(point, digest, a.format, sig, sig_len);
	}
	if (o->json)
		printf("{\"valid\": %s}\n", valid ? "true" : "false");
	else
		printf("%s\n", valid ? "valid" : "invalid");
	return valid ? CTL_EXIT_OK : CTL_EXIT_REFUSED;
}
