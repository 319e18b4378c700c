/* SPDX-License-Identifier: ISC */
#ifndef P256_PEM_H
#define P256_PEM_H

#include <stddef.h>

#include "cursor.h"

/*
 * PEM blocks (RFC 7468 textual encoding, plus the RFC 1421 headers that traditional encrypted
 * keys carry): "-----BEGIN LABEL-----", base64 lines, "-----END LABEL-----". Lines end in LF or
 * CRLF. Text outside blocks is skipped. Only the layout is read here; base64.h decodes bodies.
 */

struct pem_block {
	const char *label;	/* points into the text; not NUL-terminated */
	size_t label_len;
	const char *body;	/* the lines between BEGIN and END, headers included */
	size_t body_len;
	int encrypted;		/* a "Proc-Type: 4,ENCRYPTED" header opens the body */
};

/*
 * Reads the next block from text (a cursor over the file) into *block, which points into the
 * text, and advances past its END line. P256_ERR_KEY_EMPTY when no BEGIN line is left,
 * P256_ERR_PEM_UNTERMINATED when a BEGIN line has no END line, P256_ERR_PEM_LABEL when the END
 * label differs from the BEGIN label.
 */
int pem_next(struct cursor *text, struct pem_block *block);

/* 1 when the block's label is exactly `label` (a NUL-terminated string), else 0. */
int pem_label_is(const struct pem_block *block, const char *label);

#endif
