/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer harness for the PKCS#11 module's handling of what callers and the daemon hand it
 * (client/pkcs11/): the first byte picks the target.
 * 0: C_GetAttributeValue's rules (p11_get_attributes) over a template of the input's attribute
 *    types and buffer sizes, on a key or certificate object built from the input (a certificate
 *    of the input's serial, issuer and subject bytes); every buffer is allocated at
 *    its exact size. Checked: no value is written past its buffer, an answered entry holds the
 *    object's value, an entry not answered says CK_UNAVAILABLE_INFORMATION, the return code is
 *    CKR_OK exactly when every entry was answered, and a template made of the answered values
 *    matches the object (p11_matches) while one with a value changed does not.
 * 1: LIST_KEYS's JSON (p11_parse_keys): accepted entries are well formed; read again into a
 *    table that holds the certificates its certificate_sha256 members name, those keys are
 *    taken from the table, not asked for (p11_cached_certs, p11_merge_keys).
 * 2: TLS handshake content recognition (p256sign_tls_parse, as the module calls it): what it accepts has the layout.
 * 3: the module's settings (p11_config_text): slots within their bounds.
 * 4: a certificate's fields (p256sign_cert_fields, as the module calls it on CERTIFICATE's
 *    DER): what it accepts is a DER SEQUENCE with nothing after it, and the serial, issuer and
 *    subject it finds are whole elements of their tags, in that order, inside the input.
 * Seeds: tests/fuzz/corpus/pkcs11.
 */
#include <stdlib.h>
#include <string.h>

#include "p11.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_TEMPLATE 64

/* The bytes of a cursor over the input; zeros past its end. */
struct input {
	const uint8_t *p;
	size_t left;
};

static uint8_t byte(struct input *in)
{
	uint8_t b = 0;

	if (in->left > 0) {
		b = *in->p++;
		in->left--;
	}
	return b;
}

static void bytes(struct input *in, uint8_t *out, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = byte(in);
}

static CK_ATTRIBUTE_TYPE attr_type(struct input *in)
{
	/* Mostly the attributes the module knows, sometimes any value. */
	static const CK_ATTRIBUTE_TYPE known[] = {
		CKA_CLASS, CKA_TOKEN, CKA_PRIVATE, CKA_LABEL, CKA_ID, CKA_KEY_TYPE, CKA_VALUE,
		CKA_EC_PARAMS, CKA_EC_POINT, CKA_SIGN, CKA_VERIFY, CKA_SENSITIVE, CKA_EXTRACTABLE,
		CKA_PUBLIC_KEY_INFO, CKA_ALLOWED_MECHANISMS, CKA_START_DATE, CKA_MODULUS,
		CKA_SUBJECT, CKA_ISSUER, CKA_SERIAL_NUMBER, CKA_CERTIFICATE_TYPE, CKA_TRUSTED,
		CKA_CERTIFICATE_CATEGORY,
	};
	uint8_t b = byte(in);
	CK_ATTRIBUTE_TYPE t;

	if (b < 200)
		return known[b % (sizeof(known) / sizeof(known[0]))];
	t = (CK_ATTRIBUTE_TYPE)byte(in) << 24 | (CK_ATTRIBUTE_TYPE)byte(in) << 16 |
		(CK_ATTRIBUTE_TYPE)byte(in) << 8 | byte(in);
	return t;
}

static const struct p11_attr *value_of(const struct p11_attrs *attrs, CK_ATTRIBUTE_TYPE type)
{
	size_t i;

	for (i = 0; i < attrs->n; i++)
		if (attrs->a[i].type == type)
			return &attrs->a[i];
	return NULL;
}

/* A DER element of tag and the n bytes of contents at in, into b (short lengths only). */
static size_t element(uint8_t *b, uint8_t tag, struct input *in, size_t n)
{
	b[0] = tag;
	b[1] = (uint8_t)n;
	bytes(in, b + 2, n);
	return 2 + n;
}

/* A validity Time from the input: a UTCTime or a GeneralizedTime of its length in RFC 5280,
 * whatever its bytes (a date in another form is left empty, not refused). */
static size_t validity_time(uint8_t *b, struct input *in)
{
	int utc = byte(in) & 1;

	return element(b, utc ? 0x17 : 0x18, in, utc ? 13 : 15);
}

/*
 * A certificate p256sign_cert_fields lays out: the input's serial (up to 20 bytes), issuer and
 * subject contents (up to 30), so that every length is of one byte, in tbsCertificate's order,
 * with an empty signature and a validity of two Times from the input.
 */
static void build_cert(struct input *in, struct p11_key *key)
{
	uint8_t der[2 + 2 + 22 + 2 + 32 + 36 + 32], *tbs = der + 4;
	size_t n = 0, v;

	n += element(tbs + n, 0x02, in, 1 + byte(in) % 20);
	tbs[n++] = 0x30;
	tbs[n++] = 0;
	n += element(tbs + n, 0x30, in, byte(in) % 31);
	v = n;
	n += 2;
	n += validity_time(tbs + n, in);
	n += validity_time(tbs + n, in);
	tbs[v] = 0x30;
	tbs[v + 1] = (uint8_t)(n - v - 2);
	n += element(tbs + n, 0x30, in, byte(in) % 31);
	der[0] = 0x30;
	der[1] = (uint8_t)(n + 2);
	der[2] = 0x30;
	der[3] = (uint8_t)n;
	if (p11_key_set_cert(key, der, n + 4) != 0)
		abort();	/* well formed: the reader must take it */
}

static void attributes(struct input *in)
{
	CK_ATTRIBUTE tmpl[MAX_TEMPLATE], match[MAX_TEMPLATE];
	struct p11_attrs attrs;
	const struct p11_attr *a;
	struct p11_key key;
	CK_ULONG n, i, nmatch = 0;
	int kind, all = 1;
	size_t name_len;
	CK_RV rv;

	memset(&key, 0, sizeof(key));
	kind = P11_PRIVATE + byte(in) % 3;
	key.purpose = byte(in) % 5;
	name_len = byte(in) % sizeof(key.name);
	bytes(in, (uint8_t *)key.name, name_len);
	key.name[name_len] = '\0';
	bytes(in, key.id, sizeof(key.id));
	bytes(in, key.point, sizeof(key.point));
	if (kind == P11_CERT || byte(in) & 1)
		build_cert(in, &key);	/* also a key's CKA_SUBJECT */
	p11_object_attrs(&key, kind, &attrs);

	n = byte(in) % MAX_TEMPLATE;
	for (i = 0; i < n; i++) {
		uint8_t flags = byte(in);

		tmpl[i].type = attr_type(in);
		tmpl[i].ulValueLen = byte(in);
		tmpl[i].pValue = flags & 1 ? NULL : malloc(tmpl[i].ulValueLen + 1);
		if (!(flags & 1) && tmpl[i].pValue == NULL)
			abort();
	}
	rv = p11_get_attributes(&attrs, tmpl, n);
	for (i = 0; i < n; i++) {
		a = value_of(&attrs, tmpl[i].type);
		if (tmpl[i].ulValueLen == CK_UNAVAILABLE_INFORMATION) {
			all = 0;
			if (a != NULL && !a->sensitive && (tmpl[i].pValue == NULL))
				abort();	/* a size query is always answered */
			continue;
		}
		if (a == NULL || a->sensitive || tmpl[i].ulValueLen != a->len)
			abort();
		if (tmpl[i].pValue != NULL) {
			if (memcmp(tmpl[i].pValue, a->value, a->len) != 0)
				abort();
			match[nmatch++] = tmpl[i];
		}
	}
	if ((rv == CKR_OK) != all)
		abort();
	if (!p11_matches(&attrs, match, nmatch))
		abort();
	if (nmatch > 0 && match[0].ulValueLen > 0) {
		((uint8_t *)match[0].pValue)[0] ^= 1;
		if (p11_matches(&attrs, match, nmatch))
			abort();
	}
	for (i = 0; i < n; i++)
		free(tmpl[i].pValue);
	p11_key_clear_cert(&key);
}

/* An accepted element at p of len bytes, inside [data, end), with tag and a one-byte or longer
 * length header that says len. */
static void whole_element(const uint8_t *p, size_t len, uint8_t tag, const uint8_t *data,
	const uint8_t *end)
{
	size_t hdr, n = 0, i;

	if (p < data || len < 2 || p + len > end || p[0] != tag)
		abort();
	if (p[1] < 0x80) {
		hdr = 2;
		n = p[1];
	} else {
		hdr = 2 + (p[1] & 0x7f);
		if (hdr > len || hdr > 6)
			abort();
		for (i = 2; i < hdr; i++)
			n = n << 8 | p[i];
	}
	if (hdr + n != len)
		abort();
}

/* A validity date as p256sign_cert_fields leaves it: eight zero bytes, or a YYYYMMDD date. */
static void date_ok(const char d[8])
{
	static const char zero[8];
	int month, day;

	if (memcmp(d, zero, sizeof(zero)) == 0)
		return;
	for (int i = 0; i < 8; i++)
		if (d[i] < '0' || d[i] > '9')
			abort();
	month = (d[4] - '0') * 10 + (d[5] - '0');
	day = (d[6] - '0') * 10 + (d[7] - '0');
	if (month < 1 || month > 12 || day < 1 || day > 31)
		abort();
}

static void cert_fields(const uint8_t *data, size_t size)
{
	struct p256sign_cert_fields f;
	const uint8_t *end = data + size;

	if (p256sign_cert_fields(data, size, &f) != 0) {
		if (f.serial != NULL || f.issuer != NULL || f.subject != NULL)
			abort();
		return;
	}
	if (size < 2 || data[0] != 0x30)
		abort();
	whole_element(data, size, 0x30, data, end);
	whole_element(f.serial, f.serial_len, 0x02, data, end);
	whole_element(f.issuer, f.issuer_len, 0x30, data, end);
	whole_element(f.subject, f.subject_len, 0x30, data, end);
	if (f.serial_len < 3 || f.serial + f.serial_len > f.issuer ||
	    f.issuer + f.issuer_len > f.subject)
		abort();
	date_ok(f.not_before);
	date_ok(f.not_after);
}

static int unique_ids(const struct p11_key *keys, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (memcmp(keys[i].id, keys[j].id, sizeof(keys[i].id)) == 0)
				return 0;
	return 1;
}

/*
 * The list read a second time into a slot's table that holds a certificate for each key the first
 * reading listed with certificate_sha256: every such key is marked as held (p11_cached_certs),
 * and merged, the table holds a certificate for a key only where one was marked, never more
 * certificates than marks (each held DER moved, not copied: the sanitizers see a double free or a
 * leak).
 */
static void list_again(const char *text, const struct p11_key *first, size_t nfirst)
{
	struct input cert = { (const uint8_t *)text, strlen(text) };
	struct p11_slot slot;
	struct p11_key *keys;
	size_t n, i, marked = 0, held = 0;

	memset(&slot, 0, sizeof(slot));
	if (p11_parse_keys(text, &keys, &n) != 0 || n != nfirst || p11_merge_keys(&slot, keys, n))
		abort();
	p11_keys_free(keys, n);
	for (i = 0; i < slot.nkeys; i++)
		if (slot.keys[i].has_cert_sha256)
			build_cert(&cert, &slot.keys[i]);
	if (p11_parse_keys(text, &keys, &n) != 0)
		abort();
	p11_cached_certs(&slot, keys, n);
	for (i = 0; i < n; i++) {
		/* Of two entries with one id, the table holds the later's certificate only. */
		if ((unique_ids(keys, n) ? keys[i].cert_cached != keys[i].has_cert_sha256 :
		     keys[i].cert_cached && !keys[i].has_cert_sha256) ||
		    keys[i].has_cert_sha256 != first[i].has_cert_sha256)
			abort();
		marked += keys[i].cert_cached;
	}
	if (p11_merge_keys(&slot, keys, n) != 0)
		abort();
	for (i = 0; i < slot.nkeys; i++)
		held += slot.keys[i].cert != NULL;
	if (held > marked)
		abort();
	p11_keys_free(keys, n);
	p11_keys_free(slot.keys, slot.nkeys);
}

static void key_list(const uint8_t *data, size_t size)
{
	struct p11_key *keys;
	char *text = malloc(size + 1);
	size_t n, i;

	if (text == NULL)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	if (p11_parse_keys(text, &keys, &n) == 0) {
		for (i = 0; i < n; i++)
			if (!keys[i].present || keys[i].point[0] != 0x04 || keys[i].name[0] == '\0' ||
			    strnlen(keys[i].name, sizeof(keys[i].name)) == sizeof(keys[i].name) ||
			    keys[i].cert != NULL || (keys[i].has_cert_sha256 && !keys[i].has_cert))
				abort();
		list_again(text, keys, n);
		p11_keys_free(keys, n);
	} else if (keys != NULL || n != 0) {
		abort();
	}
	free(text);
}

static void tls_content(const uint8_t *data, size_t size)
{
	struct p256sign_tls tls;
	const uint8_t *end = data + size;

	if (p256sign_tls_parse(data, size, &tls) != 0)
		return;
	if (tls.kind == P256SIGN_TLS13) {
		if ((tls.hash_len != 32 && tls.hash_len != 48 && tls.hash_len != 64) ||
		    tls.hash + tls.hash_len != end || data[0] != 0x20)
			abort();
	} else if (tls.kind == P256SIGN_TLS12) {
		if (tls.client_random != data || tls.server_random != data + 32 ||
		    tls.params + tls.params_len != end || tls.params[0] != 3 ||
		    tls.params_len != 4u + tls.params[3] || tls.params_len > 137)
			abort();
	} else {
		abort();
	}
}

static void config(const uint8_t *data, size_t size)
{
	struct p11_module *m = calloc(1, sizeof(*m));
	size_t i;

	if (m == NULL)
		abort();
	(void)p11_config_text(m, (const char *)data, size);
	if (m->nslots > P11_MAX_SLOTS)
		abort();
	for (i = 0; i < m->nslots; i++) {
		if (strnlen(m->slots[i].socket, P11_SOCKET_MAX) == P11_SOCKET_MAX)
			abort();
		pthread_mutex_destroy(&m->slots[i].handle_lock);
	}
	free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data + 1, size > 0 ? size - 1 : 0 };

	if (size == 0)
		return 0;
	switch (data[0] % 5) {
	case 0:
		attributes(&in);
		break;
	case 1:
		key_list(data + 1, size - 1);
		break;
	case 2:
		tls_content(data + 1, size - 1);
		break;
	case 3:
		config(data + 1, size - 1);
		break;
	default:
		cert_fields(data + 1, size - 1);
		break;
	}
	return 0;
}
