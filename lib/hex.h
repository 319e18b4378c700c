/* SPDX-License-Identifier: ISC */
#ifndef P256_HEX_H
#define P256_HEX_H

#include <stddef.h>
#include <stdint.h>

/* Hex text for public bytes (key ids, points, signatures, test vectors): variable time. */

/* Writes n bytes as 2n lowercase hex digits and a NUL to out (2n + 1 bytes). */
void hex_encode(const uint8_t *in, size_t n, char *out);

/*
 * Decodes len characters of hex (either case) into out (cap bytes); *out_len gets the byte count.
 * P256_ERR_HEX for a character that is not a hex digit or an odd count, P256_ERR_BUFFER when the
 * bytes do not fit.
 */
int hex_decode(const char *hex, size_t len, uint8_t *out, size_t cap, size_t *out_len);

#endif
