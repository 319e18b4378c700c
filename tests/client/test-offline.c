/* SPDX-License-Identifier: ISC */
/*
 * libp256sign's offline calls, through the shared library: p256sign_tls_parse on TLS 1.3
 * CertificateVerify content and TLS 1.2 ServerKeyExchange input (and on near misses of both),
 * key ids in hex both ways, the P-256 point check, and the fields of a certificate
 * (p256sign_cert_fields: with and without a version, and the near misses). No daemon is involved.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "p256sign.h"

#define CONTEXT_SERVER "TLS 1.3, server CertificateVerify"
#define CONTEXT_CLIENT "TLS 1.3, client CertificateVerify"
#define HEAD (64 + sizeof(CONTEXT_SERVER))	/* 64 spaces, the context string, its 0x00 */

/* RFC 8446 section 4.4.3's content: 64 spaces, the context and its 0x00, then hash_len bytes. */
static size_t tls13_content(uint8_t *out, const char *context, size_t hash_len)
{
	memset(out, 0x20, 64);
	memcpy(out + 64, context, strlen(context) + 1);
	for (size_t i = 0; i < hash_len; i++)
		out[HEAD + i] = (uint8_t)(0xa0 + i);
	return HEAD + hash_len;
}

static void tls13_cases(void)
{
	uint8_t content[HEAD + 80];
	struct p256sign_tls tls;
	size_t len;

	for (size_t hash_len = 32; hash_len <= 64; hash_len += 16) {
		len = tls13_content(content, CONTEXT_SERVER, hash_len);
		CHECK_RC(p256sign_tls_parse(content, len, &tls), 0);
		CHECK(tls.kind == P256SIGN_TLS13 && tls.side == P256SIGN_TLS_SERVER);
		CHECK(tls.hash == content + HEAD && tls.hash_len == hash_len);
	}
	len = tls13_content(content, CONTEXT_CLIENT, 48);
	CHECK_RC(p256sign_tls_parse(content, len, &tls), 0);
	CHECK(tls.kind == P256SIGN_TLS13 && tls.side == P256SIGN_TLS_CLIENT && tls.hash_len == 48);
	/* a hash of another length, or none */
	len = tls13_content(content, CONTEXT_SERVER, 33);
	CHECK_RC(p256sign_tls_parse(content, len, &tls), P256SIGN_E_BAD_TLS_CONTENT);
	CHECK(tls.kind == 0 && tls.hash == NULL);	/* nothing half set on a refusal */
	len = tls13_content(content, CONTEXT_SERVER, 0);
	CHECK_RC(p256sign_tls_parse(content, len, &tls), P256SIGN_E_BAD_TLS_CONTENT);
	/* one space too few, and a context string that is neither side's */
	len = tls13_content(content, CONTEXT_SERVER, 32);
	content[63] = 0x21;
	CHECK_RC(p256sign_tls_parse(content, len, &tls), P256SIGN_E_BAD_TLS_CONTENT);
	len = tls13_content(content, "TLS 1.3, server CertificateVerifx", 32);
	CHECK_RC(p256sign_tls_parse(content, len, &tls), P256SIGN_E_BAD_TLS_CONTENT);
}

/* The generators of secp256r1 and secp521r1, uncompressed: points on their curves. */
static const uint8_t P256_G[65] = { 0x04,
	0x6b, 0x17, 0xd1, 0xf2, 0xe1, 0x2c, 0x42, 0x47, 0xf8, 0xbc, 0xe6, 0xe5, 0x63, 0xa4, 0x40, 0xf2,
	0x77, 0x03, 0x7d, 0x81, 0x2d, 0xeb, 0x33, 0xa0, 0xf4, 0xa1, 0x39, 0x45, 0xd8, 0x98, 0xc2, 0x96,
	0x4f, 0xe3, 0x42, 0xe2, 0xfe, 0x1a, 0x7f, 0x9b, 0x8e, 0xe7, 0xeb, 0x4a, 0x7c, 0x0f, 0x9e, 0x16,
	0x2b, 0xce, 0x33, 0x57, 0x6b, 0x31, 0x5e, 0xce, 0xcb, 0xb6, 0x40, 0x68, 0x37, 0xbf, 0x51, 0xf5 };
static const uint8_t P521_G[133] = { 0x04,
	0x00, 0xc6, 0x85, 0x8e, 0x06, 0xb7, 0x04, 0x04, 0xe9, 0xcd, 0x9e, 0x3e, 0xcb, 0x66, 0x23, 0x95,
	0xb4, 0x42, 0x9c, 0x64, 0x81, 0x39, 0x05, 0x3f, 0xb5, 0x21, 0xf8, 0x28, 0xaf, 0x60, 0x6b, 0x4d,
	0x3d, 0xba, 0xa1, 0x4b, 0x5e, 0x77, 0xef, 0xe7, 0x59, 0x28, 0xfe, 0x1d, 0xc1, 0x27, 0xa2, 0xff,
	0xa8, 0xde, 0x33, 0x48, 0xb3, 0xc1, 0x85, 0x6a, 0x42, 0x9b, 0xf9, 0x7e, 0x7e, 0x31, 0xc2, 0xe5,
	0xbd, 0x66,
	0x01, 0x18, 0x39, 0x29, 0x6a, 0x78, 0x9a, 0x3b, 0xc0, 0x04, 0x5c, 0x8a, 0x5f, 0xb4, 0x2c, 0x7d,
	0x1b, 0xd9, 0x98, 0xf5, 0x44, 0x49, 0x57, 0x9b, 0x44, 0x68, 0x17, 0xaf, 0xbd, 0x17, 0x27, 0x3e,
	0x66, 0x2c, 0x97, 0xee, 0x72, 0x99, 0x5e, 0xf4, 0x26, 0x40, 0xc5, 0x50, 0xb9, 0x01, 0x3f, 0xad,
	0x07, 0x61, 0x35, 0x3c, 0x70, 0x86, 0xa2, 0x72, 0xc2, 0x40, 0x88, 0xbe, 0x94, 0x76, 0x9f, 0xd1,
	0x66, 0x50 };

/* Both randoms and ServerECDHParams for a named curve with the first point_len bytes of point. */
static size_t tls12_input(uint8_t *out, uint16_t curve, const uint8_t *point, uint8_t point_len)
{
	size_t n = 64;

	for (size_t i = 0; i < 64; i++)
		out[i] = (uint8_t)i;
	out[n++] = 3;	/* named_curve */
	out[n++] = (uint8_t)(curve >> 8);
	out[n++] = (uint8_t)curve;
	out[n++] = point_len;
	memcpy(out + n, point, point_len);
	return n + point_len;
}

static void tls12_cases(void)
{
	uint8_t input[64 + 4 + 140];
	struct p256sign_tls tls;
	size_t len;

	len = tls12_input(input, 23, P256_G, 65);	/* secp256r1 */
	CHECK_RC(p256sign_tls_parse(input, len, &tls), 0);
	CHECK(tls.kind == P256SIGN_TLS12 && tls.client_random == input &&
		tls.server_random == input + 32 && tls.params == input + 64 &&
		tls.params_len == 4 + 65);
	len = tls12_input(input, 25, P521_G, 133);	/* secp521r1: 0x04 and 132 bytes */
	CHECK_RC(p256sign_tls_parse(input, len, &tls), 0);
	CHECK(tls.params_len == 4 + 133);
	/* the point's length not the curve's, an unknown curve, a byte too many or too few */
	len = tls12_input(input, 23, P256_G, 64);
	CHECK_RC(p256sign_tls_parse(input, len, &tls), P256SIGN_E_BAD_TLS_CONTENT);
	len = tls12_input(input, 22, P256_G, 65);
	CHECK_RC(p256sign_tls_parse(input, len, &tls), P256SIGN_E_BAD_TLS_CONTENT);
	len = tls12_input(input, 23, P256_G, 65);
	CHECK_RC(p256sign_tls_parse(input, len + 1, &tls), P256SIGN_E_BAD_TLS_CONTENT);
	CHECK_RC(p256sign_tls_parse(input, len - 1, &tls), P256SIGN_E_BAD_TLS_CONTENT);
	/* a point off its curve is no key exchange a server made */
	input[len - 1] ^= 1;
	CHECK_RC(p256sign_tls_parse(input, len, &tls), P256SIGN_E_BAD_TLS_CONTENT);
	/* the randoms alone, a SHA-256 digest, nothing */
	CHECK_RC(p256sign_tls_parse(input, 64, &tls), P256SIGN_E_BAD_TLS_CONTENT);
	CHECK_RC(p256sign_tls_parse(input, 32, &tls), P256SIGN_E_BAD_TLS_CONTENT);
	CHECK_RC(p256sign_tls_parse(input, 0, &tls), P256SIGN_E_BAD_TLS_CONTENT);
	CHECK_RC(p256sign_tls_parse(NULL, 0, &tls), P256SIGN_E_INVALID);
}

static void key_id_cases(void)
{
	static const char hex[] =
		"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
	uint8_t id[P256SIGN_KEY_ID_LEN], back[P256SIGN_KEY_ID_LEN];
	char text[2 * P256SIGN_KEY_ID_LEN + 1], upper[sizeof(hex)];

	for (int i = 0; i < P256SIGN_KEY_ID_LEN; i++)
		id[i] = (uint8_t)i;
	p256sign_key_id_format(id, text);
	CHECK(strcmp(text, hex) == 0);
	CHECK_RC(p256sign_key_id_parse(hex, 64, back), 0);
	CHECK(memcmp(back, id, sizeof(id)) == 0);
	for (size_t i = 0; i < sizeof(hex); i++)
		upper[i] = hex[i] >= 'a' && hex[i] <= 'f' ? (char)(hex[i] - 'a' + 'A') : hex[i];
	CHECK_RC(p256sign_key_id_parse(upper, 64, back), 0);
	CHECK(memcmp(back, id, sizeof(id)) == 0);
	CHECK_RC(p256sign_key_id_parse(hex, 63, back), P256SIGN_E_INVALID);
	CHECK_RC(p256sign_key_id_parse(hex, 62, back), P256SIGN_E_INVALID);
	memcpy(upper, hex, sizeof(hex));
	upper[10] = 'g';
	CHECK_RC(p256sign_key_id_parse(upper, 64, back), P256SIGN_E_INVALID);
}

static void point_cases(void)
{
	/* The P-256 generator (SEC 2 section 2.4.2), uncompressed. */
	static const uint8_t g[P256SIGN_POINT_LEN] = { 0x04,
		0x6b, 0x17, 0xd1, 0xf2, 0xe1, 0x2c, 0x42, 0x47, 0xf8, 0xbc, 0xe6, 0xe5, 0x63, 0xa4,
		0x40, 0xf2, 0x77, 0x03, 0x7d, 0x81, 0x2d, 0xeb, 0x33, 0xa0, 0xf4, 0xa1, 0x39, 0x45,
		0xd8, 0x98, 0xc2, 0x96,
		0x4f, 0xe3, 0x42, 0xe2, 0xfe, 0x1a, 0x7f, 0x9b, 0x8e, 0xe7, 0xeb, 0x4a, 0x7c, 0x0f,
		0x9e, 0x16, 0x2b, 0xce, 0x33, 0x57, 0x6b, 0x31, 0x5e, 0xce, 0xcb, 0xb6, 0x40, 0x68,
		0x37, 0xbf, 0x51, 0xf5 };
	uint8_t p[P256SIGN_POINT_LEN];

	CHECK_RC(p256sign_point_check(g), 0);
	memcpy(p, g, sizeof(p));
	p[64] ^= 1;	/* off the curve */
	CHECK_RC(p256sign_point_check(p), P256SIGN_E_BAD_POINT);
	memcpy(p, g, sizeof(p));
	p[0] = 0x02;	/* not the uncompressed form */
	CHECK_RC(p256sign_point_check(p), P256SIGN_E_BAD_POINT);
	memset(p, 0, sizeof(p));
	p[0] = 0x04;	/* (0, 0) */
	CHECK_RC(p256sign_point_check(p), P256SIGN_E_BAD_POINT);
}

/* Two UTCTimes, 2025-01-01 and 2049-12-31 (YY 49: the 21st century), a validity's usual form. */
static const uint8_t validity_utc[] = { 0x30, 0x1e,
	0x17, 0x0d, '2', '5', '0', '1', '0', '1', '0', '0', '0', '0', '0', '0', 'Z',
	0x17, 0x0d, '4', '9', '1', '2', '3', '1', '2', '3', '5', '9', '5', '9', 'Z' };

/*
 * A certificate laid out as p256sign_cert_fields reads it: [0] version (when `version`), serial
 * 02 02 00 80, signature 30 00, issuer 30 03 (31 01 00), the validity given, subject 30 02
 * (05 00), and an extension-less rest: the bytes after the subject (here 03 01 00, a BIT
 * STRING) belong to tbsCertificate and are not read.
 */
static size_t cert_layout(uint8_t *out, int version, const uint8_t *validity, size_t vlen)
{
	static const uint8_t ver[] = { 0xa0, 0x03, 0x02, 0x01, 0x02 };
	static const uint8_t head[] = { 0x02, 0x02, 0x00, 0x80, 0x30, 0x00, 0x30, 0x03, 0x31, 0x01,
		0x00 };
	static const uint8_t tail[] = { 0x30, 0x02, 0x05, 0x00, 0x03, 0x01, 0x00 };
	size_t tbs = (version ? sizeof(ver) : 0) + sizeof(head) + vlen + sizeof(tail), n = 0;

	out[n++] = 0x30;
	out[n++] = (uint8_t)(2 + tbs + 2);
	out[n++] = 0x30;
	out[n++] = (uint8_t)tbs;
	if (version) {
		memcpy(out + n, ver, sizeof(ver));
		n += sizeof(ver);
	}
	memcpy(out + n, head, sizeof(head));
	n += sizeof(head);
	memcpy(out + n, validity, vlen);
	n += vlen;
	memcpy(out + n, tail, sizeof(tail));
	n += sizeof(tail);
	out[n++] = 0x05;	/* signatureAlgorithm, signatureValue: not read either */
	out[n++] = 0x00;
	return n;
}

/* The dates p256sign_cert_fields reads from a certificate with this validity ("" for none). */
static void check_dates(const uint8_t *validity, size_t vlen, const char *before,
	const char *after)
{
	static const char zero[8];
	struct p256sign_cert_fields f;
	uint8_t der[128];
	size_t n = cert_layout(der, 1, validity, vlen);

	CHECK_RC(p256sign_cert_fields(der, n, &f), 0);
	CHECK(memcmp(f.not_before, *before ? before : zero, 8) == 0);
	CHECK(memcmp(f.not_after, *after ? after : zero, 8) == 0);
	CHECK(f.subject == f.issuer + 5 + vlen && f.subject_len == 4);
}

static void validity_cases(void)
{
	/* 1950 (YY 50 is the 20th century) and a GeneralizedTime in 2050, as RFC 5280 writes
	 * dates from 2050 on. */
	static const uint8_t mixed[] = { 0x30, 0x20,
		0x17, 0x0d, '5', '0', '0', '1', '0', '1', '0', '0', '0', '0', '0', '0', 'Z',
		0x18, 0x0f, '2', '0', '5', '0', '0', '6', '3', '0', '1', '2', '0', '0', '0', '0', 'Z' };
	/* Not RFC 5280's forms: no seconds; fractional seconds; a month 13; an offset, not Z. */
	static const uint8_t odd[] = { 0x30, 0x1e,
		0x17, 0x0b, '2', '5', '0', '1', '0', '1', '0', '0', '0', '0', 'Z',
		0x18, 0x0f, '2', '0', '2', '5', '1', '3', '0', '1', '0', '0', '0', '0', '0', '0', 'Z' };
	static const uint8_t fraction[] = { 0x30, 0x24,
		0x18, 0x11, '2', '0', '2', '5', '0', '1', '0', '1', '0', '0', '0', '0', '0', '0', '.',
		'5', 'Z',
		0x17, 0x0f, '2', '5', '0', '1', '0', '1', '0', '0', '0', '0', '0', '0', '+', '0', '1' };
	/* Refused: one Time, three, an OCTET STRING for a Time, the empty SEQUENCE. */
	static const uint8_t one[] = { 0x30, 0x0f,
		0x17, 0x0d, '2', '5', '0', '1', '0', '1', '0', '0', '0', '0', '0', '0', 'Z' };
	static const uint8_t three[] = { 0x30, 0x2d,
		0x17, 0x0d, '2', '5', '0', '1', '0', '1', '0', '0', '0', '0', '0', '0', 'Z',
		0x17, 0x0d, '2', '5', '0', '1', '0', '1', '0', '0', '0', '0', '0', '0', 'Z',
		0x17, 0x0d, '2', '5', '0', '1', '0', '1', '0', '0', '0', '0', '0', '0', 'Z' };
	static const uint8_t octets[] = { 0x30, 0x1e,
		0x04, 0x0d, '2', '5', '0', '1', '0', '1', '0', '0', '0', '0', '0', '0', 'Z',
		0x17, 0x0d, '4', '9', '1', '2', '3', '1', '2', '3', '5', '9', '5', '9', 'Z' };
	static const uint8_t empty[] = { 0x30, 0x00 };
	const struct { const uint8_t *v; size_t len; } refused[] = {
		{ one, sizeof(one) }, { three, sizeof(three) }, { octets, sizeof(octets) },
		{ empty, sizeof(empty) },
	};
	struct p256sign_cert_fields f;
	uint8_t der[128];

	check_dates(validity_utc, sizeof(validity_utc), "20250101", "20491231");
	check_dates(mixed, sizeof(mixed), "19500101", "20500630");
	check_dates(odd, sizeof(odd), "", "");
	check_dates(fraction, sizeof(fraction), "", "");
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		size_t n = cert_layout(der, 0, refused[i].v, refused[i].len);

		CHECK_RC(p256sign_cert_fields(der, n, &f), P256SIGN_E_CERT_STRUCTURE);
		CHECK(f.not_before[0] == 0 && f.not_after[0] == 0 && f.subject == NULL);
	}
}

static void cert_cases(void)
{
	struct p256sign_cert_fields f;
	uint8_t der[128];
	size_t n;

	for (int version = 0; version <= 1; version++) {
		n = cert_layout(der, version, validity_utc, sizeof(validity_utc));
		CHECK_RC(p256sign_cert_fields(der, n, &f), 0);
		CHECK(f.serial == der + 4 + (version ? 5 : 0) && f.serial_len == 4);
		CHECK(f.issuer == f.serial + 6 && f.issuer_len == 5);
		CHECK(f.subject == f.issuer + 5 + sizeof(validity_utc) && f.subject_len == 4);
		/* Every cut is refused, as is a byte after the certificate. */
		for (size_t k = 0; k < n; k++) {
			CHECK_RC(p256sign_cert_fields(der, k, &f), P256SIGN_E_CERT_STRUCTURE);
			CHECK(f.serial == NULL && f.issuer == NULL && f.subject == NULL);
		}
		der[n] = 0;
		CHECK_RC(p256sign_cert_fields(der, n + 1, &f), P256SIGN_E_CERT_STRUCTURE);
	}
	n = cert_layout(der, 1, validity_utc, sizeof(validity_utc));
	der[9] = 0x04;	/* the serial an OCTET STRING */
	CHECK_RC(p256sign_cert_fields(der, n, &f), P256SIGN_E_CERT_STRUCTURE);
	n = cert_layout(der, 0, validity_utc, sizeof(validity_utc));
	der[5] = 0x00;	/* an empty INTEGER: 02 00, then the rest is out of step */
	CHECK_RC(p256sign_cert_fields(der, n, &f), P256SIGN_E_CERT_STRUCTURE);
	n = cert_layout(der, 0, validity_utc, sizeof(validity_utc));
	der[1] = 0x81;	/* a long form where the short one fits: not DER */
	CHECK_RC(p256sign_cert_fields(der, n, &f), P256SIGN_E_CERT_STRUCTURE);
	CHECK_RC(p256sign_cert_fields(NULL, 0, &f), P256SIGN_E_CERT_STRUCTURE);
	CHECK_RC(p256sign_cert_fields(der, n, NULL), P256SIGN_E_INVALID);
	validity_cases();
}

int main(void)
{
	tls13_cases();
	tls12_cases();
	key_id_cases();
	point_cases();
	cert_cases();
	printf("ok\n");
	return 0;
}
