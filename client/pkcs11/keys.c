/* SPDX-License-Identifier: ISC */
/*
 * A slot's keys, from LIST_KEYS (which leaves out the keys this process may not use), with the
 * certificate of each key LIST_KEYS says has one, and the object handles that name them:
 * (slot + 1) << 24 | key index << 2 | kind. A key keeps its index while the module is
 * initialized, also across a daemon reload that drops it and one that brings it back, so a handle
 * a program holds never names another key.
 *
 * Certificates: the list is read at every search, so that a reload's keys show up, but each
 * CERTIFICATE request leaves an audit record, and programs search often (a gnutls-serv start
 * does about ten times). LIST_KEYS gives the SHA-256 of each key's DER (certificate_sha256): the
 * table keeps the DER it holds per key id, and only a key whose listed hash differs is asked
 * for its certificate, once per certificate the daemon is given. A fetched DER whose hash is not
 * the listed one means the key set changed between the two requests: the list is read once
 * more, and a key whose DER still does not match goes without its object this time.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "p11.h"

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
	int changed;			/* a DER was not the one listed: the key set changed */
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

/* Whether a DER is the one the list names (a daemon that names none: whatever it answers). */
static int is_listed(const struct p11_key *k, const uint8_t *der, size_t len)
{
	uint8_t digest[32];

	if (!k->has_cert_sha256)
		return 1;
	return EVP_Digest(der, len, digest, NULL, EVP_sha256(), NULL) == 1 &&
		memcmp(digest, k->cert_sha256, sizeof(digest)) == 0;
}

/* CERTIFICATE for entry rf->key, by its key id. */
static int get_cert(struct p256sign *h, void *arg)
{
	struct p11_refresh *rf = arg;
	struct p11_key *k = &rf->keys[rf->key];
	struct p256sign_key sel = { .id = k->id };
	size_t len = 0;
	int r;

	if ((r = p256sign_certificate(h, &sel, rf->der, P256SIGN_CERT_MAX, &len)) != 0)
		return r;
	if (!is_listed(k, rf->der, len)) {
		rf->changed = 1;	/* a reload between LIST_KEYS and CERTIFICATE */
		k->has_cert = 0;
	} else if (p11_key_set_cert(k, rf->der, len) != 0) {
		k->has_cert = 0;	/* not a certificate the module can lay out: no object */
	}
	return 0;
}

/* The certificates of the keys LIST_KEYS says have one and the table does not hold. A key the
 * daemon no longer has, or that lost its certificate or this peer's access since (a reload in
 * between), goes without. */
static int get_certs(struct p11_slot *s, struct p11_refresh *rf)
{
	for (rf->key = 0; rf->key < rf->n; rf->key++) {
		struct p11_key *k = &rf->keys[rf->key];
		int r;

		if (!k->has_cert || k->cert_cached)
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

/* One reading of the list into the slot's table; *changed: a certificate was not the listed one. */
static CK_RV refresh_once(CK_SLOT_ID id, int *changed)
{
	struct p11_refresh *rf = calloc(1, sizeof(*rf));
	struct p11_slot *s;
	CK_RV rv;
	int r;

	*changed = 0;
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
	if ((r = p11_request(s, list_keys, rf)) != 0) {
		rv = p11_rv(r);
	} else if (p11_parse_keys(rf->json, &rf->keys, &rf->n) != 0) {
		rv = CKR_DEVICE_ERROR;
	} else {
		p11_lock();
		if (p11_slot(id) == s)
			p11_cached_certs(s, rf->keys, rf->n);
		p11_unlock();
		rv = (r = get_certs(s, rf)) != 0 ? p11_rv(r) : CKR_OK;
	}
	p11_lock();
	if (rv == CKR_OK && (p11_slot(id) != s || p11_merge_keys(s, rf->keys, rf->n) != 0))
		rv = CKR_HOST_MEMORY;
	p11_inflight_unlink(&rf->link);
	p11_unlock();
	*changed = rf->changed;
	free_refresh(rf);
	return rv;
}

CK_RV p11_refresh_keys(CK_SLOT_ID id)
{
	CK_RV rv;
	int changed;

	/* Once more after a change, not until none: a daemon reloaded without pause must not keep
	 * a search waiting. */
	if ((rv = refresh_once(id, &changed)) == CKR_OK && changed)
		rv = refresh_once(id, &changed);
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
