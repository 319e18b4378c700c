/* SPDX-License-Identifier: ISC */
/*
 * A slot's keys, from LIST_KEYS (which leaves out the keys this process may not use), and the
 * object handles that name them: (slot + 1) << 24 | key index << 2 | kind. A key keeps its index
 * while the module is initialized, also across a daemon reload that drops it and one that brings
 * it back, so a handle a program holds never names another key.
 */
#include <stdlib.h>
#include <string.h>

#include "p11.h"

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
			if (s->nkeys == P11_MAX_KEYS)
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
	size_t index = (h >> 2) & (P11_MAX_KEYS - 1);
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
