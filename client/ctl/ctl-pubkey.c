/* SPDX-License-Identifier: ISC */
/*
 * p256signctl pubkey KEY [--format pem|der|hex|sec1|sec1-compressed]: a key's public key from the
 * daemon.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "ctl.h"
#include "p256.h"

static void print_json(const struct p256sign_pubkey *pub)
{
	printf("{\"key_id\": \"");
	ctl_put_hex(pub->key_id, sizeof(pub->key_id));
	printf("\", \"public_key\": \"");
	ctl_put_hex(pub->point, sizeof(pub->point));
	printf("\", \"spki\": \"");
	ctl_put_hex(pub->spki, sizeof(pub->spki));
	printf("\"}\n");
}

/* The 33-byte SEC 1 compressed point; the library checked the point when it got it. */
static int write_compressed(const uint8_t point[P256SIGN_POINT_LEN])
{
	uint8_t c[P256_POINT_COMPRESSED_LEN];

	if (p256_point_compress(point, c) != 0) {
		errno = EINVAL;
		return -1;
	}
	return ctl_write_file(NULL, c, sizeof(c));
}

int ctl_pubkey(const struct ctl_options *o, int argc, char **argv)
{
	static const struct option options[] = {
		{ "format", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	struct p256sign_key key;
	struct p256sign_pubkey pub;
	uint8_t id[P256SIGN_KEY_ID_LEN];
	const char *format = "pem";
	struct p256sign *h;
	int opt, r;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "f:", options, NULL)) != -1) {
		if (opt != 'f')
			return ctl_usage("pubkey");
		format = optarg;
	}
	if (optind != argc - 1 || (strcmp(format, "pem") != 0 && strcmp(format, "der") != 0 &&
	    strcmp(format, "hex") != 0 && strcmp(format, "sec1") != 0 &&
	    strcmp(format, "sec1-compressed") != 0))
		return ctl_usage("pubkey");
	if (ctl_parse_key(argv[optind], &key, id) != 0)
		return ctl_error("pubkey", "KEY must be a key name or id: and 64 hex digits");
	if ((h = ctl_connect(o, "pubkey")) == NULL)
		return CTL_EXIT_REFUSED;
	r = p256sign_get_pubkey(h, &key, &pub);
	p256sign_close(h);
	if (r != 0)
		return ctl_lib_error("pubkey", r);
	if (o->json)
		print_json(&pub);
	else if (strcmp(format, "pem") == 0)
		r = ctl_write_pem(NULL, "PUBLIC KEY", pub.spki, sizeof(pub.spki));
	else if (strcmp(format, "hex") == 0)
		ctl_print_hex(pub.point, sizeof(pub.point));
	else if (strcmp(format, "der") == 0)
		r = ctl_write_file(NULL, pub.spki, sizeof(pub.spki));
	else if (strcmp(format, "sec1-compressed") == 0)
		r = write_compressed(pub.point);
	else
		r = ctl_write_file(NULL, pub.point, sizeof(pub.point));
	if (r != 0)
		return ctl_error("pubkey", "cannot write the key: %s", strerror(errno));
	return CTL_EXIT_OK;
}
