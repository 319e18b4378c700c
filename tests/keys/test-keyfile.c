/* SPDX-License-Identifier: ISC */
/*
 * keyfile_load and keyfile_parse beyond the corpus: file errors and size caps, which PEM block is
 * used, labels of other private keys, the DER/PEM decision, form names and hex.
 * Usage: test-keyfile DIR (tests/vectors/keys).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hex.h"
#include "keyfile.h"
#include "keytest.h"

static const char *dir;

/* Parses the concatenation of two texts. */
static int parse_two(const char *a, const char *b, struct keyfile_key *key)
{
	size_t na = strlen(a), nb = strlen(b);
	char *buf = malloc(na + nb + 1);
	int r;

	if (buf == NULL)
		test_fatal("out of memory");
	memcpy(buf, a, na);
	memcpy(buf + na, b, nb);
	r = keyfile_parse((const uint8_t *)buf, na + nb, key);
	free(buf);
	return r;
}

static void test_pem_blocks(void)
{
	struct keyfile_key key, want;
	size_t n;
	char *a = (char *)corpus_file(dir, "pkcs8-v1.pem", &n);
	char *other = (char *)corpus_file(dir, "ecparam-genkey.pem", &n);

	CHECK(keyfile_parse((const uint8_t *)a, strlen(a), &want) == 0);
	/* the first private-key block wins; what follows it is not read */
	CHECK(parse_two(a, other, &key) == 0 && memcmp(key.d, want.d, sizeof(key.d)) == 0);
	CHECK(parse_two(other, a, &key) == 0 && memcmp(key.d, want.d, sizeof(key.d)) != 0);
	CHECK(parse_two(a, "-----BEGIN GARBAGE-----\n", &key) == 0);
	/* blocks before it must be well-formed */
	CHECK_TAG("bad block before", parse_two("-----BEGIN X-----\nAA==\n-----END Y-----\n", a,
		&key), "pem-label-mismatch");
	CHECK_TAG("openssh", parse_two("-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n"
		"-----END OPENSSH PRIVATE KEY-----\n", a, &key), "key-algorithm");
	CHECK_TAG("dsa", parse_two("-----BEGIN DSA PRIVATE KEY-----\nAAAA\n"
		"-----END DSA PRIVATE KEY-----\n", "", &key), "key-algorithm");
	CHECK_TAG("headers", parse_two("-----BEGIN PRIVATE KEY-----\nComment: x\n\n"
		"AAAA\n-----END PRIVATE KEY-----\n", "", &key), "base64-invalid");
	/* a file opening with '0' is DER, even if text (docs/keys.md): "0 " reads as a
	 * 32-byte SEQUENCE with the rest of the file after it */
	CHECK_TAG("text opening with 0", parse_two("0 comment\n", a, &key), "trailing-bytes");
	CHECK_TAG("nothing", keyfile_parse((const uint8_t *)"", 0, &key), "key-missing");
	keyfile_key_clear(&key);
	keyfile_key_clear(&want);
	free(a);
	free(other);
}

/* A private-key block whose DER would not fit KEYFILE_DER_MAX. */
static void test_der_cap(void)
{
	size_t len = 0, body = KEYFILE_DER_MAX / 3 * 4 + 4;
	char *buf = malloc(body + 100);
	struct keyfile_key key;

	if (buf == NULL)
		test_fatal("out of memory");
	len += (size_t)sprintf(buf, "-----BEGIN PRIVATE KEY-----\n");
	memset(buf + len, 'A', body);
	len += body;
	len += (size_t)sprintf(buf + len, "\n-----END PRIVATE KEY-----\n");
	CHECK_TAG("der cap", keyfile_parse((const uint8_t *)buf, len, &key), "file-too-large");
	free(buf);
}

/* Writes n bytes of c to a new temporary file; returns its path (static buffer). */
static const char *temp_file(size_t n, char c)
{
	char *buf = malloc(n + 1);
	const char *path;

	if (buf == NULL)
		test_fatal("out of memory");
	memset(buf, c, n);
	path = temp_key_file(buf, n);
	free(buf);
	return path;
}

/* A new FIFO (at a fresh temporary name); returns its path (static buffer). */
static const char *fifo_path(void)
{
	const char *path = temp_file(0, 'x');

	if (unlink(path) != 0 || mkfifo(path, 0600) != 0)
		test_fatal("cannot make a FIFO");
	return path;
}

static void test_files(void)
{
	struct keyfile_key key;
	const char *path;

	errno = 0;
	CHECK_TAG("missing", keyfile_load("no/such/key.pem", &key), "file-unreadable");
	CHECK(errno == ENOENT);
	CHECK_TAG("directory", keyfile_load(dir, &key), "file-not-regular");
	/* A FIFO without a writer: refused at once, not waited on. */
	path = fifo_path();
	CHECK_TAG("fifo", keyfile_load(path, &key), "file-not-regular");
	unlink(path);
	path = temp_file(KEYFILE_MAX + 1, 'x');
	CHECK_TAG("too large", keyfile_load(path, &key), "file-too-large");
	unlink(path);
	path = temp_file(KEYFILE_MAX, 'x');
	CHECK_TAG("largest", keyfile_load(path, &key), "key-missing");
	unlink(path);
	CHECK(all_zero(&key, sizeof(key)));
}

static void test_names(void)
{
	static const uint8_t bytes[] = { 0x00, 0x9f, 0xa0, 0xff };
	char hex[9];

	CHECK(strcmp(keyfile_form_name(KEYFILE_PKCS8_DER), "pkcs8-der") == 0);
	CHECK(strcmp(keyfile_form_name(KEYFILE_PKCS8_PEM), "pkcs8-pem") == 0);
	CHECK(strcmp(keyfile_form_name(KEYFILE_SEC1_DER), "sec1-der") == 0);
	CHECK(strcmp(keyfile_form_name(KEYFILE_SEC1_PEM), "sec1-pem") == 0);
	hex_encode(bytes, sizeof(bytes), hex);
	CHECK(strcmp(hex, "009fa0ff") == 0);
}

int main(int argc, char **argv)
{
	if (argc != 2)
		test_fatal("usage: test-keyfile DIR");
	dir = argv[1];
	test_pem_blocks();
	test_der_cap();
	test_files();
	test_names();
	return test_done("keyfile");
}
