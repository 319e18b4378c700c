/* SPDX-License-Identifier: ISC */
/*
 * Writes the seed corpora of the fuzz harnesses: make-corpus DIR writes DIR/der/NAME,
 * DIR/eip7951/NAME and DIR/audit/NAME (the directories must exist). Deterministic: fixed keys,
 * RFC 6979 nonces and SHA-256 digests of fixed strings, so that rerunning it reproduces the
 * committed files.
 */
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

#include "audit-seal.h"
#include "hex.h"
#include "p256.h"

/* The RFC 6979 A.2.5 key, 1 (public point G) and n - 1. */
static const uint8_t KEYS[][P256_SCALAR_LEN] = {
	{ 0xc9, 0xaf, 0xa9, 0xd8, 0x45, 0xba, 0x75, 0x16, 0x6b, 0x5c, 0x21, 0x57, 0x67, 0xb1, 0xd6, 0x93,
	  0x4e, 0x50, 0xc3, 0xdb, 0x36, 0xe8, 0x9b, 0x12, 0x7b, 0x8a, 0x62, 0x2b, 0x12, 0x0f, 0x67, 0x21 },
	{ [31] = 1 },
	{ 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	  0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x50 },
};
#define NKEYS (sizeof(KEYS) / sizeof(KEYS[0]))

/* n, the group order */
static const uint8_t ORDER[32] = {
	0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51
};

static const char *dir;

static int put(const char *sub, const char *name, const uint8_t *p, size_t n)
{
	char path[4096];
	FILE *f;
	int ok;

	if (snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name) >= (int)sizeof(path) ||
	    (f = fopen(path, "wb")) == NULL) {
		perror(path);
		return -1;
	}
	ok = fwrite(p, 1, n, f) == n;
	if (fclose(f) != 0 || !ok) {
		perror(path);
		return -1;
	}
	return 0;
}

/* DER of a raw r||s, and the same bytes with one defect per file. */
static int der_files(const char *name, const uint8_t sig[P256_SIG_LEN])
{
	uint8_t der[P256_SIG_DER_MAX + 2], bad[P256_SIG_DER_MAX + 2];
	char fname[64];
	size_t len;

	if (p256_sig_to_der(sig, der, &len) != 0 || put("der", name, der, len) != 0)
		return -1;
	memcpy(bad, der, len);
	bad[len] = 0;				/* a trailing byte */
	snprintf(fname, sizeof(fname), "%s-trailing", name);
	if (put("der", fname, bad, len + 1) != 0)
		return -1;
	bad[0] = 0x31;				/* SET instead of SEQUENCE */
	snprintf(fname, sizeof(fname), "%s-tag", name);
	if (put("der", fname, bad, len) != 0)
		return -1;
	bad[0] = 0x30;				/* the same length in non-minimal long form */
	bad[1] = 0x81;
	bad[2] = der[1];
	memcpy(bad + 3, der + 2, len - 2);
	snprintf(fname, sizeof(fname), "%s-long-length", name);
	return put("der", fname, bad, len + 1);
}

/* hash || r || s || x || y, and variants that must all fail. */
static int eip_files(const char *name, const uint8_t digest[32], const uint8_t sig[64],
	const uint8_t pub[P256_POINT_LEN])
{
	uint8_t in[161];
	char fname[64];

	memcpy(in, digest, 32);
	memcpy(in + 32, sig, 64);
	memcpy(in + 96, pub + 1, 64);
	if (put("eip7951", name, in, 160) != 0)
		return -1;
	snprintf(fname, sizeof(fname), "%s-short", name);
	if (put("eip7951", fname, in, 159) != 0)
		return -1;
	in[160] = 0;
	snprintf(fname, sizeof(fname), "%s-long", name);
	if (put("eip7951", fname, in, 161) != 0)
		return -1;
	in[0] ^= 1;				/* another digest */
	snprintf(fname, sizeof(fname), "%s-digest", name);
	if (put("eip7951", fname, in, 160) != 0)
		return -1;
	in[0] ^= 1;
	memcpy(in + 64, ORDER, 32);		/* s = n */
	snprintf(fname, sizeof(fname), "%s-s-order", name);
	if (put("eip7951", fname, in, 160) != 0)
		return -1;
	memcpy(in + 64, sig + 32, 32);
	in[159] ^= 1;				/* a point off the curve */
	snprintf(fname, sizeof(fname), "%s-off-curve", name);
	return put("eip7951", fname, in, 160);
}

/* The audit key, KEYS[0]: its key id (SHA-256 of its SubjectPublicKeyInfo) and point. */
#define AUDIT_KEY_ID "5a7a78cca4a0f420d9bc62bb669c3c2759e39f723d3ae10dcbe0f0815a07ecd4"
#define AUDIT_PUBLIC "0460fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6" \
	"7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299"

/* The audit seeds: a series as the daemon writes it (docs/audit.md), each record's members after
 * prev; a checkpoint's are made here, with the seal signed by KEYS[0] (low s). */
static const struct {
	const char *type;
	const char *members;		/* an open's, a request's or a dropped one's */
	const char *reason;		/* a checkpoint's */
	uint64_t covers;
	const char *seed;		/* this line alone is the seed of this name too */
} AUDIT[] = {
	{ "open", "\"reason\":\"start\",\"pid\":4242,\"audit_key\":{\"name\":\"audit\","
	  "\"key_id\":\"" AUDIT_KEY_ID "\",\"public\":\"" AUDIT_PUBLIC "\"}", NULL, 0, "open" },
	{ "request", "\"conn\":1,\"id\":1,\"peer\":{\"pid\":1001,\"uid\":1000,\"gid\":1000,"
	  "\"comm\":\"signer\",\"unit\":\"signer.service\"},\"op\":\"sign\",\"key\":\"release\","
	  "\"key_id\":\"" AUDIT_KEY_ID "\",\"digest\":\"e5c7990e38adf52e1f932c333f130278326106a58f4bb0b88c698d80d0c9aa87\","
	  "\"result\":\"ok\",\"sig_sha256\":\"6ee2fb0fde023e6142b9d06413d2426acfe87a32f5ae5c7def3e2257b573c96a\","
	  "\"us\":121", NULL, 0, "request" },
	{ "request", "\"conn\":1,\"id\":2,\"peer\":{\"pid\":1002,\"uid\":1000,\"gid\":1000,"
	  "\"comm\":\"signer\",\"unit\":\"signer.service\"},\"op\":\"sign-message\",\"key\":\"release\","
	  "\"key_id\":\"" AUDIT_KEY_ID "\",\"message_sha256\":\"1a0c01a1b1a629f8c18715ee7dae561dc89d62984d754f98987b55ce0672537b\","
	  "\"result\":\"ok\",\"sig_sha256\":\"08518f7dec6a52b87db983899669f218e3efb23b99ac59edbd5bab4c8629f5af\","
	  "\"us\":122", NULL, 0, NULL },
	{ "request", "\"conn\":1,\"id\":3,\"peer\":{\"pid\":1003,\"uid\":1000,\"gid\":1000},"
	  "\"op\":\"sign\",\"result\":\"unknown-key\",\"us\":123", NULL, 0, NULL },
	{ "checkpoint", NULL, "count", 3, "checkpoint" },
	{ "request", "\"conn\":2,\"id\":5,\"peer\":{\"pid\":1005,\"uid\":1000,\"gid\":1000,"
	  "\"comm\":\"signer\",\"unit\":\"signer.service\"},\"op\":\"sign-tls\",\"key\":\"release\","
	  "\"key_id\":\"" AUDIT_KEY_ID "\",\"tls\":{\"kind\":\"tls13\",\"side\":\"server\",\"transcript_hash\":"
	  "\"abababababababababababababababababababababababababababababababababababababababababababababababab\"},"
	  "\"result\":\"ok\",\"sig_sha256\":\"1e87aec6da6849a935021fa10fcd2386f1baaaf656dbdf8aed8ff82d9cffbf71\","
	  "\"us\":125", NULL, 0, "request-tls" },
	{ "dropped", "\"records\":3,\"kinds\":\"ping ok 1, sign audit-unavailable 2\"", NULL, 0,
	  "dropped" },
	{ "checkpoint", NULL, "stop", 7, NULL },
};
#define NAUDIT (sizeof(AUDIT) / sizeof(AUDIT[0]))
#define AUDIT_LINE 1024

/* The members of checkpoint i of the series: its seal over the line it covers, at its time. */
static int audit_checkpoint(size_t i, const char *time, uint8_t hashes[][32], char *out, size_t cap)
{
	uint8_t digest[32], sig[P256_SIG_LEN];
	char covers_hex[65], sig_hex[2 * P256_SIG_LEN + 1];
	int r;

	if (audit_seal_digest(hashes[AUDIT[i].covers - 1], AUDIT[i].covers, time, AUDIT[i].reason,
	    digest) != 0)
		return fprintf(stderr, "make-corpus: SHA-256 failed\n"), -1;
	if ((r = p256_sign(KEYS[0], digest, P256_NONCE_DETERMINISTIC, NULL, 0, sig)) != 0 ||
	    (r = p256_normalize_s(sig)) != 0)
		return fprintf(stderr, "make-corpus: %s\n", p256_strerror(r)), -1;
	hex_encode(hashes[AUDIT[i].covers - 1], 32, covers_hex);
	hex_encode(sig, sizeof(sig), sig_hex);
	snprintf(out, cap, "\"reason\":\"%s\",\"covers_seq\":%llu,\"covers_hash\":\"%s\",\"key_id\":"
		"\"" AUDIT_KEY_ID "\",\"sig\":\"%s\"", AUDIT[i].reason,
		(unsigned long long)AUDIT[i].covers, covers_hex, sig_hex);
	return 0;
}

/* DIR/audit/sealed-series, the series with a newline after each line, and a seed of each type. */
static int audit_files(void)
{
	static char series[NAUDIT * AUDIT_LINE];
	uint8_t hashes[NAUDIT][32] = { { 0 } };
	char members[AUDIT_LINE], time[AUDIT_TIME_LEN + 1];
	char prev[65] = "0000000000000000000000000000000000000000000000000000000000000000";
	char *line;
	size_t used = 0, len;

	for (size_t i = 0; i < NAUDIT; i++) {
		/* the times of tests/client/test_audit_verify.py's writer */
		snprintf(time, sizeof(time), "2026-12-01T12:00:%02zu.%06zuZ", i, i * 7919 % 1000000);
		if (AUDIT[i].reason != NULL) {
			if (audit_checkpoint(i, time, hashes, members, sizeof(members)) != 0)
				return -1;
		} else {
			snprintf(members, sizeof(members), "%s", AUDIT[i].members);
		}
		line = series + used;
		len = (size_t)snprintf(line, AUDIT_LINE, "{\"v\":1,\"type\":\"%s\",\"seq\":%zu,\"time\":"
			"\"%s\",\"prev\":\"%s\",%s}", AUDIT[i].type, i + 1, time, prev, members);
		if (len >= AUDIT_LINE ||
		    EVP_Digest(line, len, hashes[i], NULL, EVP_sha256(), NULL) != 1)
			return fprintf(stderr, "make-corpus: audit line %zu\n", i + 1), -1;
		hex_encode(hashes[i], 32, prev);
		if (AUDIT[i].seed != NULL && put("audit", AUDIT[i].seed, (uint8_t *)line, len) != 0)
			return -1;
		line[len] = '\n';
		used += len + 1;
	}
	return put("audit", "sealed-series", (uint8_t *)series, used);
}

int main(int argc, char **argv)
{
	uint8_t digest[32], sig[P256_SIG_LEN], pub[P256_POINT_LEN], raw[P256_SIG_LEN];
	char msg[32], name[32];
	int r;

	if (argc != 2) {
		fprintf(stderr, "usage: make-corpus DIR\n");
		return 2;
	}
	dir = argv[1];
	for (size_t i = 0; i < NKEYS; i++) {
		snprintf(msg, sizeof(msg), "corpus message %zu", i);
		if (EVP_Digest(msg, strlen(msg), digest, NULL, EVP_sha256(), NULL) != 1)
			return fprintf(stderr, "make-corpus: SHA-256 failed\n"), 1;
		if ((r = p256_public_from_private(KEYS[i], pub)) != 0 ||
		    (r = p256_sign(KEYS[i], digest, P256_NONCE_DETERMINISTIC, NULL, 0, sig)) != 0)
			return fprintf(stderr, "make-corpus: %s\n", p256_strerror(r)), 1;
		snprintf(name, sizeof(name), "sig-%zu", i);
		if (der_files(name, sig) != 0)
			return 1;
		snprintf(name, sizeof(name), "valid-%zu", i);
		if (eip_files(name, digest, sig, pub) != 0)
			return 1;
	}
	/* integers of every DER shape: zero, short, high bit set (a sign byte), the maximum */
	memset(raw, 0, sizeof(raw));
	raw[63] = 1;
	if (der_files("zero-one", raw) != 0)
		return 1;
	memset(raw, 0xff, sizeof(raw));
	if (der_files("all-ones", raw) != 0)
		return 1;
	memset(raw, 0, sizeof(raw));
	raw[31] = 0x80;
	raw[40] = 0x7f;
	if (der_files("short", raw) != 0)
		return 1;
	return audit_files() != 0;
}
