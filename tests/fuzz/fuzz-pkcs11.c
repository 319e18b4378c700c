/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer harness for the PKCS#11 module's handling of what callers and the daemon hand it
 * (client/pkcs11/): the first byte picks the target.
 * 0: C_GetAttributeValue's rules (p11_get_attributes) over a template of the input's attribute
 *    types and buffer sizes, on a key object built from the input; every buffer is allocated at
 *    its exact size. Checked: no value is written past its buffer, an answered entry holds the
 *    object's value, an entry not answered says CK_UNAVAILABLE_INFORMATION, the return code is
 *    CKR_OK exactly when every entry was answered, and a template made of the answered values
 *    matches the object (p11_matches) while one with a value changed does not.
 * 1: LIST_KEYS's JSON (p11_parse_keys): accepted entries are well formed.
 * 2: TLS handshake content recognition (p256sign_tls_parse, as the module calls it): what it accepts has the layout.
 * 3: the module's settings (p11_config_text): slots within their bounds.
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
	kind = byte(in) & 1 ? P11_PRIVATE : P11_PUBLIC;
	key.purpose = byte(in) % 5;
	name_len = byte(in) % sizeof(key.name);
	bytes(in, (uint8_t *)key.name, name_len);
	key.name[name_len] = '\0';
	bytes(in, key.id, sizeof(key.id));
	bytes(in, key.point, sizeof(key.point));
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
			    strnlen(keys[i].name, sizeof(keys[i].name)) == sizeof(keys[i].name))
				abort();
		free(keys);
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
	switch (data[0] % 4) {
	case 0:
		attributes(&in);
		break;
	case 1:
		key_list(data + 1, size - 1);
		break;
	case 2:
		tls_content(data + 1, size - 1);
		break;
	default:
		config(data + 1, size - 1);
		break;
	}
	return 0;
}
