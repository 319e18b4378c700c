/* SPDX-License-Identifier: ISC */
/*
 * The key-reference DER (client/keyref-der.h): both encodings byte for byte, decoding them back,
 * and every refusal with its own code.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "keyref-der.h"

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
	struct keyref_der kd;
	int r = keyref_der_decode(der, len, &kd);

	if (r != want) {
		fprintf(stderr, "decode gave %d (%s), want %d (%s)\n", r, keyref_der_strerror(r),
			want, keyref_der_strerror(want));
		exit(1);
	}
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
	struct keyref_der kd = { 0 }, back;
	uint8_t der[KEYREF_DER_MAX + 64], long_name[65], id[32];
	char long_sock[KEYREF_SOCKET_MAX + 1];
	size_t len;

	/* by name */
	memcpy(kd.name, "web", 4);
	memcpy(kd.socket, sock, sizeof(sock));
	CHECK(keyref_der_encode(&kd, der, sizeof(der), &len) == 0);
	CHECK(len == sizeof(name_der) && memcmp(der, name_der, len) == 0);
	CHECK(keyref_der_decode(der, len, &back) == 0);
	CHECK(!back.by_id && strcmp(back.name, "web") == 0 && strcmp(back.socket, sock) == 0);
	/* by id, with the longest socket path (a two-byte SEQUENCE length) */
	for (int i = 0; i < 32; i++)
		id[i] = (uint8_t)i;
	memset(&kd, 0, sizeof(kd));
	kd.by_id = 1;
	memcpy(kd.id, id, sizeof(id));
	memset(kd.socket, 's', KEYREF_SOCKET_MAX);
	kd.socket[0] = '/';
	CHECK(keyref_der_encode(&kd, der, sizeof(der), &len) == 0);
	CHECK(len == 3 + 3 + 34 + 2 + KEYREF_SOCKET_MAX && der[1] == 0x81);
	CHECK(keyref_der_decode(der, len, &back) == 0);
	CHECK(back.by_id && memcmp(back.id, id, 32) == 0 && strcmp(back.socket, kd.socket) == 0);
	CHECK(keyref_der_encode(&kd, der, 100, &len) == KEYREF_E_BUFFER);

	/* refusals */
	refused(name_der, sizeof(name_der) - 1, KEYREF_E_STRUCTURE);	/* truncated */
	memcpy(der, name_der, sizeof(name_der));
	der[sizeof(name_der)] = 0;
	refused(der, sizeof(name_der) + 1, KEYREF_E_TRAILING);	/* a byte after the SEQUENCE */
	len = build(der, two, 1, 0x80, "web", 3, sock, strlen(sock));
	refused(der, len, KEYREF_E_VERSION);
	len = build(der, padded, 2, 0x80, "web", 3, sock, strlen(sock));
	refused(der, len, KEYREF_E_STRUCTURE);	/* a non-minimal INTEGER */
	len = build(der, one, 1, 0x82, "web", 3, sock, strlen(sock));
	refused(der, len, KEYREF_E_KEY_TAG);
	len = build(der, one, 1, 0x80, "", 0, sock, strlen(sock));
	refused(der, len, KEYREF_E_NAME);
	memset(long_name, 'a', sizeof(long_name));
	len = build(der, one, 1, 0x80, long_name, sizeof(long_name), sock, strlen(sock));
	refused(der, len, KEYREF_E_NAME);
	len = build(der, one, 1, 0x80, "w\0b", 3, sock, strlen(sock));
	refused(der, len, KEYREF_E_NAME);
	len = build(der, one, 1, 0x81, id, 31, sock, strlen(sock));
	refused(der, len, KEYREF_E_ID);
	len = build(der, one, 1, 0x80, "web", 3, "", 0);
	refused(der, len, KEYREF_E_SOCKET);
	memset(long_sock, 's', sizeof(long_sock));
	len = build(der, one, 1, 0x80, "web", 3, long_sock, sizeof(long_sock));
	refused(der, len, KEYREF_E_SOCKET);
	len = build(der, one, 1, 0x80, "web", 3, "/a\0b", 4);
	refused(der, len, KEYREF_E_SOCKET);
	/* a fourth field inside the SEQUENCE */
	memcpy(der, name_der, sizeof(name_der));
	der[1] += 2;
	der[sizeof(name_der)] = 0x05;
	der[sizeof(name_der) + 1] = 0x00;
	refused(der, sizeof(name_der) + 2, KEYREF_E_TRAILING);
	/* a long-form length where the short form fits */
	der[0] = 0x30;
	der[1] = 0x81;
	der[2] = 0x25;
	memcpy(der + 3, name_der + 2, sizeof(name_der) - 2);
	refused(der, sizeof(name_der) + 1, KEYREF_E_STRUCTURE);
	printf("ok\n");
	return 0;
}
