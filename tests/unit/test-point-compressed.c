/* SPDX-License-Identifier: ISC */
/*
 * SEC 1 compressed points (lib/point-compressed.c): the edge cases a decoder gets wrong (in the
 * manner of Wycheproof's EC point tests: x not on the curve, x >= p, x = 0, both prefixes, a
 * 0x04 or 0x05 prefix on 33 bytes), and 2,000 random x with both prefixes against OpenSSL's
 * EC_POINT_oct2point: the same points accepted, the same y.
 */
#include <openssl/ec.h>
#include <openssl/obj_mac.h>

#include "p256.h"
#include "testutil.h"

#define RANDOM_X 1000

/* p and the generator G (x, and y, which is odd). */
static const char P_HEX[] = "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff";
static const char GX_HEX[] = "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296";
static const char GY_HEX[] = "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5";
/* x = 0 is on the curve: x^3 - 3x + b = b is a square; this is its even root. */
static const char Y0_EVEN_HEX[] = "66485c780e2f83d72433bd5d84a06bb6541c2af31dae871728bf856a174f93f4";

static void compressed(uint8_t prefix, const char *x_hex, uint8_t out[P256_POINT_COMPRESSED_LEN])
{
	out[0] = prefix;
	hex_exact(x_hex, out + 1, 32);
}

/* y' = p - y, the root of the other parity. */
static void negate_y(const uint8_t y[32], uint8_t out[32])
{
	uint8_t p[32];
	int borrow = 0;

	hex_exact(P_HEX, p, sizeof(p));
	for (int i = 31; i >= 0; i--) {
		int d = p[i] - y[i] - borrow;

		borrow = d < 0;
		out[i] = (uint8_t)(d + (borrow ? 256 : 0));
	}
}

/* Decompresses to (x, y) exactly, and compresses back to the same 33 bytes. */
static void check_point(const uint8_t in[P256_POINT_COMPRESSED_LEN], const uint8_t y[32])
{
	uint8_t out[P256_POINT_LEN], back[P256_POINT_COMPRESSED_LEN];

	CHECK_INT(p256_point_decompress(in, out), 0);
	CHECK(out[0] == 0x04);
	CHECK_MEM(out + 1, in + 1, 32);
	CHECK_MEM(out + 33, y, 32);
	CHECK(p256_point_check(out) == 0);
	CHECK_INT(p256_point_compress(out, back), 0);
	CHECK_MEM(back, in, sizeof(back));
}

static void check_refused(const uint8_t in[P256_POINT_COMPRESSED_LEN])
{
	uint8_t out[P256_POINT_LEN];

	CHECK_INT(p256_point_decompress(in, out), P256_ERR_POINT);
	CHECK(all_zero(out, sizeof(out)));
}

static void edge_cases(void)
{
	uint8_t in[P256_POINT_COMPRESSED_LEN], y[32], other[32], pt[P256_POINT_LEN], c[33];

	test_case = "generator, both prefixes";
	hex_exact(GY_HEX, y, sizeof(y));
	negate_y(y, other);
	compressed(0x03, GX_HEX, in);
	check_point(in, y);
	compressed(0x02, GX_HEX, in);
	check_point(in, other);

	test_case = "x = 0";
	hex_exact(Y0_EVEN_HEX, y, sizeof(y));
	negate_y(y, other);
	compressed(0x02, "0000000000000000000000000000000000000000000000000000000000000000", in);
	check_point(in, y);
	in[0] = 0x03;
	check_point(in, other);

	test_case = "x not on the curve (1, p - 1: x^3 - 3x + b is not a square)";
	compressed(0x02, "0000000000000000000000000000000000000000000000000000000000000001", in);
	check_refused(in);
	in[0] = 0x03;
	check_refused(in);
	compressed(0x02, "ffffffff00000001000000000000000000000000fffffffffffffffffffffffe", in);
	check_refused(in);

	/* x = p would be x = 0 mod p, a point; x = p + 5 would be x = 5, also a point. */
	test_case = "x >= p";
	compressed(0x02, P_HEX, in);
	check_refused(in);
	compressed(0x03, "ffffffff00000001000000000000000000000001000000000000000000000004", in);
	check_refused(in);
	compressed(0x02, "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff", in);
	check_refused(in);

	test_case = "prefixes other than 0x02 and 0x03";
	for (unsigned prefix = 0; prefix < 256; prefix++) {
		if (prefix == 0x02 || prefix == 0x03)
			continue;
		compressed((uint8_t)prefix, GX_HEX, in);
		check_refused(in);	/* 0x04 and 0x05 among them: 33 bytes are not those forms */
	}

	test_case = "compress refuses what is not a point";
	pt[0] = 0x04;
	hex_exact(GX_HEX, pt + 1, 32);
	hex_exact(GY_HEX, pt + 33, 32);
	pt[64] ^= 1;
	CHECK_INT(p256_point_compress(pt, c), P256_ERR_POINT);
	pt[64] ^= 1;
	pt[0] = 0x02;
	CHECK_INT(p256_point_compress(pt, c), P256_ERR_POINT);
}

/* OpenSSL's decoding of in: 1 and out filled, or 0 when it refuses the point. */
static int openssl_decompress(const EC_GROUP *g, const uint8_t in[33], uint8_t out[65], BN_CTX *ctx)
{
	EC_POINT *q = EC_POINT_new(g);
	int ok;

	if (q == NULL)
		test_fatal("EC_POINT_new");
	ok = EC_POINT_oct2point(g, q, in, P256_POINT_COMPRESSED_LEN, ctx) == 1 &&
	    EC_POINT_point2oct(g, q, POINT_CONVERSION_UNCOMPRESSED, out, P256_POINT_LEN, ctx) ==
	    P256_POINT_LEN;
	EC_POINT_free(q);
	return ok;
}

static void against_openssl(void)
{
	EC_GROUP *g = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
	BN_CTX *ctx = BN_CTX_new();
	struct prng rng = { 0x5eed0c0de };
	unsigned accepted = 0;

	if (g == NULL || ctx == NULL)
		test_fatal("OpenSSL group");
	test_case = "random x against OpenSSL";
	for (unsigned i = 0; i < 2 * RANDOM_X; i++) {
		uint8_t in[P256_POINT_COMPRESSED_LEN], ours[P256_POINT_LEN], theirs[P256_POINT_LEN];
		int r;

		in[0] = (uint8_t)(0x02 | (i & 1));
		if ((i & 1) == 0)
			prng_bytes(&rng, in + 1, 32);	/* a new x; the next round: other prefix */
		r = p256_point_decompress(in, ours);
		if (openssl_decompress(g, in, theirs, ctx)) {
			accepted++;
			CHECK_INT(r, 0);
			CHECK_MEM(ours, theirs, sizeof(ours));
		} else {
			CHECK_INT(r, P256_ERR_POINT);
		}
	}
	/* About half of all x are on the curve; both prefixes of each. */
	CHECK(accepted > RANDOM_X * 8 / 10 && accepted < RANDOM_X * 12 / 10 && accepted % 2 == 0);
	EC_GROUP_free(g);
	BN_CTX_free(ctx);
}

int main(void)
{
	edge_cases();
	against_openssl();
	return test_done("point-compressed");
}
