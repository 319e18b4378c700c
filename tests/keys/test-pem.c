/* SPDX-License-Identifier: ISC */
/* pem_next: block layout, labels, headers and the refusals of malformed files. */
#include "keytest.h"
#include "pem.h"

static int first_block(const char *text, struct pem_block *b)
{
	struct cursor c;

	cursor_init(&c, text, strlen(text));
	return pem_next(&c, b);
}

static void test_blocks(void)
{
	const char *text = "intro text\r\n-----BEGIN A-----\r\nQUJD\r\n-----END A-----\r\n"
		"between\n-----BEGIN EC PRIVATE KEY-----\nRA==\n-----END EC PRIVATE KEY-----";
	struct pem_block b;
	struct cursor c;

	cursor_init(&c, text, strlen(text));
	CHECK_TAG("first", pem_next(&c, &b), "ok");
	CHECK(pem_label_is(&b, "A") && !pem_label_is(&b, "AB") && !b.encrypted);
	CHECK(b.body_len == 6 && memcmp(b.body, "QUJD\r\n", 6) == 0);
	CHECK_TAG("second", pem_next(&c, &b), "ok");
	CHECK(pem_label_is(&b, "EC PRIVATE KEY") && b.body_len == 5);
	CHECK_TAG("end", pem_next(&c, &b), "key-missing");
}

static void test_refusals(void)
{
	static const struct {
		const char *text, *tag;
	} v[] = {
		{ "", "key-missing" },
		{ "no block here\n", "key-missing" },
		{ "-----BEGIN PRIVATE KEY----\nAAAA\n-----END PRIVATE KEY-----\n", "key-missing" },
		{ "-----BEGIN PRIVATE KEY-----\nAAAA\n", "pem-unterminated" },
		{ "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEZ-----\n", "pem-label-mismatch" },
		{ "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY\n", "pem-label-mismatch" },
		{ "-----BEGIN PRIVATE KEY-----\n-----END EC PRIVATE KEY-----\n", "pem-label-mismatch" },
		{ "-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY------\n", "pem-label-mismatch" },
	};
	struct pem_block b;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		CHECK_TAG(v[i].text, first_block(v[i].text, &b), v[i].tag);
}

static void test_encrypted_header(void)
{
	struct pem_block b;

	CHECK(first_block("-----BEGIN EC PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n"
		"DEK-Info: AES-256-CBC,00\n\nAAAA\n-----END EC PRIVATE KEY-----\n", &b) == 0);
	CHECK(b.encrypted);
	CHECK(first_block("-----BEGIN EC PRIVATE KEY-----\nAAAA\nProc-Type: 4,ENCRYPTED\n"
		"-----END EC PRIVATE KEY-----\n", &b) == 0);
	CHECK(!b.encrypted); /* only a header that opens the body counts */
}

int main(void)
{
	test_blocks();
	test_refusals();
	test_encrypted_header();
	return test_done("pem");
}
