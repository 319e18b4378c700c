/* SPDX-License-Identifier: ISC */
/*
 * p256signctl sign KEY (--digest HEX | --file PATH | -) [--format der|raw] [--out FILE]: files
 * and stdin are hashed here (streamed), and only the digest goes to the daemon.
 * p256signctl sign-tls13 KEY --transcript-hash HEX [--client] [--format ..] [--out FILE]: a TLS
 * 1.3 CertificateVerify signature, whose content the daemon builds (SIGN_TLS).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "ctl-digest.h"

/* The signature to --out, or in hex, or as JSON naming what was signed (`what`: in hex). */
static int print_signature(const struct ctl_options *o, const char *cmd, const char *key,
	int format, const char *label, const uint8_t *what, size_t what_len, const uint8_t *sig,
	size_t sig_len, const char *out)
{
	if (out != NULL && ctl_write_file(out, sig, sig_len) != 0)
		return ctl_error(cmd, "%s: %s", out, strerror(errno));
	if (o->json) {
		printf("{\"key\": \"%s\", \"format\": \"%s\", \"%s\": \"", key,
			format == P256SIGN_DER ? "der" : "raw", label);
		ctl_put_hex(what, what_len);
		printf("\", \"signature\": \"");
		ctl_put_hex(sig, sig_len);
		printf("\"}\n");
	} else if (out == NULL)
		ctl_print_hex(sig, sig_len);
	return CTL_EXIT_OK;
}

int ctl_sign(const struct ctl_options *o, int argc, char **argv)
{
	static const struct option options[] = {
		{ "digest", required_argument, NULL, 'd' },
		{ "file", required_argument, NULL, 'f' },
		{ "format", required_argument, NULL, 'F' },
		{ "out", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	uint8_t digest[P256SIGN_DIGEST_LEN], id[P256SIGN_KEY_ID_LEN], sig[P256SIGN_SIG_MAX];
	struct ctl_digest src = { 0 };
	struct p256sign_key key;
	const char *out = NULL, *key_arg = NULL;
	struct p256sign *h;
	int format = P256SIGN_DER, opt, r;
	size_t sig_len;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "-d:f:F:o:", options, NULL)) != -1) {
		switch (opt) {
		case 'd':
		case 'f':
			if ((r = ctl_digest_set(&src, "sign", opt == 'd' ? optarg : NULL,
					opt == 'f' ? optarg : NULL)) != 0)
				return r;
			break;
		case 'F':
			if (ctl_parse_format(optarg, &format) != 0)
				return ctl_usage("sign");
			break;
		case 'o':
			out = optarg;
			break;
		case 1:	/* a positional argument: KEY, then "-" for stdin */
			if (key_arg == NULL)
				key_arg = optarg;
			else if (strcmp(optarg, "-") != 0 ||
				 (r = ctl_digest_set(&src, "sign", NULL, "-")) != 0)
				return ctl_usage("sign");
			break;
		default:
			return ctl_usage("sign");
		}
	}
	if (key_arg == NULL || optind != argc)
		return ctl_usage("sign");
	if (ctl_parse_key(key_arg, &key, id) != 0)
		return ctl_error("sign", "KEY must be a key name or id: and 64 hex digits");
	if ((r = ctl_digest_get(&src, "sign", digest)) != 0)
		return r;
	if ((h = ctl_connect(o, "sign")) == NULL)
		return CTL_EXIT_REFUSED;
	r = p256sign_sign_digest(h, &key, digest, format, sig, sizeof(sig), &sig_len);
	p256sign_close(h);
	if (r != 0)
		return ctl_lib_error("sign", r);
	return print_signature(o, "sign", key_arg, format, "digest", digest, sizeof(digest), sig,
	    sig_len, out);
}

int ctl_sign_tls13(const struct ctl_options *o, int argc, char **argv)
{
	static const struct option options[] = {
		{ "transcript-hash", required_argument, NULL, 't' },
		{ "client", no_argument, NULL, 'c' },
		{ "format", required_argument, NULL, 'F' },
		{ "out", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	uint8_t hash[64], id[P256SIGN_KEY_ID_LEN], sig[P256SIGN_SIG_MAX];
	struct p256sign_tls tls = { .kind = P256SIGN_TLS13, .side = P256SIGN_TLS_SERVER,
		.hash = hash };
	struct p256sign_key key;
	const char *out = NULL, *key_arg = NULL, *hex = NULL;
	struct p256sign *h;
	int format = P256SIGN_DER, opt, r;
	size_t sig_len;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "-t:cF:o:", options, NULL)) != -1) {
		switch (opt) {
		case 't':
			hex = optarg;
			break;
		case 'c':
			tls.side = P256SIGN_TLS_CLIENT;
			break;
		case 'F':
			if (ctl_parse_format(optarg, &format) != 0)
				return ctl_usage("sign-tls13");
			break;
		case 'o':
			out = optarg;
			break;
		case 1:
			if (key_arg != NULL)
				return ctl_usage("sign-tls13");
			key_arg = optarg;
			break;
		default:
			return ctl_usage("sign-tls13");
		}
	}
	if (key_arg == NULL || hex == NULL || optind != argc)
		return ctl_usage("sign-tls13");
	if (ctl_parse_key(key_arg, &key, id) != 0)
		return ctl_error("sign-tls13", "KEY must be a key name or id: and 64 hex digits");
	if (ctl_hex_decode(hex, hash, sizeof(hash), &tls.hash_len) != 0 ||
	    (tls.hash_len != 32 && tls.hash_len != 48 && tls.hash_len != 64))
		return ctl_error("sign-tls13", "--transcript-hash must be 32, 48 or 64 bytes in hex");
	if ((h = ctl_connect(o, "sign-tls13")) == NULL)
		return CTL_EXIT_REFUSED;
	r = p256sign_sign_tls(h, &key, &tls, format, sig, sizeof(sig), &sig_len);
	p256sign_close(h);
	if (r != 0)
		return ctl_lib_error("sign-tls13", r);
	return print_signature(o, "sign-tls13", key_arg, format, "transcript_hash", hash,
	    tls.hash_len, sig, sig_len, out);
}
