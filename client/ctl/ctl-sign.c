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

/* What both commands take: KEY, --format and --out. */
struct sign_args {
	const char *cmd;
	const char *key_arg;
	struct p256sign_key key;
	uint8_t id[P256SIGN_KEY_ID_LEN];	/* key's, when KEY is id:HEX */
	int format;
	const char *out;
};

/*
 * getopt_long's next option (-1 at the end) that is not one both commands have: --format and
 * --out are taken into a here, a bad --format value comes back as '?'.
 */
static int next_option(int argc, char **argv, const char *shortopts,
	const struct option *options, struct sign_args *a)
{
	int opt;

	while ((opt = getopt_long(argc, argv, shortopts, options, NULL)) != -1) {
		if (opt == 'F' && ctl_parse_format(optarg, &a->format) != 0)
			return '?';
		if (opt == 'o')
			a->out = optarg;
		else if (opt != 'F')
			return opt;
	}
	return -1;
}

/* KEY, once the options are read, as the selector of the request. */
static int select_key(struct sign_args *a)
{
	if (ctl_parse_key(a->key_arg, &a->key, a->id) != 0)
		return ctl_error(a->cmd, "KEY must be a key name or id: and 64 hex digits");
	return 0;
}

/* The signature to --out, or in hex, or as JSON naming what was signed (`what`: in hex). */
static int print_signature(const struct ctl_options *o, const struct sign_args *a,
	const char *label, const uint8_t *what, size_t what_len, const uint8_t *sig,
	size_t sig_len)
{
	if (a->out != NULL && ctl_write_file(a->out, sig, sig_len) != 0)
		return ctl_error(a->cmd, "%s: %s", a->out, strerror(errno));
	if (o->json) {
		printf("{\"key\": \"%s\", \"format\": \"%s\", \"%s\": \"", a->key_arg,
			a->format == P256SIGN_DER ? "der" : "raw", label);
		ctl_put_hex(what, what_len);
		printf("\", \"signature\": \"");
		ctl_put_hex(sig, sig_len);
		printf("\"}\n");
	} else if (a->out == NULL)
		ctl_print_hex(sig, sig_len);
	return CTL_EXIT_OK;
}

/* sign's arguments: KEY and where the digest comes from (--digest, --file or "-"). */
static int parse_sign_args(int argc, char **argv, struct sign_args *a, struct ctl_digest *src)
{
	static const struct option options[] = {
		{ "digest", required_argument, NULL, 'd' },
		{ "file", required_argument, NULL, 'f' },
		{ "format", required_argument, NULL, 'F' },
		{ "out", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, r;

	optind = 1;
	while ((opt = next_option(argc, argv, "-d:f:F:o:", options, a)) != -1) {
		switch (opt) {
		case 'd':
		case 'f':
			if ((r = ctl_digest_set(src, a->cmd, opt == 'd' ? optarg : NULL,
					opt == 'f' ? optarg : NULL)) != 0)
				return r;
			break;
		case 1:	/* a positional argument: KEY, then "-" for stdin */
			if (a->key_arg == NULL)
				a->key_arg = optarg;
			else if (strcmp(optarg, "-") != 0 ||
				 (r = ctl_digest_set(src, a->cmd, NULL, "-")) != 0)
				return ctl_usage(a->cmd);
			break;
		default:
			return ctl_usage(a->cmd);
		}
	}
	if (a->key_arg == NULL || optind != argc)
		return ctl_usage(a->cmd);
	return select_key(a);
}

int ctl_sign(const struct ctl_options *o, int argc, char **argv)
{
	struct sign_args a = { .cmd = "sign", .format = P256SIGN_DER };
	uint8_t digest[P256SIGN_DIGEST_LEN], sig[P256SIGN_SIG_MAX];
	struct ctl_digest src = { 0 };
	struct p256sign *h;
	size_t sig_len;
	int r;

	if ((r = parse_sign_args(argc, argv, &a, &src)) != 0 ||
	    (r = ctl_digest_get(&src, a.cmd, digest)) != 0)
		return r;
	if ((h = ctl_connect(o, a.cmd)) == NULL)
		return CTL_EXIT_REFUSED;
	r = p256sign_sign_digest(h, &a.key, digest, a.format, sig, sizeof(sig), &sig_len);
	p256sign_close(h);
	if (r != 0)
		return ctl_lib_error(a.cmd, r);
	return print_signature(o, &a, "digest", digest, sizeof(digest), sig, sig_len);
}

/* sign-tls13's arguments: KEY, the side and the transcript hash (into tls, hash: 64 bytes). */
static int parse_tls13_args(int argc, char **argv, struct sign_args *a, struct p256sign_tls *tls,
	uint8_t hash[64])
{
	static const struct option options[] = {
		{ "transcript-hash", required_argument, NULL, 't' },
		{ "client", no_argument, NULL, 'c' },
		{ "format", required_argument, NULL, 'F' },
		{ "out", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	const char *hex = NULL;
	int opt, r;

	optind = 1;
	while ((opt = next_option(argc, argv, "-t:cF:o:", options, a)) != -1) {
		switch (opt) {
		case 't':
			hex = optarg;
			break;
		case 'c':
			tls->side = P256SIGN_TLS_CLIENT;
			break;
		case 1:
			if (a->key_arg != NULL)
				return ctl_usage(a->cmd);
			a->key_arg = optarg;
			break;
		default:
			return ctl_usage(a->cmd);
		}
	}
	if (a->key_arg == NULL || hex == NULL || optind != argc)
		return ctl_usage(a->cmd);
	if ((r = select_key(a)) != 0)
		return r;
	if (ctl_hex_decode(hex, hash, 64, &tls->hash_len) != 0 ||
	    (tls->hash_len != 32 && tls->hash_len != 48 && tls->hash_len != 64))
		return ctl_error(a->cmd, "--transcript-hash must be 32, 48 or 64 bytes in hex");
	return 0;
}

int ctl_sign_tls13(const struct ctl_options *o, int argc, char **argv)
{
	struct sign_args a = { .cmd = "sign-tls13", .format = P256SIGN_DER };
	uint8_t hash[64], sig[P256SIGN_SIG_MAX];
	struct p256sign_tls tls = { .kind = P256SIGN_TLS13, .side = P256SIGN_TLS_SERVER,
		.hash = hash };
	struct p256sign *h;
	size_t sig_len;
	int r;

	if ((r = parse_tls13_args(argc, argv, &a, &tls, hash)) != 0)
		return r;
	if ((h = ctl_connect(o, a.cmd)) == NULL)
		return CTL_EXIT_REFUSED;
	r = p256sign_sign_tls(h, &a.key, &tls, a.format, sig, sizeof(sig), &sig_len);
	p256sign_close(h);
	if (r != 0)
		return ctl_lib_error(a.cmd, r);
	return print_signature(o, &a, "transcript_hash", hash, tls.hash_len, sig, sig_len);
}
