/* SPDX-License-Identifier: ISC */
/*
 * p256signctl check-key FILE [--cert CERT] [--json]: loads a private key file as the daemon would
 * and shows its form, key id and public point (never private material); with --cert, whether the
 * certificate is for this key. Exits 1 on any refusal, naming the error tag.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hex.h"
#include "cert.h"
#include "ctl.h"
#include "keyfile.h"

#define MESSAGE_MAX 512

struct check {
	const char *file;
	const char *cert;		/* NULL without --cert */
	int key_err;			/* keyfile_load's result */
	int cert_err;			/* cert_check's result, when the key loaded and --cert was given */
	const char *form;
	char key_id[2 * P256_KEY_ID_LEN + 1];
	char public_key[2 * P256_POINT_LEN + 1];
	int err;			/* the refusal reported: the key's, else the certificate's */
	char message[MESSAGE_MAX];
};

/* "FILE: message", with the system's reason when the file could not be read. */
static void set_refusal(struct check *c, int err, const char *path, int saved_errno)
{
	c->err = err;
	if (err == P256_ERR_KEY_FILE)
		snprintf(c->message, sizeof(c->message), "%s: %s (%s)", path, p256_strerror(err),
			strerror(saved_errno));
	else
		snprintf(c->message, sizeof(c->message), "%s: %s", path, p256_strerror(err));
}

static void run_check(struct check *c)
{
	struct keyfile_key key;
	uint8_t id[P256_KEY_ID_LEN];

	if ((c->key_err = keyfile_load(c->file, &key)) == 0) {
		if ((c->key_err = p256_key_id(key.pub, id)) == 0) {
			c->form = keyfile_form_name(key.form);
			hex_encode(id, sizeof(id), c->key_id);
			hex_encode(key.pub, sizeof(key.pub), c->public_key);
		}
	}
	if (c->key_err != 0) {
		set_refusal(c, c->key_err, c->file, errno);
		goto out;
	}
	if (c->cert != NULL && (c->cert_err = cert_check(c->cert, key.pub)) != 0)
		set_refusal(c, c->cert_err, c->cert, errno);
out:
	keyfile_key_clear(&key);
}

static int print_json(const struct check *c)
{
	json_t *o = json_object();
	char *text = NULL;
	int r = -1;

	if (o == NULL ||
	    json_object_set_new(o, "ok", json_boolean(c->err == 0)) != 0 ||
	    json_object_set_new(o, "file", json_string(c->file)) != 0)
		goto out;
	if (c->key_err == 0 &&
	    (json_object_set_new(o, "form", json_string(c->form)) != 0 ||
	     json_object_set_new(o, "key_id", json_string(c->key_id)) != 0 ||
	     json_object_set_new(o, "public_key", json_string(c->public_key)) != 0))
		goto out;
	if (c->cert != NULL &&
	    (json_object_set_new(o, "certificate", json_string(c->cert)) != 0 ||
	     json_object_set_new(o, "certificate_matches",
		     json_boolean(c->key_err == 0 && c->cert_err == 0)) != 0))
		goto out;
	if (c->err != 0 &&
	    (json_object_set_new(o, "error", json_string(p256_err_tag(c->err))) != 0 ||
	     json_object_set_new(o, "message", json_string(c->message)) != 0))
		goto out;
	if ((text = json_dumps(o, JSON_COMPACT)) == NULL)
		goto out;
	printf("%s\n", text);
	r = 0;
out:
	free(text);
	json_decref(o);
	return r;
}

static void print_text(const struct check *c)
{
	if (c->key_err == 0)
		printf("file: %s\nform: %s\nkey-id: %s\npublic-key: %s\n", c->file, c->form,
			c->key_id, c->public_key);
	if (c->cert != NULL && c->key_err == 0)
		printf("certificate: %s %s\n", c->cert, c->cert_err == 0 ? "matches" : "does not match");
	if (c->err != 0)
		fprintf(stderr, "p256signctl: %s: %s\n", p256_err_tag(c->err), c->message);
}

int ctl_check_key(const struct ctl_options *o, int argc, char **argv)
{
	static const struct option options[] = {
		{ "cert", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	struct check c;
	int opt;

	/* --json and --help are global options: main has taken them out of argv. */
	memset(&c, 0, sizeof(c));
	optind = 1;
	while ((opt = getopt_long(argc, argv, "c:", options, NULL)) != -1) {
		if (opt != 'c')
			return ctl_usage("check-key");
		c.cert = optarg;
	}
	if (optind != argc - 1)
		return ctl_usage("check-key");
	c.file = argv[optind];
	run_check(&c);
	if (!o->json)
		print_text(&c);
	else if (print_json(&c) != 0)
		return ctl_error("check-key", "out of memory");
	return c.err == 0 ? CTL_EXIT_OK : CTL_EXIT_REFUSED;
}
