/* SPDX-License-Identifier: ISC */
/*
 * Secret as undefined (the ctgrind technique), run under valgrind --error-exitcode=1: key bytes
 * are marked undefined, so memcheck reports any branch or memory index that depends on them.
 * Covered: base64_decode over a whole key body, and keyfile_parse from the file's bytes to the
 * checked key (base64, the key copy, d*G, the public key comparison) for PEM and DER files, with
 * the characters or bytes that encode the scalar undefined. Public structure (DER tags and
 * lengths) stays defined, as the loader is allowed to branch on it.
 * Usage: test-keys-ct DIR (tests/vectors/keys).
 */
#include <valgrind/memcheck.h>

#include "base64.h"
#include "keyfile.h"
#include "keytest.h"

#define SECRET(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))
#define PUBLIC(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))

static const char *dir;

/* The base64 body of a one-block PEM file: from after the BEGIN line to the END line. */
static void pem_body(const uint8_t *buf, size_t len, size_t *start, size_t *end)
{
	const char *s = (const char *)buf, *begin = memchr(s, '\n', len);
	const char *stop = begin != NULL ? strstr(begin, "-----END ") : NULL;

	if (begin == NULL || stop == NULL)
		test_fatal("not a PEM file");
	*start = (size_t)(begin + 1 - s);
	*end = (size_t)(stop - s);
}

/* base64_decode with every character of the body undefined. */
static void test_base64(void)
{
	uint8_t der[KEYFILE_DER_MAX], want[KEYFILE_DER_MAX];
	size_t len, start, end, der_len, want_len;
	uint8_t *buf = corpus_file(dir, "pkcs8-v1.pem", &len);
	int r;

	pem_body(buf, len, &start, &end);
	CHECK(base64_decode((char *)buf + start, end - start, want, sizeof(want), &want_len) == 0);
	SECRET(buf + start, end - start);
	r = base64_decode((char *)buf + start, end - start, der, sizeof(der), &der_len);
	PUBLIC(der, der_len);
	CHECK(r == 0 && der_len == want_len && memcmp(der, want, der_len) == 0);
	free(buf);
}

/*
 * Marks undefined every base64 character of the PEM body whose whole group of 4 encodes bytes
 * of the scalar (DER bytes d_off .. d_off + n - 1); groups shared with the DER header stay defined.
 */
static void hide_scalar_in_pem(uint8_t *buf, size_t start, size_t end, size_t d_off, size_t n)
{
	size_t first = (d_off + 2) / 3, last = (d_off + n) / 3; /* groups [first, last) */
	size_t digit = 0;

	for (size_t i = start; i < end; i++) {
		if (buf[i] == '\n' || buf[i] == '\r')
			continue;
		if (digit / 4 >= first && digit / 4 < last)
			SECRET(buf + i, 1);
		digit++;
	}
}

/* keyfile_parse of an accepted corpus file with its scalar undefined. */
static void test_parse(const char *name, int pem)
{
	struct keyfile_key key, want;
	uint8_t der[KEYFILE_DER_MAX];
	size_t len, start = 0, end = 0, der_len = 0, skip = 0;
	uint8_t *buf = corpus_file(dir, name, &len);
	const uint8_t *at;
	int r;

	/* Where the scalar is (without the leading zeros a short encoding drops): a public parse. */
	if (keyfile_parse(buf, len, &want) != 0)
		test_fatal("a corpus key does not load");
	while (want.d[skip] == 0)
		skip++;
	if (pem) {
		pem_body(buf, len, &start, &end);
		CHECK(base64_decode((char *)buf + start, end - start, der, sizeof(der), &der_len) == 0);
	} else {
		memcpy(der, buf, len);
		der_len = len;
	}
	if ((at = memmem(der, der_len, want.d + skip, P256_SCALAR_LEN - skip)) == NULL)
		test_fatal("scalar not found in the DER");
	if (pem)
		hide_scalar_in_pem(buf, start, end, (size_t)(at - der), P256_SCALAR_LEN - skip);
	else
		SECRET(buf + (at - der), P256_SCALAR_LEN - skip);

	r = keyfile_parse(buf, len, &key);
	PUBLIC(&key, sizeof(key));
	CHECK_TAG(name, r, "ok");
	CHECK(memcmp(key.d, want.d, sizeof(key.d)) == 0);
	keyfile_key_clear(&key);
	keyfile_key_clear(&want);
	free(buf);
}

int main(int argc, char **argv)
{
	if (argc != 2)
		test_fatal("usage: test-keys-ct DIR");
	dir = argv[1];
	test_base64();
	test_parse("pkcs8-v1.pem", 1);
	test_parse("sec1.pem", 1);
	test_parse("pkcs8-v2.pem", 1);
	test_parse("sec1.der", 0);
	test_parse("short-scalar-sec1.der", 0);
	return test_done("keys-ct");
}
