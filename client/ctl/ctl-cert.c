/* SPDX-License-Identifier: ISC */
/*
 * p256signctl cert KEY [--out FILE] [--pem]: a key's X.509 certificate from the daemon
 * (CERTIFICATE), as DER or PEM, on stdout or in FILE; with --json, the key id and the DER in hex.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

static void print_json(const uint8_t *der, size_t len, const uint8_t id[P256SIGN_KEY_ID_LEN])
{
	printf("{\"key_id\": \"");
	ctl_put_hex(id, P256SIGN_KEY_ID_LEN);
	printf("\", \"certificate\": \"");
	ctl_put_hex(der, len);
	printf("\"}\n");
}

/* The key's id, for --json: the selector's own, or the daemon's answer to PUBKEY by name. */
static int key_id_of(struct p256sign *h, const struct p256sign_key *key,
	uint8_t id[P256SIGN_KEY_ID_LEN])
{
	struct p256sign_pubkey pub;
	int r;

	if (key->id != NULL) {
		memcpy(id, key->id, P256SIGN_KEY_ID_LEN);
		return 0;
	}
	if ((r = p256sign_get_pubkey(h, key, &pub)) == 0)
		memcpy(id, pub.key_id, P256SIGN_KEY_ID_LEN);
	return r;
}

int ctl_cert(const struct ctl_options *o, int argc, char **argv)
{
	static const struct option options[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "pem", no_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	struct p256sign_key key;
	uint8_t id[P256SIGN_KEY_ID_LEN], key_id[P256SIGN_KEY_ID_LEN];
	uint8_t *der = NULL;
	const char *out = NULL;
	struct p256sign *h = NULL;
	size_t len = 0;
	int opt, pem = 0, r, status = CTL_EXIT_REFUSED;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:p", options, NULL)) != -1) {
		if (opt == 'o')
			out = optarg;
		else if (opt == 'p')
			pem = 1;
		else
			return ctl_usage("cert");
	}
	if (optind != argc - 1 || (o->json && (pem || out != NULL)))
		return ctl_usage("cert");
	if (ctl_parse_key(argv[optind], &key, id) != 0)
		return ctl_error("cert", "KEY must be a key name or id: and 64 hex digits");
	if ((der = malloc(P256SIGN_CERT_MAX)) == NULL)
		return ctl_error("cert", "out of memory");
	if ((h = ctl_connect(o, "cert")) == NULL)
		goto out;
	if ((r = p256sign_certificate(h, &key, der, P256SIGN_CERT_MAX, &len)) != 0 ||
	    (o->json && (r = key_id_of(h, &key, key_id)) != 0)) {
		status = ctl_lib_error("cert", r);
		goto out;
	}
	if (o->json)
		print_json(der, len, key_id);
	else if ((pem ? ctl_write_pem(out, "CERTIFICATE", der, len) :
	    ctl_write_file(out, der, len)) != 0) {
		status = ctl_error("cert", "cannot write the certificate to %s: %s",
		    out != NULL ? out : "stdout", strerror(errno));
		goto out;
	}
	status = CTL_EXIT_OK;
out:
	p256sign_close(h);
	free(der);
	return status;
}
