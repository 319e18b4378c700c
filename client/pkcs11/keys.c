/* SPDX-License-Identifier: ISC */
/*
 * A slot's keys, from LIST_KEYS (which leaves out the keys this process may not use), with the
 * certificate of each key LIST_KEYS says has one (a CERTIFICATE request each, every time the list
 * is read, so that a reload's certificate shows up as its keys do), and the object handles that
 * name them: (slot + 1) << 24 | key index << 2 | kind. A key keeps its index while the module is
 * initialized, also across a daemon reload that drops it and one that brings it back, so a handle
 * a program holds never names another key.
 */
#include <stdlib.h>
#include <string.h>

#include "p11.h"

/* Under the module lock: the slot's table becomes the daemon's list, by key id. A key gone from
 * it loses its certificate; the others take the list's (keys[i] keep none). */
int p11_merge_keys(struct p11_slot *s, struct p11_key *keys, size_t n)
{
	size_t i, j;

	for (j = 0; j < s->nkeys; j++) {
		s->keys[j].present = 0;
		p11_key_clear_cert(&s->keys[j]);
	}
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
		keys[i].cert = NULL;	/* the table's now */
		keys[i].cert_len = 0;
	}
	return 0;
}

/*
 * One reading of a slot's key list, with what it holds while its thread asks the daemon. It is
 * on the module's list meanwhile (as sign.c's jobs are), so that a child made by fork() then,
 * where that thread does not exist, frees it with the inherited state.
 */
struct p11_refresh {
	struct p11_inflight link;	/* first: on the module's refreshes */
	char *json;			/* LIST_KEYS */
	struct p11_key *keys;		/* its entries, with their certificates */
	size_t n;
	uint8_t *der;			/* a certificate being read: P256SIGN_CERT_MAX bytes */
	size_t key;			/* the entry whose certificate is being read */
};

static void free_refresh(struct p11_refresh *rf)
{
	p11_keys_free(rf->keys, rf->n);
	free(rf->json);
	free(rf->der);
	free(rf);
}

static void free_refresh_entry(struct p11_inflight *e)
{
	free_refresh((struct p11_refresh *)e);	/* the entry's first member */
}

static int list_keys(struct p256sign *h, void *arg)
{
	struct p11_refresh *rf = arg;

	return p256sign_list_keys(h, &rf->json);
}

/* CERTIFICATE for entry rf->key, by its key id. */
static int get_cert(struct p256sign *h, void *arg)
{
	struct p11_refresh *rf = arg;
	struct p11_key *k = &rf->keys[rf->key];
	struct p256sign_key sel = { .id = k->id };
	size_t len = 0;
	int r;

	/* Not a certificate the module can lay out: the key goes without its object. */
	if ((r = p256sign_certificate(h, &sel, rf->der, P256SIGN_CERT_MAX, &len)) == 0 &&
	    p11_key_set_cert(k, rf->der, len) != 0)
		k->has_cert = 0;
	return r;
}

/* The certificates of the keys LIST_KEYS says have one. A key the daemon no longer has, or
 * that lost its certificate or this peer's access since (a reload in between), goes without. */
static int get_certs(struct p11_slot *s, struct p11_refresh *rf)
{
	for (rf->key = 0; rf->key < rf->n; rf->key++) {
		struct p11_key *k = &rf->keys[rf->key];
		int r;

		if (!k->has_cert)
			continue;
		if (rf->der == NULL && (rf->der = malloc(P256SIGN_CERT_MAX)) == NULL)
			return P256SIGN_E_NOMEM;
		r = p11_request(s, get_cert, rf);
		if (r == P256SIGN_E_NO_CERTIFICATE || r == P256SIGN_E_UNKNOWN_KEY ||
		    r == P256SIGN_E_DENIED)
			k->has_cert = 0;
		else if (r != 0)
			return r;
	}
	return 0;
}

CK_RV p11_refresh_keys(CK_SLOT_ID id)
{
	struct p11_refresh *rf = calloc(1, sizeof(*rf));
	struct p11_slot *s;
	CK_RV rv;
	int r;

	if (rf == NULL)
		return CKR_HOST_MEMORY;
	p11_lock();
	if ((s = p11_slot(id)) != NULL)
		p11_inflight_link(&p11_mod->refreshes, &rf->link, free_refresh_entry);
	p11_unlock();
	if (s == NULL) {
		free(rf);
		return CKR_SESSION_HANDLE_INVALID;
	}
	if ((r = p11_request(s, list_keys, rf)) != 0)
		rv = p11_rv(r);
	else if (p11_parse_keys(rf->json, &rf->keys, &rf->n) != 0)
		rv = CKR_DEVICE_ERROR;
	else if ((r = get_certs(s, rf)) != 0)
		rv = p11_rv(r);
	else
		rv = CKR_OK;
	p11_lock();
	if (rv == CKR_OK && (p11_slot(id) != s || p11_merge_keys(s, rf->keys, rf->n) != 0))
		rv = CKR_HOST_MEMORY;
	p11_inflight_unlink(&rf->link);
	p11_unlock();
	free_refresh(rf);
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
	/* Audit keys have no private key object: they never appear as able to sign. A key without
	 * a certificate has no certificate object. */
	if (!k->present || (*kind == P11_PRIVATE && k->purpose == P11_AUDIT) ||
	    (*kind == P11_CERT && k->cert == NULL) || *kind == 0)
		return NULL;
	return k;
}
