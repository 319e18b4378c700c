/* SPDX-License-Identifier: ISC */
/* The layout of PEM blocks: labels, headers and base64 lines (pem.h). */
#include "pem.h"

#include <string.h>

#include "ct.h"
#include "errors.h"

#define BEGIN "-----BEGIN "
#define END "-----END "
#define DASHES "-----"
#define ENCRYPTED_HEADER "Proc-Type: 4,ENCRYPTED"

/*
 * 1 when c == want. Computed without a branch on c and then declassified: where the line breaks
 * and dashes are is the file's layout, public even among a key's base64 characters (memchr and
 * memcmp would branch on the characters themselves).
 */
static int char_is(char c, char want)
{
	uint32_t x = (uint8_t)c ^ (uint8_t)want;
	uint32_t eq = ((x - 1) >> 31) & 1;

	ct_declassify(&eq, sizeof(eq));
	return (int)eq;
}

/* One line of text without its LF or CRLF; 0, or P256_ERR_TRUNCATED at the end of the text. */
static int next_line(struct cursor *text, const char **line, size_t *len)
{
	const char *s = (const char *)cursor_position(text);
	const uint8_t *p;
	size_t n = 0, left = cursor_left(text);
	int r;

	if (left == 0)
		return P256_ERR_TRUNCATED;
	while (n < left && !char_is(s[n], '\n'))
		n++;
	if ((r = cursor_get_bytes(text, &p, n < left ? n + 1 : n)) != 0)
		return r;
	if (n > 0 && char_is(s[n - 1], '\r'))
		n--;
	*line = s;
	*len = n;
	return 0;
}

/* Compares the rest only for a line that opens with a dash: base64 lines never do. */
static int starts_with(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && char_is(s[0], prefix[0]) && memcmp(s, prefix, n) == 0;
}

/* If line is "<marker>LABEL-----", points *label at LABEL and returns 1; else 0. */
static int boundary(const char *line, size_t len, const char *marker, const char **label,
	size_t *label_len)
{
	size_t m = strlen(marker), d = strlen(DASHES);

	if (!starts_with(line, len, marker) || len < m + d ||
	    memcmp(line + len - d, DASHES, d) != 0)
		return 0;
	*label = line + m;
	*label_len = len - m - d;
	return 1;
}

int pem_next(struct cursor *text, struct pem_block *block)
{
	struct cursor c = *text;
	const char *line, *end_label;
	size_t len, end_len;

	memset(block, 0, sizeof(*block));
	do {
		if (next_line(&c, &line, &len) != 0)
			return P256_ERR_KEY_EMPTY;
	} while (!boundary(line, len, BEGIN, &block->label, &block->label_len));
	block->body = (const char *)cursor_position(&c);
	for (;;) {
		if (next_line(&c, &line, &len) != 0)
			return P256_ERR_PEM_UNTERMINATED;
		/* The first body line encodes the DER header (public), or is an RFC 1421 header. */
		if (line == block->body)
			block->encrypted = starts_with(line, len, ENCRYPTED_HEADER);
		if (boundary(line, len, END, &end_label, &end_len))
			break;
		/* a line that opens like an END line but is not one still ends the block */
		if (starts_with(line, len, END))
			return P256_ERR_PEM_LABEL;
	}
	block->body_len = (size_t)(line - block->body);
	if (end_len != block->label_len || memcmp(end_label, block->label, end_len) != 0)
		return P256_ERR_PEM_LABEL;
	*text = c;
	return 0;
}

int pem_label_is(const struct pem_block *block, const char *label)
{
	size_t n = strlen(label);

	return block->label_len == n && memcmp(block->label, label, n) == 0;
}
