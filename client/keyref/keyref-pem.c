/* SPDX-License-Identifier: ISC */
/*
 * The key-reference block in a PEM text (p256sign.h): found among other blocks, its body
 * base64-decoded, the DER left to p256sign_keyref_decode. The text is untrusted: it is read
 * through the cursor API by lib/'s PEM reader.
 */
#include "base64.h"
#include "cursor.h"
#include "p256sign.h"
#include "pem.h"

int p256sign_keyref_find_pem(const char *text, size_t len, uint8_t *der, size_t cap,
	size_t *der_len)
{
	struct pem_block block;
	struct cursor c;

	if (text == NULL || der == NULL || der_len == NULL)
		return P256SIGN_E_INVALID;
	cursor_init(&c, text, len);
	do {
		if (pem_next(&c, &block) != 0)
			return P256SIGN_E_KEYREF_ABSENT;
	} while (!pem_label_is(&block, P256SIGN_KEYREF_PEM_LABEL));
	/* Four base64 characters carry three bytes: a longer body cannot fit, whatever it holds. */
	if (block.encrypted || block.body_len / 4 > cap ||
	    base64_decode(block.body, block.body_len, der, cap, der_len) != 0)
		return P256SIGN_E_KEYREF_PEM;
	return 0;
}
