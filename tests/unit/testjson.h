/* SPDX-License-Identifier: ISC */
#ifndef P256_TESTJSON_H
#define P256_TESTJSON_H

/* Reading the JSON test vector files (RFC 6979, Wycheproof) with jansson. */
#include <jansson.h>

#include "testutil.h"

/* The parsed file; dies if it cannot be read. */
static inline json_t *json_vectors(const char *path)
{
	json_error_t err;
	json_t *j = json_load_file(path, 0, &err);

	if (j == NULL) {
		fprintf(stderr, "%s:%d: %s\n", path, err.line, err.text);
		test_fatal("cannot read a vector file");
	}
	return j;
}

/* The string member `key` of an object; dies if absent. */
static inline const char *json_str(const json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));

	if (s == NULL)
		test_fatal(key);
	return s;
}

/* The hex string member `key` decoded into exactly n bytes. */
static inline void json_hex(const json_t *obj, const char *key, uint8_t *out, size_t n)
{
	hex_exact(json_str(obj, key), out, n);
}

#endif
