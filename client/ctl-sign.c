/* SPDX-License-Identifier: ISC */
/*
 * p256signctl sign KEY (--digest HEX | --file PATH | -) [--format der|raw] [--out FILE]: files
 * and stdin are hashed here (streamed), and only the digest goes to the daemon.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "ctl-digest.h"

static void print_json(const char *key, int format, const uint8_t digest[P256SIGN_DIGEST_LEN],
	const uint8_t *sig, size_t sig_len)
{
	printf("{\"key\": \"%s\", \"format\": \"%s\", \"digest\": \"", key,
		format == P256SIGN_DER ? "der" : "raw");
	ctl_put_hex(digest, P256SIGN_DIGEST_LEN);
	printf("\", \"signature\": \"");
	ctl_put_hex(sig, sig_len);
	printf("\"}\n");
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
	if (out != NULL && ctl_write_file(out, sig, sig_len) != 0)
		return ctl_error("sign", "%s: %s", out, strerror(errno));
	if (o->json)
		print_json(key_arg, format, digest, sig, sig_len);
	else if (out == NULL)
		ctl_print_hex(sig, sig_len);
	return CTL_EXIT_OK;
}
