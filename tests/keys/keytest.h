/* SPDX-License-Identifier: ISC */
#ifndef P256_KEYTEST_H
#define P256_KEYTEST_H

/*
 * Shared by the key file tests: an error-tag check, reading a whole corpus file and writing a
 * private temporary copy of one.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errors.h"
#include "keyfile.h"
#include "testutil.h"

/* An error code that must carry the tag `want` ("ok" for 0); `what` names the case. */
#define CHECK_TAG(what, got, want) \
	do { \
		const char *got_ = p256_err_tag(got); \
		if (strcmp(got_, (want)) != 0) { \
			fprintf(stderr, "%s:%d: %s: got %s, expected %s\n", __FILE__, __LINE__, \
				(what), got_, (want)); \
			test_failures++; \
		} \
	} while (0)

/* DIR/files/NAME (tests/vectors/keys) in a new zero-filled buffer of KEYFILE_MAX + 1 bytes, so
 * that it is also a C string; the caller frees it. */
static inline uint8_t *corpus_file(const char *dir, const char *name, size_t *len)
{
	char path[PATH_MAX];
	uint8_t *buf;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/files/%s", dir, name) >= (int)sizeof(path) ||
	    (f = fopen(path, "rb")) == NULL || (buf = calloc(1, KEYFILE_MAX + 1)) == NULL)
		test_fatal("cannot read a corpus file");
	*len = fread(buf, 1, KEYFILE_MAX, f);
	fclose(f);
	return buf;
}

static char temp_key_path[PATH_MAX];	/* the file temp_key_file made last */

/* At exit: test_fatal ends a test before the caller unlinks its file. */
static inline void temp_key_file_remove(void)
{
	if (temp_key_path[0] != '\0')
		(void)unlink(temp_key_path);	/* ENOENT when the caller unlinked it already */
}

/*
 * Writes n bytes to a new temporary file of mode 0600, as mkstemp creates it: the only mode a
 * private key file is read with, where git checks the corpus out 0644. Returns its path (a
 * static buffer, reused by the next call); the caller unlinks it.
 */
static inline const char *temp_key_file(const void *buf, size_t n)
{
	static int registered;
	char *path = temp_key_path;
	const char *tmp = getenv("TMPDIR");
	int fd;

	if (!registered && atexit(temp_key_file_remove) != 0)
		test_fatal("atexit");
	registered = 1;
	snprintf(path, sizeof(temp_key_path), "%s/p256-keytest-XXXXXX",
		tmp != NULL ? tmp : P_tmpdir);
	if ((fd = mkstemp(path)) < 0)
		test_fatal("cannot create a temporary file");
	if (write(fd, buf, n) != (ssize_t)n || close(fd) != 0)
		test_fatal("cannot write a temporary file");
	return path;
}

/* A temporary copy of the corpus file DIR/files/NAME, mode 0600 (temp_key_file). */
static inline const char *corpus_copy(const char *dir, const char *name)
{
	size_t len;
	uint8_t *buf = corpus_file(dir, name, &len);
	const char *path = temp_key_file(buf, len);

	free(buf);
	return path;
}

#endif
