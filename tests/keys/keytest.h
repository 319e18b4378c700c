/* SPDX-License-Identifier: ISC */
#ifndef P256_KEYTEST_H
#define P256_KEYTEST_H

/* Shared by the key file tests: an error-tag check and reading a whole corpus file. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

#endif
