/* SPDX-License-Identifier: ISC */
/*
 * Every file of tests/vectors/keys against its MANIFEST line (see generate.py there), each key
 * read from a private copy (mode 0600): accepted files give OpenSSL's scalar, point and key id
 * and the expected form; refused files give their error tag with the output wiped; certificates
 * (read where they are: they are public) match their key or are refused with their tag.
 * Usage: test-keyfile-corpus DIR (the folder holding MANIFEST and files/).
 */
#include <limits.h>

#include "hex.h"
#include "cert.h"
#include "keyfile.h"
#include "keytest.h"

#define FIELDS_MAX 8

/* Refusal tags the corpus must cover (the list). */
static const char *const required_tags[] = {
	"key-encrypted", "key-curve", "key-explicit-curve", "key-algorithm", "key-missing",
	"pem-label-mismatch", "pem-unterminated", "base64-invalid", "base64-padding",
	"base64-truncated", "der-length", "der-tag", "key-version", "truncated", "trailing-bytes",
	"scalar-range", "key-public-mismatch",
};
#define NREQUIRED (sizeof(required_tags) / sizeof(required_tags[0]))
static int seen_tags[NREQUIRED];
static int accepted, refused, certs;

static void path_of(char *out, const char *dir, const char *name)
{
	if (snprintf(out, PATH_MAX, "%s/files/%s", dir, name) >= PATH_MAX)
		test_fatal("path too long");
}

static int split(char *line, char **fields)
{
	int n = 0;

	line[strcspn(line, "\n")] = '\0';
	for (char *tok = strtok(line, "\t"); tok != NULL && n < FIELDS_MAX; tok = strtok(NULL, "\t"))
		fields[n++] = tok;
	return n;
}

static void check_hex(const char *name, const uint8_t *got, size_t n, const char *want)
{
	char hex[2 * P256_POINT_LEN + 1];

	hex_encode(got, n, hex);
	if (strcmp(hex, want) != 0) {
		fprintf(stderr, "%s: %s, expected %s\n", name, hex, want);
		test_failures++;
	}
}

/* key FILE ok FORM D PUB KEY_ID ...  |  key FILE error TAG ... */
static void check_key(const char *dir, char **f, int n)
{
	const char *path = corpus_copy(dir, f[1]);
	struct keyfile_key key;
	uint8_t id[P256_KEY_ID_LEN];
	int r;

	memset(&key, 0xaa, sizeof(key));
	r = keyfile_load(path, &key);
	unlink(path);
	if (strcmp(f[2], "ok") == 0) {
		if (n < 7)
			test_fatal("short MANIFEST line");
		accepted++;
		CHECK_TAG(f[1], r, "ok");
		CHECK(strcmp(keyfile_form_name(key.form), f[3]) == 0);
		check_hex(f[1], key.d, sizeof(key.d), f[4]);
		check_hex(f[1], key.pub, sizeof(key.pub), f[5]);
		CHECK(p256_key_id(key.pub, id) == 0);
		check_hex(f[1], id, sizeof(id), f[6]);
	} else {
		refused++;
		CHECK_TAG(f[1], r, f[3]);
		CHECK(all_zero(&key, sizeof(key)));
		for (size_t i = 0; i < NREQUIRED; i++)
			seen_tags[i] |= strcmp(f[3], required_tags[i]) == 0;
	}
	keyfile_key_clear(&key);
}

/* cert CERT KEYFILE ok KEY_ID  |  cert CERT KEYFILE error TAG */
static void check_cert(const char *dir, char **f)
{
	char cert_path[PATH_MAX];
	const char *key_path = corpus_copy(dir, f[2]);
	struct keyfile_key key;
	uint8_t pub[P256_POINT_LEN], id[P256_KEY_ID_LEN];
	int r;

	certs++;
	path_of(cert_path, dir, f[1]);
	r = keyfile_load(key_path, &key);
	unlink(key_path);
	if (r != 0)
		test_fatal("the key of a certificate line does not load");
	if (strcmp(f[3], "ok") == 0) {
		CHECK_TAG(f[1], cert_check(cert_path, key.pub), "ok");
		CHECK_TAG(f[1], cert_load(cert_path, pub), "ok");
		CHECK(p256_key_id(pub, id) == 0);
		check_hex(f[1], id, sizeof(id), f[4]); /* the same id as the key's (manifest) */
	} else {
		CHECK_TAG(f[1], cert_check(cert_path, key.pub), f[4]);
	}
	keyfile_key_clear(&key);
}

int main(int argc, char **argv)
{
	char manifest[PATH_MAX], line[1024], *f[FIELDS_MAX];
	FILE *m;
	int n;

	if (argc != 2 || snprintf(manifest, sizeof(manifest), "%s/MANIFEST", argv[1]) >= PATH_MAX)
		test_fatal("usage: test-keyfile-corpus DIR");
	if ((m = fopen(manifest, "r")) == NULL)
		test_fatal("cannot open MANIFEST");
	while (fgets(line, sizeof(line), m) != NULL) {
		if (line[0] == '#' || (n = split(line, f)) == 0)
			continue;
		if (strcmp(f[0], "key") == 0 && n >= 4)
			check_key(argv[1], f, n);
		else if (strcmp(f[0], "cert") == 0 && n >= 5)
			check_cert(argv[1], f);
		else
			test_fatal("bad MANIFEST line");
	}
	fclose(m);
	printf("%d accepted, %d refused, %d certificates\n", accepted, refused, certs);
	CHECK(accepted + refused >= 40 && certs >= 5);
	for (size_t i = 0; i < NREQUIRED; i++)
		if (!seen_tags[i])
			fprintf(stderr, "no corpus file is refused with %s\n", required_tags[i]);
	for (size_t i = 0; i < NREQUIRED; i++)
		CHECK(seen_tags[i]);
	return test_done("keyfile-corpus");
}
