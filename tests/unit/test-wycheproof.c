/* SPDX-License-Identifier: ISC */
/*
 * Wycheproof ECDSA secp256r1 SHA-256 test vectors, DER (p256_sig_from_der then p256_verify) and
 * IEEE P1363 (64 bytes r||s straight to p256_verify, any other length refused): every "valid"
 * case is accepted and every "invalid" case refused. An "acceptable" case (legal but unusual
 * encodings in some Wycheproof releases) must be refused: the decoder is strict DER. For P1363
 * the EIP-7951 precompile, and for both files p256_verify_precomputed (the group key's table:
 * the verifier of p256_sign_checked and of configured keys), must give the same result as
 * p256_verify.
 * Usage: test-wycheproof FILE.json der|p1363
 */
#include <openssl/evp.h>

#include "p256.h"
#include "testjson.h"

struct counts {
	int valid, invalid, acceptable;
};

/* The verdict on one case: 0 when the signature is accepted. */
static int verdict(int p1363, const uint8_t pub[65], const struct p256_verify_key *table,
	const uint8_t digest[32], const uint8_t *sig, size_t sig_len)
{
	uint8_t rs[64], in[160], out[32];
	int r;

	if (p1363) {
		if (sig_len != P256_SIG_LEN)
			return P256_ERR_LENGTH;
		r = p256_verify(pub, 65, digest, sig, 0);
		memcpy(in, digest, 32);
		memcpy(in + 32, sig, 64);
		memcpy(in + 96, pub + 1, 64);
		CHECK_INT(p256_eip7951(in, sizeof(in), out) == 32, r == 0);
		CHECK_INT(p256_verify_precomputed(table, digest, sig, 0), r);
		return r;
	}
	if ((r = p256_sig_from_der(sig, sig_len, rs)) != 0)
		return r;
	r = p256_verify(pub, 65, digest, rs, 0);
	CHECK_INT(p256_verify_precomputed(table, digest, rs, 0), r);
	return r;
}

static void run_group(const json_t *group, int p1363, struct counts *n)
{
	const json_t *t;
	uint8_t pub[65], digest[32];
	struct p256_verify_key *table = NULL;
	size_t i;

	json_hex(json_object_get(group, "publicKey"), "uncompressed", pub, 65);
	if (strcmp(json_str(group, "sha"), "SHA-256") != 0)
		test_fatal("not a SHA-256 group");
	if (p256_pubkey_precompute(pub, 65, &table) != 0)
		test_fatal("the group's key");
	json_array_foreach(json_object_get(group, "tests"), i, t) {
		size_t msg_len, sig_len;
		uint8_t *msg = hex_alloc(json_str(t, "msg"), &msg_len);
		uint8_t *sig = hex_alloc(json_str(t, "sig"), &sig_len);
		const char *result = json_str(t, "result");

		if (EVP_Digest(msg, msg_len, digest, NULL, EVP_sha256(), NULL) != 1)
			test_fatal("EVP_Digest");
		int r = verdict(p1363, pub, table, digest, sig, sig_len);
		int want_accept = strcmp(result, "valid") == 0;
		if (want_accept)
			n->valid++;
		else if (strcmp(result, "invalid") == 0)
			n->invalid++;
		else if (strcmp(result, "acceptable") == 0)
			n->acceptable++;
		else
			test_fatal(result);
		if ((r == 0) != want_accept) {
			fprintf(stderr, "tcId %lld (%s, %s): got %s\n",
				json_integer_value(json_object_get(t, "tcId")), result,
				json_str(t, "comment"), p256_err_tag(r));
			test_failures++;
		}
		free(msg);
		free(sig);
	}
	p256_verify_key_free(table);
}

int main(int argc, char **argv)
{
	struct counts n = { 0 };
	const json_t *g;
	json_t *j;
	size_t i;

	if (argc != 3 || (strcmp(argv[2], "der") != 0 && strcmp(argv[2], "p1363") != 0))
		test_fatal("usage: test-wycheproof FILE.json der|p1363");
	j = json_vectors(argv[1]);
	json_array_foreach(json_object_get(j, "testGroups"), i, g)
		run_group(g, strcmp(argv[2], "p1363") == 0, &n);
	CHECK_INT(n.valid + n.invalid + n.acceptable,
		json_integer_value(json_object_get(j, "numberOfTests")));
	CHECK(n.valid > 0 && n.invalid > 0);
	printf("%s: %d valid accepted, %d invalid refused, %d acceptable refused\n", argv[2],
		n.valid, n.invalid, n.acceptable);
	json_decref(j);
	return test_done("test-wycheproof");
}
