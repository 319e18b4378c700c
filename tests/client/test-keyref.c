/* SPDX-License-Identifier: ISC */
/*
 * Key-reference files through libp256sign's API (p256sign_keyref_*, client/keyref/): both DER
 * encodings byte for byte, decoding them back, every refusal with its own code and message, and
 * the block found in a PEM text among others.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "p256sign.h"

/* One DER element as the format writes it (lengths below 256). */
static size_t el(uint8_t *out, uint8_t tag, const void *p, size_t n)
{
	size_t i = 0;

	out[i++] = tag;
	if (n >= 0x80)
		out[i++] = 0x81;
	out[i++] = (uint8_t)n;
	memcpy(out + i, p, n);
	return i + n;
}

/* SEQUENCE { version, key element (tag, bytes), socket }: the test's own encoder. */
static size_t build(uint8_t *out, const uint8_t *version, size_t vlen, uint8_t key_tag,
	const void *key, size_t key_len, const char *socket, size_t socket_len)
{
	uint8_t body[512];
	size_t n = 0;

	n += el(body + n, 0x02, version, vlen);
	n += el(body + n, key_tag, key, key_len);
	n += el(body + n, 0x0c, socket, socket_len);
	return el(out, 0x30, body, n);
}

static void refused(const uint8_t *der, size_t len, int want)
{
	struct p256sign_keyref kd;
	int r = p256sign_keyref_decode(der, len, &kd);

	if (r != want) {
		fprintf(stderr, "decode gave %d (%s), want %d (%s)\n", r, p256sign_strerror(r),
			want, p256sign_strerror(want));
		exit(1);
	}
}

/*
 * The block in a PEM text: after another block (a haproxy crt file), with its lines broken;
 * text without it; a body that is not base64, or too long for the buffer.
 */
static void pem_cases(const uint8_t *der, size_t der_len)
{
	/* name_der in base64, broken after 32 characters as a PEM writer may */
	static const char body[] = "MCUCAQGAA3dlYgwbL3J1bi9wMjU2c2lnbi9w\nMjU2c2lnbi5zb2Nr\n";
	static const char cert[] = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
	static const char begin[] = "-----BEGIN P256SIGN KEY REFERENCE-----\n";
	static const char end[] = "-----END P256SIGN KEY REFERENCE-----\n";
	char text[512];
	uint8_t out[P256SIGN_KEYREF_DER_MAX];
	struct p256sign_keyref kd;
	size_t len;

	snprintf(text, sizeof(text), "%s%s%s%s", cert, begin, body, end);
	CHECK_RC(p256sign_keyref_find_pem(text, strlen(text), out, sizeof(out), &len), 0);
	CHECK(len == der_len && memcmp(out, der, len) == 0);
	CHECK_RC(p256sign_keyref_decode(out, len, &kd), 0);
	CHECK(!kd.by_id && strcmp(kd.name, "web") == 0);
	/* the buffer too small for the body */
	CHECK_RC(p256sign_keyref_find_pem(text, strlen(text), out, der_len - 1, &len),
		P256SIGN_E_KEYREF_PEM);
	/* only the certificate: not a key reference, and no error */
	CHECK_RC(p256sign_keyref_find_pem(cert, strlen(cert), out, sizeof(out), &len),
		P256SIGN_E_KEYREF_ABSENT);
	CHECK_RC(p256sign_keyref_find_pem("", 0, out, sizeof(out), &len), P256SIGN_E_KEYREF_ABSENT);
	/* a body that is not base64 */
	snprintf(text, sizeof(text), "%s%s%s", begin, "MCUC*AQG\n", end);
	CHECK_RC(p256sign_keyref_find_pem(text, strlen(text), out, sizeof(out), &len),
		P256SIGN_E_KEYREF_PEM);
	/* the text ends inside the block: no block */
	snprintf(text, sizeof(text), "%s%s", begin, body);
	CHECK_RC(p256sign_keyref_find_pem(text, strlen(text), out, sizeof(out), &len),
		P256SIGN_E_KEYREF_ABSENT);
}

int main(void)
{
	static const uint8_t one[] = { 1 }, two[] = { 2 }, padded[] = { 0, 1 };
	static const char sock[] = "/run/p256sign/p256sign.sock";
	/* The seeds of tests/fuzz/corpus/keyref/name: p256sign:web at the default socket. */
	static const uint8_t name_der[] = {
		0x30, 0x25, 0x02, 0x01, 0x01, 0x80, 0x03, 'w', 'e', 'b', 0x0c, 0x1b,
		'/', 'r', 'u', 'n', '/', 'p', '2', '5', '6', 's', 'i', 'g', 'n', '/',
		'p', '2', '5', '6', 's', 'i', 'g', 'n', '.', 's', 'o', 'c', 'k',
	};
	struct p256sign_keyref kd = { 0 }, back;
	uint8_t der[P256SIGN_KEYREF_DER_MAX + 64], long_name[65], id[32];
	char long_sock[P256SIGN_KEYREF_SOCKET_MAX + 1];
	size_t len;

	/* by name */
	memcpy(kd.name, "web", 4);
	memcpy(kd.socket, sock, sizeof(sock));
	CHECK(p256sign_keyref_encode(&kd, der, sizeof(der), &len) == 0);
	CHECK(len == sizeof(name_der) && memcmp(der, name_der, len) == 0);
	CHECK(p256sign_keyref_decode(der, len, &back) == 0);
	CHECK(!back.by_id && strcmp(back.name, "web") == 0 && strcmp(back.socket, sock) == 0);
	/* by id, with the longest socket path (a two-byte SEQUENCE length) */
	for (int i = 0; i < 32; i++)
		id[i] = (uint8_t)i;
	memset(&kd, 0, sizeof(kd));
	kd.by_id = 1;
	memcpy(kd.id, id, sizeof(id));
	memset(kd.socket, 's', P256SIGN_KEYREF_SOCKET_MAX);
	kd.socket[0] = '/';
	CHECK(p256sign_keyref_encode(&kd, der, sizeof(der), &len) == 0);
	CHECK(len == 3 + 3 + 34 + 2 + P256SIGN_KEYREF_SOCKET_MAX && der[1] == 0x81);
	CHECK(p256sign_keyref_decode(der, len, &back) == 0);
	CHECK(back.by_id && memcmp(back.id, id, 32) == 0 && strcmp(back.socket, kd.socket) == 0);
	CHECK(p256sign_keyref_encode(&kd, der, 100, &len) == P256SIGN_E_BUFFER);

	/* refusals */
	refused(name_der, sizeof(name_der) - 1, P256SIGN_E_KEYREF_STRUCTURE);	/* truncated */
	memcpy(der, name_der, sizeof(name_der));
	der[sizeof(name_der)] = 0;
	refused(der, sizeof(name_der) + 1, P256SIGN_E_KEYREF_TRAILING);	/* a byte after the SEQUENCE */
	len = build(der, two, 1, 0x80, "web", 3, sock, strlen(sock));
	refused(der, len, P256SIGN_E_KEYREF_VERSION);
	len = build(der, padded, 2, 0x80, "web", 3, sock, strlen(sock));
	refused(der, len, P256SIGN_E_KEYREF_STRUCTURE);	/* a non-minimal INTEGER */
	len = build(der, one, 1, 0x82, "web", 3, sock, strlen(sock));
	refused(der, len, P256SIGN_E_KEYREF_KEY);
	len = build(der, one, 1, 0x80, "", 0, sock, strlen(sock));
	refused(der, len, P256SIGN_E_KEYREF_NAME);
	memset(long_name, 'a', sizeof(long_name));
	len = build(der, one, 1, 0x80, long_name, sizeof(long_name), sock, strlen(sock));
	refused(der, len, P256SIGN_E_KEYREF_NAME);
	len = build(der, one, 1, 0x80, "w\0b", 3, sock, strlen(sock));
	refused(der, len, P256SIGN_E_KEYREF_NAME);
	len = build(der, one, 1, 0x81, id, 31, sock, strlen(sock));
	refused(der, len, P256SIGN_E_KEYREF_ID);
	len = build(der, one, 1, 0x80, "web", 3, "", 0);
	refused(der, len, P256SIGN_E_KEYREF_SOCKET);
	memset(long_sock, 's', sizeof(long_sock));
	len = build(der, one, 1, 0x80, "web", 3, long_sock, sizeof(long_sock));
	refused(der, len, P256SIGN_E_KEYREF_SOCKET);
	len = build(der, one, 1, 0x80, "web", 3, "/a\0b", 4);
	refused(der, len, P256SIGN_E_KEYREF_SOCKET);
	/* a fourth field inside the SEQUENCE */
	memcpy(der, name_der, sizeof(name_der));
	der[1] += 2;
	der[sizeof(name_der)] = 0x05;
	der[sizeof(name_der) + 1] = 0x00;
	refused(der, sizeof(name_der) + 2, P256SIGN_E_KEYREF_TRAILING);
	/* a long-form length where the short form fits */
	der[0] = 0x30;
	der[1] = 0x81;
	der[2] = 0x25;
	memcpy(der + 3, name_der + 2, sizeof(name_der) - 2);
	refused(der, sizeof(name_der) + 1, P256SIGN_E_KEYREF_STRUCTURE);
	/* each refusal has a message of its own */
	CHECK(strcmp(p256sign_strerror(P256SIGN_E_KEYREF_VERSION),
		"unsupported key reference version") == 0);
	for (int a = P256SIGN_E_KEYREF_STRUCTURE; a >= P256SIGN_E_KEYREF_PEM; a--)
		for (int b = a - 1; b >= P256SIGN_E_KEYREF_PEM; b--)
			CHECK(strcmp(p256sign_strerror(a), p256sign_strerror(b)) != 0 &&
				strcmp(p256sign_strerror(a), "unknown error") != 0);
	pem_cases(name_der, sizeof(name_der));
	printf("ok\n");
	return 0;
}
