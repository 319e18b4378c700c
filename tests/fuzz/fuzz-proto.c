/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer harness for the wire codec. The input is a frame as it arrives on the socket: a 4-byte
 * length prefix, then the bytes after it. Properties (a violation aborts):
 * - proto_frame_length accepts exactly the lengths 8 .. 65536, and refuses with the two
 *   documented codes otherwise;
 * - the decoders return 0 or a wire error code, never crash or over-read;
 * - every frame a decoder accepts (request or response, every type) encodes back to the
 *   identical bytes: the encoding is canonical, so the decoded fields are all the frame says.
 */
#include <stdlib.h>
#include <string.h>

#include "proto.h"

#define FRAME_BUF (PROTO_LEN_PREFIX + PROTO_FRAME_MAX)

static void require(int cond)
{
	if (!cond)
		abort();
}

static void check_prefix(const uint8_t *data)
{
	uint32_t v = (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 | (uint32_t)data[2] << 8 |
	    data[3];
	uint32_t len = 0;
	int r = proto_frame_length(data, &len);

	if (v > PROTO_FRAME_MAX)
		require(r == -PROTO_E_FRAME_TOO_LARGE);
	else if (v < PROTO_HEADER_LEN)
		require(r == -PROTO_E_BAD_FRAME);
	else
		require(r == 0 && len == v);
}

/* out (out_len bytes, prefix included) is the frame body (len bytes) behind a correct prefix. */
static void require_same(const uint8_t *out, size_t out_len, const uint8_t *body, size_t len)
{
	uint8_t prefix[PROTO_LEN_PREFIX];
	uint32_t n = 0;

	memcpy(prefix, out, sizeof(prefix));
	require(out_len == len + PROTO_LEN_PREFIX);
	require(proto_frame_length(prefix, &n) == 0 && n == len);
	require(memcmp(out + PROTO_LEN_PREFIX, body, len) == 0);
}

static void require_code(int r)
{
	require(r == 0 || (r < 0 && r >= -PROTO_E_MAX));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[FRAME_BUF];
	const uint8_t *body = data + PROTO_LEN_PREFIX;
	struct proto_request req;
	struct proto_response resp;
	size_t len, out_len = 0;
	int r;

	if (size < PROTO_LEN_PREFIX)
		return 0;
	check_prefix(data);
	len = size - PROTO_LEN_PREFIX;

	r = proto_decode_request(body, len, &req);
	require_code(r);
	if (r == 0) {
		require(proto_encode_request(&req, out, sizeof(out), &out_len) == 0);
		require_same(out, out_len, body, len);
	}
	r = proto_decode_response(body, len, &resp);
	require_code(r);
	if (r == 0) {
		require(proto_encode_response(&resp, out, sizeof(out), &out_len) == 0);
		require_same(out, out_len, body, len);
	}
	return 0;
}
