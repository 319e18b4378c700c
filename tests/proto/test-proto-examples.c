/* SPDX-License-Identifier: ISC */
/*
 * docs/protocol.md (path in argv[1]) against the codec: every `<!-- frame: NAME -->` hex block is
 * byte for byte the frame the encoder builds from the sample of that name (samples.c), decodes back
 * to the sample's fields, and every documented sample appears exactly once. The example values are
 * checked against the signing core (the signature is really the RFC 6979 one, the key id really
 * SHA-256 of the SPKI), and the error table of the document against proto-errors.c.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "p256.h"
#include "proto.h"
#include "samples.h"

#define MAX_SAMPLES 32
#define DOC_MAX (1 << 20)
#define MARKER "<!-- frame: "

static char *read_doc(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *doc = malloc(DOC_MAX + 1);

	*len = 0;
	if (f != NULL && doc != NULL) {
		*len = fread(doc, 1, DOC_MAX, f);
		doc[*len] = '\0';
	}
	if (f == NULL || doc == NULL || ferror(f) || *len == 0 || *len == DOC_MAX) {
		fprintf(stderr, "cannot read %s\n", path);
		free(doc);
		doc = NULL;
	}
	if (f != NULL)
		fclose(f);
	return doc;
}

/* The sample of that name among the documented ones, or NULL. */
static struct sample *find(struct sample *s, size_t n, const char *name, size_t name_len)
{
	for (size_t i = 0; i < n; i++)
		if (s[i].in_doc && strlen(s[i].name) == name_len &&
		    memcmp(s[i].name, name, name_len) == 0)
			return &s[i];
	return NULL;
}

/* The documented frame of s, `len` bytes: the encoder's bytes, decoding to s's fields. */
static void check_frame(const struct sample *s, const uint8_t *doc_frame, size_t len)
{
	static uint8_t built[PROTO_LEN_PREFIX + PROTO_FRAME_MAX];
	struct proto_request req;
	struct proto_response resp;
	size_t built_len = 0;
	uint32_t n = 0;

	CHECK(sample_encode(s, built, sizeof(built), &built_len) == 0);
	CHECK(built_len == len && memcmp(built, doc_frame, len) == 0);
	if (built_len != len || memcmp(built, doc_frame, len) != 0) {
		fprintf(stderr, "encoder builds:");
		for (size_t i = 0; i < built_len; i++)
			fprintf(stderr, " %02x", built[i]);
		fprintf(stderr, "\n");
	}
	CHECK(len >= PROTO_LEN_PREFIX && proto_frame_length(doc_frame, &n) == 0 &&
	    n == len - PROTO_LEN_PREFIX);
	if (n != len - PROTO_LEN_PREFIX)
		return;
	if (s->is_request) {
		CHECK(proto_decode_request(doc_frame + PROTO_LEN_PREFIX, n, &req) == 0);
		CHECK(request_equal(&req, &s->req));
	} else {
		CHECK(proto_decode_response(doc_frame + PROTO_LEN_PREFIX, n, &resp) == 0);
		CHECK(response_equal(&resp, &s->resp));
	}
}

/* Walks every marker of the document; counts in seen[] how often each sample appears. */
static void check_blocks(const char *doc, struct sample *s, size_t n, unsigned *seen)
{
	static uint8_t frame[PROTO_LEN_PREFIX + PROTO_FRAME_MAX];
	static const char fence[] = "\n```hex\n";
	const char *p = doc;
	unsigned blocks = 0;

	while ((p = strstr(p, MARKER)) != NULL) {
		const char *name = p + strlen(MARKER), *name_end, *hex, *hex_end;
		struct sample *found;
		long len;

		blocks++;
		name_end = strstr(name, " -->");
		test_case = "document";
		CHECK(name_end != NULL);
		if (name_end == NULL)
			return;
		hex = name_end + strlen(" -->");
		CHECK(strncmp(hex, fence, strlen(fence)) == 0); /* the block follows at once */
		hex += strlen(fence);
		hex_end = strstr(hex, "\n```");
		CHECK(hex_end != NULL);
		if (hex_end == NULL)
			return;
		found = find(s, n, name, (size_t)(name_end - name));
		if (found == NULL) {
			fprintf(stderr, "frame %.*s in the document has no sample\n",
			    (int)(name_end - name), name);
			CHECK(found != NULL);
		} else {
			test_case = found->name;
			seen[found - s]++;
			len = hex_parse(hex, (size_t)(hex_end - hex), frame, sizeof(frame));
			CHECK(len > 0);
			if (len > 0)
				check_frame(found, frame, (size_t)len);
		}
		p = hex_end;
	}
	test_case = "document";
	CHECK(blocks > 0);
}

/* The example values are what the document says they are: a real key, digest and signature. */
static void check_values(const struct sample_values *v)
{
	uint8_t point[PROTO_POINT_LEN], sig[PROTO_SIG_RAW_LEN], der[PROTO_SIG_MAX];
	size_t der_len = 0;

	test_case = "example values";
	CHECK(p256_public_from_private(v->d, point) == 0 && memcmp(point, v->point, sizeof(point)) == 0);
	CHECK(p256_sign(v->d, v->digest, P256_NONCE_DETERMINISTIC, NULL, 0, sig) == 0 &&
	    memcmp(sig, v->raw, sizeof(sig)) == 0);
	CHECK(p256_verify(v->point, sizeof(v->point), v->digest, v->raw, 0) == 0);
	CHECK(p256_sig_to_der(v->raw, der, &der_len) == 0 && der_len == v->der_len &&
	    memcmp(der, v->der, der_len) == 0);
}

/* The hex of bytes, lowercase, into out (2 * n + 1 bytes). */
static void to_hex(const uint8_t *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* The document quotes the key id and lists every error code with its tag and closing rule. */
static void check_text(const char *doc, const struct sample_values *v)
{
	char hex[2 * PROTO_KEY_ID_LEN + 1], row[96];

	test_case = "document text";
	to_hex(v->key_id, sizeof(v->key_id), hex);
	CHECK(strstr(doc, hex) != NULL);
	for (uint16_t code = 1; code <= PROTO_E_MAX; code++) {
		const char *line, *end;
		const char *closes = proto_error_closes(code) ? "| yes |" : "| no |";

		snprintf(row, sizeof(row), "\n| %u | %s |", code, proto_error_tag(code));
		line = strstr(doc, row);
		test_case = proto_error_tag(code);
		CHECK(line != NULL);
		if (line == NULL)
			continue;
		end = strchr(line + 1, '\n');
		line = strstr(line, closes);
		CHECK(line != NULL && (end == NULL || line < end));
	}
}

int main(int argc, char **argv)
{
	static struct sample_values values;
	static struct sample samples[MAX_SAMPLES];
	unsigned seen[MAX_SAMPLES] = { 0 };
	size_t n = 0, doc_len = 0;
	char *doc;

	if (argc != 2) {
		fprintf(stderr, "usage: %s docs/protocol.md\n", argv[0]);
		return 2;
	}
	if ((doc = read_doc(argv[1], &doc_len)) == NULL)
		return 1;
	test_case = "samples";
	CHECK(sample_values_init(&values) == 0);
	CHECK(samples_init(&values, samples, MAX_SAMPLES, &n) == 0);
	if (test_failures == 0) {
		check_values(&values);
		check_blocks(doc, samples, n, seen);
		check_text(doc, &values);
		for (size_t i = 0; i < n; i++) {
			test_case = samples[i].name;
			CHECK(seen[i] == (samples[i].in_doc ? 1u : 0u));
		}
	}
	free(doc);
	if (test_failures != 0)
		fprintf(stderr, "%d check(s) failed\n", test_failures);
	return test_failures != 0;
}
