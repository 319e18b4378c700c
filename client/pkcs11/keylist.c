/* SPDX-License-Identifier: ISC */
/*
 * LIST_KEYS's JSON (docs/protocol.md section 6) as the module's key entries, and a key's
 * certificate with the fields its object shows. No I/O: the fuzz harness drives it directly. A
 * malformed entry fails the whole list, so that a daemon speaking something else is noticed
 * rather than half understood.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "p11.h"

static int unhex(const char *hex, uint8_t *out, size_t len)
{
	size_t i;
	int hi, lo;

	if (hex == NULL || strlen(hex) != 2 * len)
		return -1;
	for (i = 0; i < len; i++) {
		hi = hex[2 * i];
		lo = hex[2 * i + 1];
		hi = hi >= '0' && hi <= '9' ? hi - '0' : hi >= 'a' && hi <= 'f' ? hi - 'a' + 10 : -1;
		lo = lo >= '0' && lo <= '9' ? lo - '0' : lo >= 'a' && lo <= 'f' ? lo - 'a' + 10 : -1;
		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

static int purpose_of(const char *p)
{
	if (p == NULL || strcmp(p, "any") == 0)
		return P11_ANY;
	if (strcmp(p, "tls-server") == 0)
		return P11_TLS_SERVER;
	if (strcmp(p, "tls-client") == 0)
		return P11_TLS_CLIENT;
	if (strcmp(p, "audit") == 0)
		return P11_AUDIT;
	return P11_OTHER;	/* a purpose of a later release: not signed with here */
}

int p11_parse_keys(const char *text, struct p11_key **out, size_t *n)
{
	struct p11_key *keys = NULL;
	json_t *list, *arr, *k, *sha;
	const char *name;
	size_t i, count = 0;
	int r = -1;

	*out = NULL;
	*n = 0;
	if ((list = json_loads(text, 0, NULL)) == NULL)
		return -1;
	arr = json_object_get(list, "keys");
	if (!json_is_array(arr) || json_array_size(arr) > P11_MAX_KEYS)
		goto out;
	if (json_array_size(arr) > 0 &&
	    (keys = calloc(json_array_size(arr), sizeof(*keys))) == NULL)
		goto out;
	json_array_foreach(arr, i, k) {
		struct p11_key *key = &keys[count];

		name = json_string_value(json_object_get(k, "name"));
		if (name == NULL || strlen(name) == 0 || strlen(name) >= sizeof(key->name) ||
		    unhex(json_string_value(json_object_get(k, "key_id")), key->id,
			sizeof(key->id)) != 0 ||
		    unhex(json_string_value(json_object_get(k, "public_key")), key->point,
			sizeof(key->point)) != 0 || key->point[0] != 0x04)
			goto out;
		memcpy(key->name, name, strlen(name) + 1);
		key->purpose = purpose_of(json_string_value(json_object_get(k, "purpose")));
		/* The member of a key configured with a certificate: CERTIFICATE answers for it. */
		key->has_cert = json_is_integer(json_object_get(k, "certificate_not_after"));
		/* Which DER it answers: a certificate the module holds is not asked for again. */
		sha = json_object_get(k, "certificate_sha256");
		if (key->has_cert && sha != NULL) {
			if (unhex(json_string_value(sha), key->cert_sha256,
			    sizeof(key->cert_sha256)) != 0)
				goto out;
			key->has_cert_sha256 = 1;
		}
		key->present = 1;
		count++;
	}
	*out = keys;
	*n = count;
	keys = NULL;
	r = 0;
out:
	free(keys);	/* no entry holds a certificate yet */
	json_decref(list);
	return r;
}

int p11_key_set_cert(struct p11_key *k, const uint8_t *der, size_t len)
{
	struct p256sign_cert_fields f;
	uint8_t *copy;

	p11_key_clear_cert(k);
	if (len == 0 || len > P256SIGN_CERT_MAX || (copy = malloc(len)) == NULL)
		return -1;
	memcpy(copy, der, len);
	if (p256sign_cert_fields(copy, len, &f) != 0) {
		free(copy);
		return -1;
	}
	k->cert = copy;
	k->cert_len = len;
	k->fields = f;
	return 0;
}

void p11_key_clear_cert(struct p11_key *k)
{
	free(k->cert);
	k->cert = NULL;
	k->cert_len = 0;
	memset(&k->fields, 0, sizeof(k->fields));
}

void p11_keys_free(struct p11_key *keys, size_t n)
{
	for (size_t i = 0; keys != NULL && i < n; i++)
		p11_key_clear_cert(&keys[i]);
	free(keys);
}

