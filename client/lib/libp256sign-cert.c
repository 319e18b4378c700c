/* SPDX-License-Identifier: ISC */
/*
 * The fields of a certificate that PKCS#11 shows beside its DER (p256sign_cert_fields): a walk
 * over the first elements of tbsCertificate through lib/cursor.h, the library's one reader of
 * untrusted bytes. Nothing is decoded past the subject, and nothing is checked: the daemon
 * checked the certificate against its key when it loaded it; a client only lays it out. A
 * validity date in another form than RFC 5280's is left empty rather than the certificate
 * refused: PKCS#11 allows an empty date, and the certificate's other fields are still right.
 */
#include <string.h>

#include "cursor.h"
#include "libp256sign-private.h"

#define TAG_INTEGER 0x02
#define TAG_UTC_TIME 0x17
#define TAG_GENERALIZED_TIME 0x18
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

static int two_digits(const uint8_t *p)
{
	return p[0] >= '0' && p[0] <= '9' && p[1] >= '0' && p[1] <= '9' ?
	    (p[0] - '0') * 10 + (p[1] - '0') : -1;
}

/* The next Time as "YYYYMMDD" in date, left zero when not in RFC 5280's forms (the header). */
static int validity_date(struct cursor *c, char date[8])
{
	struct cursor t;
	const uint8_t *p;
	uint8_t tag;
	size_t digits;
	int month, day;

	if (cursor_peek_u8(c, &tag) != 0 || (tag != TAG_UTC_TIME && tag != TAG_GENERALIZED_TIME) ||
	    cursor_get_der(c, tag, &t) != 0)
		return -1;
	digits = tag == TAG_UTC_TIME ? 12 : 14;
	if (cursor_left(&t) != digits + 1 || cursor_get_bytes(&t, &p, digits + 1) != 0 ||
	    p[digits] != 'Z')
		return 0;
	for (size_t i = 0; i < digits; i += 2)
		if (two_digits(p + i) < 0)
			return 0;
	month = two_digits(p + digits - 10);	/* ...MMDDHHMMSS */
	day = two_digits(p + digits - 8);
	if (month < 1 || month > 12 || day < 1 || day > 31)
		return 0;
	if (tag == TAG_UTC_TIME) {
		memcpy(date, two_digits(p) < 50 ? "20" : "19", 2);
		memcpy(date + 2, p, 6);
	} else {
		memcpy(date, p, 8);
	}
	return 0;
}

int p256sign_cert_fields(const uint8_t *der, size_t len, struct p256sign_cert_fields *f)
{
	struct cursor in, cert, tbs, validity;
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
	    cursor_get_der(&tbs, TAG_SEQUENCE, &validity) != 0 ||
	    validity_date(&validity, f->not_before) != 0 ||
	    validity_date(&validity, f->not_after) != 0 || cursor_end(&validity) != 0 ||
	    whole(&tbs, TAG_SEQUENCE, &f->subject, &f->subject_len) != 0) {
		memset(f, 0, sizeof(*f));
		return P256SIGN_E_CERT_STRUCTURE;
	}
	return 0;
}
