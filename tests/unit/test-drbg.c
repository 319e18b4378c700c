/* SPDX-License-Identifier: ISC */
/*
 * The RFC 6979 HMAC-DRBG of lib/drbg.c: the nonce k of RFC 6979 A.2.5 (P-256, SHA-256, "sample"
 * and "test") as the first candidate for h1 = digest mod n, and the properties the signer relies
 * on: additional data changes the stream, the same seed gives the same stream, and the step h.3
 * retry gives fresh candidates. The retry candidates are checked bit for bit against an
 * independent implementation in test-differential.
 */
#include "drbg.h"
#include "scalar.h"
#include "testjson.h"

/* The first three candidates for one seed. */
static void stream(const uint8_t x[32], const uint8_t h1[32], const uint8_t *extra, size_t len,
	uint8_t t[3][32])
{
	struct drbg *d;

	CHECK_INT(drbg_new(&d, x, h1, extra, len), 0);
	if (d == NULL)
		test_fatal("drbg_new");
	for (int i = 0; i < 3; i++)
		CHECK_INT(drbg_next(d, t[i]), 0);
	drbg_free(d);
}

int main(int argc, char **argv)
{
	json_t *j, *v;
	size_t i;

	if (argc != 2)
		test_fatal("usage: test-drbg rfc6979_p256_sha256.json");
	j = json_vectors(argv[1]);
	CHECK_INT(json_array_size(json_object_get(j, "vectors")), 2);
	json_array_foreach(json_object_get(j, "vectors"), i, v) {
		uint8_t d[32], digest[32], k[32], h1[32], t[3][32], u[3][32];
		scalar e;

		json_hex(v, "d", d, 32);
		json_hex(v, "digest", digest, 32);
		json_hex(v, "k", k, 32);
		scalar_from_bytes(&e, digest);
		scalar_reduce(&e, &e);
		scalar_to_bytes(h1, &e);

		stream(d, h1, NULL, 0, t);
		CHECK_MEM(t[0], k, 32);
		CHECK(memcmp(t[1], t[0], 32) != 0 && memcmp(t[2], t[1], 32) != 0);

		stream(d, h1, NULL, 0, u);	/* deterministic */
		CHECK_MEM(u, t, sizeof(t));

		stream(d, h1, (const uint8_t *)"x", 1, u);	/* additional data counts */
		CHECK(memcmp(u[0], t[0], 32) != 0);
		stream(d, h1, (const uint8_t *)"y", 1, t);
		CHECK(memcmp(u[0], t[0], 32) != 0);
	}
	json_decref(j);
	return test_done("test-drbg");
}
