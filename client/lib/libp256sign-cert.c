/* SPDX-License-Identifier: ISC */
/*
 * The fields of a certificate that PKCS#11 shows beside its DER (p256sign_cert_fields): a walk
 * over the first elements of tbsCertificate through lib/cursor.h, the library's one reader of
 * untrusted bytes. Nothing is decoded past the subject, and nothing is checked: the daemon
 * checked the certificate against its key when it loaded it; a client only lays it out.
 */
#include <string.h>

#include "cursor.h"
#include "libp256sign-private.h"

#define TAG_INTEGER 0x02
#define TAG_SEQUENCE 0x30
#define TAG_VERSION 0xa0	/* [0] EXPLICIT, constructed */

/* The next element, of tag `tag`, as a whole (tag, length, contents): *p and *len. */
static int whole(struct cursor *c, uint8_t tag, const uint8_t **p, size_t *len)
{
	const uint8_t *start = cursor_position(c);
	struct cursor contents;

	if (cursor_get_der(c, tag, &contents) != 0)
		return -1;
	*p = start;
	*len = (size_t)(cursor_position(c) - start);
	return 0;
}

/* Skips the next element of tag `tag`. */
static int skip(struct cursor *c, uint8_t tag)
{
	struct cursor contents;

	return cursor_get_der(c, tag, &contents) == 0 ? 0 : -1;
}

int p256sign_cert_fields(const uint8_t *der, size_t len, struct p256sign_cert_fields *f)
{
	struct cursor in, cert, tbs;
	uint8_t tag;

	if (f == NULL)
		return P256SIGN_E_INVALID;
	memset(f, 0, sizeof(*f));
	if (der == NULL)
		return P256SIGN_E_CERT_STRUCTURE;
	cursor_init(&in, der, len);
	if (cursor_get_der(&in, TAG_SEQUENCE, &cert) != 0 || cursor_end(&in) != 0 ||
	    cursor_get_der(&cert, TAG_SEQUENCE, &tbs) != 0 || cursor_peek_u8(&tbs, &tag) != 0 ||
	    (tag == TAG_VERSION && skip(&tbs, TAG_VERSION) != 0) ||
	    whole(&tbs, TAG_INTEGER, &f->serial, &f->serial_len) != 0 ||
	    f->serial_len < 3 ||			/* an INTEGER has one content byte at least */
	    skip(&tbs, TAG_SEQUENCE) != 0 ||		/* signature */
	    whole(&tbs, TAG_SEQUENCE, &f->issuer, &f->issuer_len) != 0 ||
	    skip(&tbs, TAG_SEQUENCE) != 0 ||		/* validity */
	    whole(&tbs, TAG_SEQUENCE, &f->subject, &f->subject_len) != 0) {
		memset(f, 0, sizeof(*f));
		return P256SIGN_E_CERT_STRUCTURE;
	}
	return 0;
}
