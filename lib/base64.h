/* SPDX-License-Identifier: ISC */
#ifndef P256_BASE64_H
#define P256_BASE64_H

#include <stddef.h>
#include <stdint.h>

/*
 * Base64 (RFC 4648 section 4) decoding for key files, in constant time in the decoded bytes: a
 * character's 6 bits come from range masks computed alike for every character, never from a
 * branch or a table index on its value. Only the character's class (base64 digit, '=',
 * whitespace, other) is made public and may be branched on: that is the file's layout.
 */

/* The longest decoding of text_len characters. */
#define BASE64_DECODED_MAX(text_len) ((text_len) / 4 * 3 + 3)

/*
 * Decodes text (text_len bytes, not NUL-terminated) into out (out_cap bytes); *out_len gets the
 * decoded length. Spaces, tabs, CR and LF between characters are skipped (PEM line breaks). The
 * digits must be a multiple of 4 counting '=', which may only end the text (at most two, and the
 * bits they leave over must be zero). Errors: P256_ERR_BASE64 (a character outside the alphabet),
 * P256_ERR_BASE64_PADDING ('=' misplaced, too many, or non-zero left-over bits),
 * P256_ERR_BASE64_TRUNCATED (not a multiple of 4), P256_ERR_BUFFER (out too small). On error out
 * is wiped and *out_len is 0. The caller owns and wipes out.
 */
int base64_decode(const char *text, size_t text_len, uint8_t *out, size_t out_cap, size_t *out_len);

#endif
