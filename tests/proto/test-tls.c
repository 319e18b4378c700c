/* SPDX-License-Identifier: ISC */
/*
 * The TLS handshake content of SIGN_TLS (proto/tls.h): a ServerKeyExchange's ServerECDHParams is
 * refused as bad-tls-content when its structure is wrong and as bad-tls-point when its point is
 * not on its curve (secp256r1, secp384r1, secp521r1), both by proto_tls_check and by the request
 * decoder, whose first fault in reading order decides. X25519 and X448 points are not checked.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "cursor.h"
#include "proto.h"
#include "tls.h"

#define BAD_TLS (-PROTO_E_BAD_TLS_CONTENT)
#define BAD_POINT (-PROTO_E_BAD_TLS_POINT)

/* Each curve's generator, uncompressed (SEC 2 version 2), and its field prime p. */
static const char g256[] = "04"
	"6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"
	"4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5";
static const char p256[] = "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff";
static const char g384[] = "04"
	"aa87ca22be8b05378eb1c71ef320ad746e1d3b628ba79b9859f741e082542a385502f25dbf55296c3a545e3872760ab7"
	"3617de4a96262c6f5d9e98bf9292dc29f8f41dbd289a147ce9da3113b5f0b8c00a60b1ce1d7e819d7a431d7c90ea0e5f";
static const char g521[] = "04"
	"00c6858e06b70404e9cd9e3ecb662395b4429c648139053fb521f828af606b4d3dbaa14b5e77efe75928fe1dc127a2ff"
	"a8de3348b3c1856a429bf97e7e31c2e5bd66"
	"011839296a789a3bc0045c8a5fb42c7d1bd998f54449579b446817afbd17273e662c97ee72995ef42640c550b9013fad"
	"0761353c7086a272c24088be94769fd16650";

/* A ServerKeyExchange input whose ServerECDHParams are curve `curve` and the n-byte point. */
static struct proto_tls ske(uint16_t curve, const uint8_t *point, size_t n)
{
	struct proto_tls t = { .kind = PROTO_TLS12_SERVER_KEY_EXCHANGE, .side = PROTO_TLS_SERVER };

	t.params[0] = 3;
	t.params[1] = (uint8_t)(curve >> 8);
	t.params[2] = (uint8_t)curve;
	t.params[3] = (uint8_t)n;
	memcpy(t.params + 4, point, n);
	t.params_len = (uint8_t)(4 + n);
	return t;
}

static int check_point(uint16_t curve, const uint8_t *point, size_t n)
{
	struct proto_tls t = ske(curve, point, n);

	return proto_tls_check(&t);
}

/* A SIGN_TLS request frame (after the length prefix) carrying t, plus `extra` trailing bytes. */
static int decode(const struct proto_tls *t, size_t extra)
{
	static const uint8_t head[] = { PROTO_VERSION, PROTO_SIGN_TLS, 0, 0, 0, 0, 0, 9,
		1, 1, 'k', PROTO_FORMAT_RAW, PROTO_TLS12_SERVER_KEY_EXCHANGE };
	uint8_t frame[sizeof(head) + 2 * PROTO_TLS_RANDOM_LEN + 1 + PROTO_TLS_PARAMS_MAX + 1] = { 0 };
	struct proto_request req;
	size_t len = sizeof(head) + 2 * PROTO_TLS_RANDOM_LEN;
	uint8_t *copy;
	int r;

	memcpy(frame, head, sizeof(head));
	frame[len++] = t->params_len;
	memcpy(frame + len, t->params, t->params_len);
	len += t->params_len + extra;
	/* An exact-size heap copy, so that the sanitizers see any over-read. */
	if ((copy = malloc(len)) == NULL)
		test_fatal("out of memory");
	memcpy(copy, frame, len);
	r = proto_decode_request(copy, len, &req);
	free(copy);
	return r;
}

static void test_on_curve(void)
{
	uint8_t g[133], bad[133], zero[133] = { 4 }, x25519[32] = { 9 };

	test_case = "the generators are on their curves";
	hex_exact(g256, g, 65);
	CHECK_INT(check_point(23, g, 65), 0);
	hex_exact(g384, g, 97);
	CHECK_INT(check_point(24, g, 97), 0);
	hex_exact(g521, g, 133);
	CHECK_INT(check_point(25, g, 133), 0);

	test_case = "0x04 and zeros: on no curve";
	CHECK_INT(check_point(23, zero, 65), BAD_POINT);
	CHECK_INT(check_point(24, zero, 97), BAD_POINT);
	CHECK_INT(check_point(25, zero, 133), BAD_POINT);

	test_case = "one bit of y changed";
	hex_exact(g256, bad, 65);
	bad[64] ^= 1;
	CHECK_INT(check_point(23, bad, 65), BAD_POINT);
	hex_exact(g384, bad, 97);
	bad[96] ^= 1;
	CHECK_INT(check_point(24, bad, 97), BAD_POINT);
	hex_exact(g521, bad, 133);
	bad[132] ^= 1;
	CHECK_INT(check_point(25, bad, 133), BAD_POINT);

	test_case = "a coordinate of p or more";
	/* x = p: the same point as x = 0 modulo p if that were on the curve, but not a field
	 * element; likewise y = p + y of G, which is y of G modulo p. */
	hex_exact(g256, bad, 65);
	hex_exact(p256, bad + 1, 32);
	CHECK_INT(check_point(23, bad, 65), BAD_POINT);
	hex_exact(g256, bad, 65);
	memset(bad + 33, 0xff, 32);
	CHECK_INT(check_point(23, bad, 65), BAD_POINT);

	test_case = "a generator under another curve's name";
	hex_exact(g256, g, 65);
	CHECK_INT(check_point(24, g, 65), BAD_TLS);	/* a secp384r1 point is 97 bytes */

	test_case = "structure before the point";
	/* secp521r1 with 0x04 and 130 bytes: a length no secp521r1 point has */
	CHECK_INT(check_point(25, zero, 131), BAD_TLS);
	zero[0] = 2;					/* compressed: not accepted */
	CHECK_INT(check_point(23, zero, 33), BAD_TLS);

	test_case = "x25519 and x448: any u";
	CHECK_INT(check_point(29, x25519, 32), 0);
	memset(x25519, 0, sizeof(x25519));
	CHECK_INT(check_point(29, x25519, 32), 0);
	CHECK_INT(check_point(30, bad, 56), 0);
}

static void test_digest_and_decoder(void)
{
	uint8_t point[65] = { 4 }, g[65], digest[32];
	struct proto_tls t = ske(23, point, 65);

	test_case = "the digest refuses an off-curve point";
	CHECK_INT(proto_tls_digest(&t, digest), BAD_POINT);

	test_case = "the decoder: bad-tls-point, before the trailing bytes";
	CHECK_INT(decode(&t, 0), BAD_POINT);
	CHECK_INT(decode(&t, 1), BAD_POINT);
	hex_exact(g256, g, 65);
	t = ske(23, g, 65);
	CHECK_INT(decode(&t, 0), 0);
	CHECK_INT(decode(&t, 1), -PROTO_E_BAD_FRAME);
	CHECK_INT(proto_tls_digest(&t, digest), 0);

	test_case = "the error's tag and text";
	CHECK(strcmp(proto_error_tag(PROTO_E_BAD_TLS_POINT), "bad-tls-point") == 0);
	CHECK(strcmp(proto_error_text(PROTO_E_BAD_TLS_POINT),
	    "ServerECDHParams point is not on its curve") == 0);
	CHECK(proto_error_closes(PROTO_E_BAD_TLS_POINT) == 0);
}

int main(void)
{
	test_on_curve();
	test_digest_and_decoder();
	return test_done("test-tls");
}
