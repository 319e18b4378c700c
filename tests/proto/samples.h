/* SPDX-License-Identifier: ISC */
#ifndef P256_TEST_PROTO_SAMPLES_H
#define P256_TEST_PROTO_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

/*
 * One valid message of the protocol, described by its fields. The samples cover every request
 * and response type; those with in_doc set are the examples of docs/protocol.md section 10, under
 * the name of their `<!-- frame: NAME -->` marker. They use the RFC 6979 A.2.5 key, digest of
 * "sample" and signature.
 */
struct sample {
	const char *name;
	int in_doc;
	int is_request;
	struct proto_request req;
	struct proto_response resp;
};

/* The RFC 6979 A.2.5 values the samples are made of, in binary. */
struct sample_values {
	uint8_t d[32];			/* private key */
	uint8_t point[PROTO_POINT_LEN];
	uint8_t spki[PROTO_SPKI_LEN];	/* computed by p256_spki */
	uint8_t key_id[PROTO_KEY_ID_LEN]; /* computed by p256_key_id */
	uint8_t digest[PROTO_DIGEST_LEN]; /* SHA-256("sample"), computed */
	uint8_t raw[PROTO_SIG_RAW_LEN];	/* r || s */
	uint8_t der[PROTO_SIG_MAX];
	size_t der_len;
};

/* Fills the values; 0 or -1 if a computation failed. */
int sample_values_init(struct sample_values *v);

/*
 * Fills out[0 .. *n) with every sample (cap entries at most); the samples point into v, which
 * must outlive them. 0, or -1 if cap is too small.
 */
int samples_init(const struct sample_values *v, struct sample *out, size_t cap, size_t *n);

/*
 * Parses hex digits, skipping ASCII whitespace, into out (cap bytes). The byte count, or -1 for
 * an odd digit count, a character that is neither, or more than cap bytes.
 */
long hex_parse(const char *s, size_t s_len, uint8_t *out, size_t cap);

/* 1 when two requests (or responses) carry the same fields for their type. */
int request_equal(const struct proto_request *a, const struct proto_request *b);
int response_equal(const struct proto_response *a, const struct proto_response *b);

/* Encodes a sample (request or response) into buf: 0 or the encoder's error. */
int sample_encode(const struct sample *s, uint8_t *buf, size_t cap, size_t *len);

#endif
