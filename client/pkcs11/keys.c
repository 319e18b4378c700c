/* SPDX-License-Identifier: ISC */
/*
 * A slot's keys, from LIST_KEYS (which leaves out the keys this process may not use), and the
 * object handles that name them: (slot + 1) << 24 | key index << 2 | kind. A key keeps its index
 * while the module is initialized, also across a daemon reload that drops it and one that brings
 * it back, so a handle a program holds never names another key.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "p11.h"

#define MAX_KEYS (1u << 22)

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
	json_t *list, *arr, *k;
	const char *name;
	size_t i, count = 0;
	int r = -1;

	*out = NULL;
	*n = 0;
	if ((list = json_loads(text, 0, NULL)) == NULL)
		return -1;
	arr = json_object_get(list, "keys");
	if (!json_is_array(arr) || json_array_size(arr) > MAX_KEYS)
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
		key->present = 1;
		count++;
	}
	*out = keys;
	*n = count;
	keys = NULL;
	r = 0;
out:
	free(keys);
	json_decref(list);
	return r;
}

/* Under the module lock: the slot's table becomes the daemon's list, by key id. */
int p11_merge_keys(struct p11_slot *s, const struct p11_key *keys, size_t n)
{
	size_t i, j;

	for (j = 0; j < s->nkeys; j++)
		s->keys[j].present = 0;
	for (i = 0; i < n; i++) {
		for (j = 0; j < s->nkeys; j++)
			if (memcmp(s->keys[j].id, keys[i].id, sizeof(keys[i].id)) == 0)
				break;
		if (j == s->nkeys) {
			if (s->nkeys == MAX_KEYS)
				return -1;
			if (s->nkeys == s->capkeys) {
				size_t cap = s->capkeys ? 2 * s->capkeys : 8;
				struct p11_key *grown = realloc(s->keys, cap * sizeof(*grown));

				if (grown == NULL)
					return -1;
				s->keys = grown;
				s->capkeys = cap;
			}
			s->nkeys++;
		}
		s->keys[j] = keys[i];	/* a renamed key or a new purpose after a reload */
	}
	return 0;
}

static int list_keys(struct p256sign *h, void *arg)
{
	return p256sign_list_keys(h, arg);
}

CK_RV p11_refresh_keys(CK_SLOT_ID id)
{
	struct p11_key *keys = NULL;
	struct p11_slot *s;
	char *json = NULL;
	size_t n;
	CK_RV rv;
	int r;

	p11_lock();
	s = p11_slot(id);
	p11_unlock();
	if (s == NULL)
		return CKR_SESSION_HANDLE_INVALID;
	if ((r = p11_request(s, list_keys, &json)) != 0) {
		rv = p11_rv(r);
		goto out;
	}
	if (p11_parse_keys(json, &keys, &n) != 0) {
		rv = CKR_DEVICE_ERROR;
		goto out;
	}
	p11_lock();
	rv = p11_slot(id) == s && p11_merge_keys(s, keys, n) == 0 ? CKR_OK : CKR_HOST_MEMORY;
	p11_unlock();
out:
	free(keys);
	free(json);
	return rv;
}

CK_OBJECT_HANDLE p11_handle(CK_SLOT_ID slot, size_t key_index, int kind)
{
	return (CK_OBJECT_HANDLE)(slot + 1) << 24 | (CK_OBJECT_HANDLE)key_index << 2 |
		(CK_OBJECT_HANDLE)kind;
}

struct p11_key *p11_object(CK_OBJECT_HANDLE h, CK_SLOT_ID *slot, int *kind)
{
	struct p11_slot *s;
	size_t index = (h >> 2) & (MAX_KEYS - 1);
	struct p11_key *k;

	if ((h >> 24) == 0 || (s = p11_slot((h >> 24) - 1)) == NULL || index >= s->nkeys)
		return NULL;
	*slot = (h >> 24) - 1;
	*kind = (int)(h & 3);
	k = &s->keys[index];
	/* Audit keys have no private key object: they never appear as able to sign. */
	if (!k->present || (*kind != P11_PUBLIC && *kind != P11_PRIVATE) ||
	    (*kind == P11_PRIVATE && k->purpose == P11_AUDIT))
		return NULL;
	return k;
}
