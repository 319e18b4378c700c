/* SPDX-License-Identifier: ISC */
/* base64_decode: RFC 4648 vectors, every byte value as a character, refusals, round trips. */
#include <openssl/evp.h>

#include "base64.h"
#include "keytest.h"

static const char ALPHABET[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int decode(const char *text, uint8_t *out, size_t cap, size_t *len)
{
	return base64_decode(text, strlen(text), out, cap, len);
}

/* RFC 4648 section 10, with PEM line breaks and spaces that must not matter. */
static void test_rfc4648(void)
{
	static const struct {
		const char *text, *plain;
	} v[] = {
		{ "", "" }, { "Zg==", "f" }, { "Zm8=", "fo" }, { "Zm9v", "foo" },
		{ "Zm9vYg==", "foob" }, { "Zm9vYmE=", "fooba" }, { "Zm9vYmFy", "foobar" },
		{ "Zm9v\r\nYmFy\r\n", "foobar" }, { " Zm\t9vY\nmE=\n", "fooba" }, { "Zm9vYg=\n=", "foob" },
	};
	uint8_t out[16];
	size_t len;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		CHECK_TAG(v[i].text, decode(v[i].text, out, sizeof(out), &len), "ok");
		CHECK(len == strlen(v[i].plain) && memcmp(out, v[i].plain, len) == 0);
	}
}

static void test_refusals(void)
{
	static const struct {
		const char *text, *tag;
	} v[] = {
		{ "Zg=", "base64-truncated" }, { "Z", "base64-truncated" }, { "Zm9vY", "base64-truncated" },
		{ "Z===", "base64-padding" }, { "====", "base64-padding" }, { "Zg==Zg==", "base64-padding" },
		{ "Zm=v", "base64-padding" }, { "Zm9=Ymzy", "base64-padding" }, { "Zg=a", "base64-padding" },
		{ "Zg==AAAA", "base64-padding" }, /* would decode if digits could follow '=' */
		{ "Zh==", "base64-padding" }, { "Zm9=", "base64-padding" }, /* non-zero leftover bits */
		{ "Zm9v!", "base64-invalid" }, { "Zm9v-_", "base64-invalid" },
		{ "Zm9v\x80", "base64-invalid" }, { "Zm9vYmFy\v", "base64-invalid" },
	};
	uint8_t out[16];
	size_t len = 99;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		memset(out, 0xaa, sizeof(out));
		CHECK_TAG(v[i].text, decode(v[i].text, out, sizeof(out), &len), v[i].tag);
		CHECK(len == 0 && all_zero(out, sizeof(out)));
	}
	/* A NUL in the middle (strlen stops early above): invalid, not the end. */
	CHECK_TAG("nul", base64_decode("Zm\0v", 4, out, sizeof(out), &len), "base64-invalid");
	CHECK_TAG("small", decode("Zm9vYmFy", out, 5, &len), "buffer-small");
	CHECK(all_zero(out, 5));
	CHECK_TAG("fits", decode("Zm9vYmFy", out, 6, &len), "ok");
}

/* Every byte value as the last digit of a group: accepted exactly for the alphabet, with its index. */
static void test_every_character(void)
{
	uint8_t out[3];
	size_t len;

	for (int c = 0; c < 256; c++) {
		char text[4] = { 'A', 'A', 'A', (char)c };
		const char *at = c != 0 ? memchr(ALPHABET, c, 64) : NULL;
		int r = base64_decode(text, sizeof(text), out, sizeof(out), &len);

		if (at != NULL) {
			CHECK(r == 0 && len == 3 && out[0] == 0 && out[1] == 0 &&
				out[2] == (uint8_t)(at - ALPHABET));
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
			CHECK(r == P256_ERR_BASE64_TRUNCATED);
		} else if (c == '=') {
			CHECK(r == 0 && len == 2); /* "AAA=" */
		} else {
			CHECK(r == P256_ERR_BASE64);
		}
	}
}

/* Random buffers encoded by OpenSSL decode back to themselves (fixed seed: reproducible). */
static void test_round_trip(void)
{
	uint8_t plain[200], out[200];
	char text[4 * sizeof(plain) / 3 + 8];
	unsigned seed = 12345;
	size_t len;

	for (int i = 0; i < 2000; i++) {
		size_t n = (size_t)i % sizeof(plain);

		for (size_t j = 0; j < n; j++) {
			seed = seed * 1103515245u + 12345u;
			plain[j] = (uint8_t)(seed >> 16);
		}
		int tlen = EVP_EncodeBlock((unsigned char *)text, plain, (int)n);
		CHECK(base64_decode(text, (size_t)tlen, out, sizeof(out), &len) == 0 && len == n &&
			memcmp(out, plain, n) == 0);
	}
}

int main(void)
{
	test_rfc4648();
	test_refusals();
	test_every_character();
	test_round_trip();
	return test_done("base64");
}
