/* SPDX-License-Identifier: ISC */
/*
 * Constant-time base64 decoding. A table lookup indexed by the character (as in most decoders)
 * leaks the key through the cache: Sieck et al., "Util::Lookup: Exploiting key decoding in
 * cryptographic libraries", CCS 2021, recovered RSA keys from SGX enclaves that way. Here every
 * character goes through the same arithmetic; only its class is declassified.
 */
#include "base64.h"

#include <string.h>

#include "ct.h"
#include "errors.h"

enum b64_class {
	B64_DIGIT = 1,
	B64_PAD = 2,
	B64_SPACE = 4,
};

/* All ones when lo <= c <= hi, else 0 (c, lo, hi below 256): the sign bits of c - lo and hi - c. */
static uint32_t in_range(uint32_t c, uint32_t lo, uint32_t hi)
{
	return ((((c - lo) | (hi - c)) >> 31) & 1) - 1;
}

/* The class of c (public) and, for a digit, its 6-bit value in *v (secret); no branch on c. */
static uint32_t classify(uint8_t ch, uint32_t *v)
{
	uint32_t c = ch;
	uint32_t upper = in_range(c, 'A', 'Z'), lower = in_range(c, 'a', 'z');
	uint32_t digit = in_range(c, '0', '9'), plus = in_range(c, '+', '+');
	uint32_t slash = in_range(c, '/', '/');
	uint32_t space = in_range(c, ' ', ' ') | in_range(c, '\t', '\t') | in_range(c, '\r', '\r') |
		in_range(c, '\n', '\n');
	uint32_t cls;

	*v = (upper & (c - 'A')) | (lower & (c - 'a' + 26)) | (digit & (c - '0' + 52)) |
		(plus & 62) | (slash & 63);
	cls = ((upper | lower | digit | plus | slash) & B64_DIGIT) |
		(in_range(c, '=', '=') & B64_PAD) | (space & B64_SPACE);
	ct_declassify(&cls, sizeof(cls)); /* the layout of the text is public */
	return cls;
}

/* Writes the top `bytes` bytes of the 24-bit group acc. */
static int put_group(uint32_t acc, size_t bytes, uint8_t *out, size_t out_cap, size_t *pos)
{
	if (out_cap - *pos < bytes)
		return P256_ERR_BUFFER;
	for (size_t i = 0; i < bytes; i++)
		out[(*pos)++] = (uint8_t)(acc >> (16 - 8 * i));
	return 0;
}

/* The last group when it ends in pads '=': its digits were shifted in; leftover bits must be 0. */
static int put_padded_group(uint32_t acc, size_t pads, uint8_t *out, size_t out_cap, size_t *pos)
{
	uint32_t leftover;

	if (pads == 0)
		return 0;
	acc <<= 6 * pads;
	leftover = acc & (pads == 1 ? 0x3u << 6 : 0xfu << 12);
	ct_declassify(&leftover, sizeof(leftover)); /* always 0 in a canonical file */
	if (leftover != 0)
		return P256_ERR_BASE64_PADDING;
	return put_group(acc, 3 - pads, out, out_cap, pos);
}

int base64_decode(const char *text, size_t text_len, uint8_t *out, size_t out_cap, size_t *out_len)
{
	uint32_t acc = 0, v = 0, cls;
	size_t count = 0, pads = 0, pos = 0;
	int r = P256_ERR_INTERNAL;

	*out_len = 0;
	for (size_t i = 0; i < text_len; i++) {
		cls = classify((uint8_t)text[i], &v);
		if (cls == B64_SPACE)
			continue;
		if (cls == B64_PAD) {
			r = P256_ERR_BASE64_PADDING;
			if (++pads > 2 || count % 4 < 2)
				goto out;
			count++;
			continue;
		}
		if (cls != B64_DIGIT) {
			r = P256_ERR_BASE64;
			goto out;
		}
		if (pads > 0) {
			r = P256_ERR_BASE64_PADDING; /* '=' inside the text */
			goto out;
		}
		acc = (acc << 6) | v;
		if (++count % 4 == 0 && (r = put_group(acc, 3, out, out_cap, &pos)) != 0)
			goto out;
	}
	r = P256_ERR_BASE64_TRUNCATED;
	if (count % 4 != 0)
		goto out;
	if ((r = put_padded_group(acc, pads, out, out_cap, &pos)) != 0)
		goto out;
	*out_len = pos;
	r = 0;
out:
	if (r != 0 && out_cap > 0)
		explicit_bzero(out, out_cap);
	explicit_bzero(&acc, sizeof(acc));
	explicit_bzero(&v, sizeof(v));
	return r;
}
