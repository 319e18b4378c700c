/* SPDX-License-Identifier: ISC */
/* Hex text for public bytes, variable time (hex.h). */
#include "hex.h"

#include "errors.h"

void hex_encode(const uint8_t *in, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 0xf];
	}
	out[2 * n] = '\0';
}

static int nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int hex_decode(const char *hex, size_t len, uint8_t *out, size_t cap, size_t *out_len)
{
	int hi, lo;

	if (len % 2 != 0)
		return P256_ERR_HEX;
	if (len / 2 > cap)
		return P256_ERR_BUFFER;
	for (size_t i = 0; i < len / 2; i++) {
		if ((hi = nibble(hex[2 * i])) < 0 || (lo = nibble(hex[2 * i + 1])) < 0)
			return P256_ERR_HEX;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	*out_len = len / 2;
	return 0;
}
