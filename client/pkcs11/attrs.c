/* SPDX-License-Identifier: ISC */
/*
 * Objects' attributes, and C_GetAttributeValue's and C_FindObjects' rules over them (PKCS#11
 * 2.40 sections 5.7 and 4.1). No I/O and no state: the fuzz harness drives these directly.
 */
#include <string.h>

#include "p11.h"

const CK_MECHANISM_TYPE p11_mechanisms[] = { CKM_ECDSA, CKM_ECDSA_SHA256 };
const size_t p11_nmechanisms = sizeof(p11_mechanisms) / sizeof(p11_mechanisms[0]);

static const CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
static const CK_OBJECT_CLASS class_private = CKO_PRIVATE_KEY, class_public = CKO_PUBLIC_KEY,
	class_cert = CKO_CERTIFICATE;
static const CK_KEY_TYPE key_type = CKK_EC;
static const CK_CERTIFICATE_TYPE cert_type = CKC_X_509;
static const CK_ULONG cert_category = P11_CATEGORY_TOKEN_USER;
static const CK_ULONG java_domain = 0;	/* CK_SECURITY_DOMAIN_UNSPECIFIED */
static const CK_MECHANISM_TYPE keygen = CK_UNAVAILABLE_INFORMATION;
/* DER OBJECT IDENTIFIER prime256v1 (1.2.840.10045.3.1.7), the namedCurve form of EC params. */
static const uint8_t ec_params[] = { 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07 };
/* SubjectPublicKeyInfo of a P-256 key up to the point (RFC 5480). */
static const uint8_t spki_prefix[] = {
	0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08,
	0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
};

static void add(struct p11_attrs *out, CK_ATTRIBUTE_TYPE type, const void *value, CK_ULONG len)
{
	if (out->n < P11_MAX_ATTRS)
		out->a[out->n++] = (struct p11_attr){ type, value, len, 0 };
}

#define ADD_BOOL(out, type, v) add(out, type, (v) ? &yes : &no, sizeof(CK_BBOOL))

/*
 * A certificate object (PKCS#11 2.40 sections 4.6 and 4.6.3): the DER the daemon serves and the
 * fields read from it; it matches its key objects by CKA_ID and CKA_LABEL, as programs pair a
 * certificate with its private key. Not trusted as an anchor: it is the token's own.
 */
static void cert_attrs(const struct p11_key *k, struct p11_attrs *out)
{
	const struct p256sign_cert_fields *f = &k->fields;

	add(out, CKA_CERTIFICATE_TYPE, &cert_type, sizeof(cert_type));
	add(out, CKA_CERTIFICATE_CATEGORY, &cert_category, sizeof(cert_category));
	ADD_BOOL(out, CKA_TRUSTED, 0);
	/* The validity as CK_DATEs; empty when the certificate's Time was in no RFC 5280 form. */
	add(out, CKA_START_DATE, f->not_before, f->not_before[0] != 0 ? sizeof(CK_DATE) : 0);
	add(out, CKA_END_DATE, f->not_after, f->not_after[0] != 0 ? sizeof(CK_DATE) : 0);
	add(out, CKA_SUBJECT, f->subject, (CK_ULONG)f->subject_len);
	add(out, CKA_ISSUER, f->issuer, (CK_ULONG)f->issuer_len);
	add(out, CKA_SERIAL_NUMBER, f->serial, (CK_ULONG)f->serial_len);
	add(out, CKA_VALUE, k->cert, (CK_ULONG)k->cert_len);
	add(out, CKA_URL, "", 0);
	add(out, CKA_HASH_OF_SUBJECT_PUBLIC_KEY, "", 0);
	add(out, CKA_HASH_OF_ISSUER_PUBLIC_KEY, "", 0);
	add(out, CKA_JAVA_MIDP_SECURITY_DOMAIN, &java_domain, sizeof(java_domain));
	add(out, CKA_PUBLIC_KEY_INFO, out->spki, sizeof(out->spki));
}

void p11_object_attrs(const struct p11_key *k, int kind, struct p11_attrs *out)
{
	int private = kind == P11_PRIVATE;

	memset(out, 0, sizeof(*out));
	out->ec_point[0] = 0x04;	/* OCTET STRING, 65 bytes */
	out->ec_point[1] = P256SIGN_POINT_LEN;
	memcpy(out->ec_point + 2, k->point, P256SIGN_POINT_LEN);
	memcpy(out->spki, spki_prefix, sizeof(spki_prefix));
	memcpy(out->spki + sizeof(spki_prefix), k->point, P256SIGN_POINT_LEN);
	out->label_len = strnlen(k->name, sizeof(k->name));

	add(out, CKA_CLASS, kind == P11_CERT ? &class_cert : private ? &class_private :
		&class_public, sizeof(CK_OBJECT_CLASS));
	ADD_BOOL(out, CKA_TOKEN, 1);
	ADD_BOOL(out, CKA_PRIVATE, 0);	/* visible without a login: none is required */
	ADD_BOOL(out, CKA_MODIFIABLE, 0);
	ADD_BOOL(out, CKA_COPYABLE, 0);
	ADD_BOOL(out, CKA_DESTROYABLE, 0);
	add(out, CKA_LABEL, k->name, out->label_len);
	add(out, CKA_ID, k->id, P256SIGN_KEY_ID_LEN);
	if (kind == P11_CERT) {
		cert_attrs(k, out);
		return;
	}
	add(out, CKA_KEY_TYPE, &key_type, sizeof(key_type));
	add(out, CKA_START_DATE, "", 0);
	add(out, CKA_END_DATE, "", 0);
	/* The certificate's subject when there is one (PKCS#11 2.40 section 4.8: "DER-encoding of
	 * the key subject name"), as NSS and Java pair keys and certificates. */
	add(out, CKA_SUBJECT, k->cert != NULL ? k->fields.subject : (const uint8_t *)"",
		k->cert != NULL ? (CK_ULONG)k->fields.subject_len : 0);
	ADD_BOOL(out, CKA_DERIVE, 0);
	ADD_BOOL(out, CKA_LOCAL, 0);	/* not known: the daemon's operator made the key */
	add(out, CKA_KEY_GEN_MECHANISM, &keygen, sizeof(keygen));
	add(out, CKA_ALLOWED_MECHANISMS, p11_mechanisms,
		(CK_ULONG)(p11_nmechanisms * sizeof(p11_mechanisms[0])));
	add(out, CKA_EC_PARAMS, ec_params, sizeof(ec_params));
	add(out, CKA_PUBLIC_KEY_INFO, out->spki, sizeof(out->spki));
	if (private) {
		ADD_BOOL(out, CKA_SENSITIVE, 1);
		ADD_BOOL(out, CKA_ALWAYS_SENSITIVE, 1);
		ADD_BOOL(out, CKA_EXTRACTABLE, 0);
		ADD_BOOL(out, CKA_NEVER_EXTRACTABLE, 1);
		ADD_BOOL(out, CKA_SIGN, k->purpose != P11_AUDIT && k->purpose != P11_OTHER);
		ADD_BOOL(out, CKA_SIGN_RECOVER, 0);
		ADD_BOOL(out, CKA_DECRYPT, 0);
		ADD_BOOL(out, CKA_UNWRAP, 0);
		ADD_BOOL(out, CKA_ALWAYS_AUTHENTICATE, 0);
		ADD_BOOL(out, CKA_WRAP_WITH_TRUSTED, 0);
		add(out, CKA_VALUE, NULL, 0);
		out->a[out->n - 1].sensitive = 1;
	} else {
		ADD_BOOL(out, CKA_VERIFY, 1);
		ADD_BOOL(out, CKA_VERIFY_RECOVER, 0);
		ADD_BOOL(out, CKA_ENCRYPT, 0);
		ADD_BOOL(out, CKA_WRAP, 0);
		ADD_BOOL(out, CKA_TRUSTED, 0);
		add(out, CKA_EC_POINT, out->ec_point, sizeof(out->ec_point));
	}
}

static const struct p11_attr *find(const struct p11_attrs *attrs, CK_ATTRIBUTE_TYPE type)
{
	size_t i;

	for (i = 0; i < attrs->n; i++)
		if (attrs->a[i].type == type)
			return &attrs->a[i];
	return NULL;
}

/*
 * PKCS#11 2.40 section 5.7, C_GetAttributeValue: every entry is answered; a sensitive one and
 * an unknown type get CK_UNAVAILABLE_INFORMATION, NULL pValue gets the size, a short buffer gets
 * CK_UNAVAILABLE_INFORMATION too. The return value is one of the errors met, else CKR_OK.
 */
CK_RV p11_get_attributes(const struct p11_attrs *attrs, CK_ATTRIBUTE *tmpl, CK_ULONG count)
{
	const struct p11_attr *a;
	CK_RV rv = CKR_OK;
	CK_ULONG i;

	if (tmpl == NULL && count > 0)
		return CKR_ARGUMENTS_BAD;
	for (i = 0; i < count; i++) {
		if ((a = find(attrs, tmpl[i].type)) == NULL) {
			tmpl[i].ulValueLen = CK_UNAVAILABLE_INFORMATION;
			rv = CKR_ATTRIBUTE_TYPE_INVALID;
		} else if (a->sensitive) {
			tmpl[i].ulValueLen = CK_UNAVAILABLE_INFORMATION;
			rv = CKR_ATTRIBUTE_SENSITIVE;
		} else if (tmpl[i].pValue == NULL) {
			tmpl[i].ulValueLen = a->len;
		} else if (tmpl[i].ulValueLen < a->len) {
			tmpl[i].ulValueLen = CK_UNAVAILABLE_INFORMATION;
			rv = CKR_BUFFER_TOO_SMALL;
		} else {
			if (a->len > 0)
				memcpy(tmpl[i].pValue, a->value, a->len);
			tmpl[i].ulValueLen = a->len;
		}
	}
	return rv;
}

/* An object matches a template when it has every attribute with exactly the value given. A
 * sensitive attribute never matches: its value is not known here. */
int p11_matches(const struct p11_attrs *attrs, const CK_ATTRIBUTE *tmpl, CK_ULONG count)
{
	const struct p11_attr *a;
	CK_ULONG i;

	for (i = 0; i < count; i++) {
		a = find(attrs, tmpl[i].type);
		if (a == NULL || a->sensitive || a->len != tmpl[i].ulValueLen)
			return 0;
		if (a->len > 0 && (tmpl[i].pValue == NULL ||
		    memcmp(a->value, tmpl[i].pValue, a->len) != 0))
			return 0;
	}
	return 1;
}
