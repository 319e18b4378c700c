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

#include "ctl-digest.h"
#include "p256.h"

struct verify_args {
	const char *key;		/* KEY: ask the daemon */
	const char *pubkey_file;	/* --pubkey FILE */
	const char *pubkey_hex;		/* --pubkey-hex HEX */
	const char *sig_file;		/* --signature FILE */
	const char *sig_hex;		/* --signature-hex HEX */
	struct ctl_digest digest;
	int format;
};

static int load_pubkey(const struct verify_args *a, uint8_t point[P256_POINT_LEN])
{
	uint8_t buf[P256_SPKI_LEN];
	size_t len;

	if (a->pubkey_hex != NULL) {
		if (ctl_hex_decode(a->pubkey_hex, buf, sizeof(buf), &len) != 0 ||
		    ctl_point_from_bytes(buf, len, point) != 0)
			return ctl_error("verify", "--pubkey-hex is not a P-256 point (SEC 1, uncompressed "
				"or compressed) or SubjectPublicKeyInfo");
		return 0;
	}
	return ctl_load_pubkey_file("verify", a->pubkey_file, point) == 0 ? 0 : CTL_EXIT_REFUSED;
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
