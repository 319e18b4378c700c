/* SPDX-License-Identifier: ISC */
/*
 * C_GetAttributeValue and C_FindObjects*. A search asks the daemon for its keys again
 * (LIST_KEYS), so that a reload's keys show up without re-initialising; the matching handles
 * are collected at C_FindObjectsInit and handed out by C_FindObjects.
 */
#include <stdlib.h>
#include <string.h>

#include "p11-functions.h"

CK_RV p11_C_GetAttributeValue(CK_SESSION_HANDLE h, CK_OBJECT_HANDLE obj, CK_ATTRIBUTE_PTR tmpl,
	CK_ULONG count)
{
	struct p11_attrs attrs;
	struct p11_session *s;
	struct p11_key *k;
	CK_SLOT_ID slot;
	CK_RV rv;
	int kind;

	if ((rv = p11_lock_session(h, &s)) != CKR_OK)
		goto out;
	if ((k = p11_object(obj, &slot, &kind)) == NULL || slot != s->slot) {
		rv = CKR_OBJECT_HANDLE_INVALID;
	} else if (tmpl == NULL && count > 0) {
		rv = CKR_ARGUMENTS_BAD;
	} else {
		p11_object_attrs(k, kind, &attrs);
		rv = p11_get_attributes(&attrs, tmpl, count);
	}
out:
	p11_unlock();
	return rv;
}

/* Under the module lock: the handles of the slot's objects that match. */
static CK_RV collect(struct p11_session *ses, const CK_ATTRIBUTE *tmpl, CK_ULONG count)
{
	struct p11_slot *s = &p11_mod->slots[ses->slot];
	struct p11_attrs attrs;
	CK_OBJECT_HANDLE handle;
	size_t i;
	int kind;

	if (s->nkeys > 0 && (ses->found = calloc(3 * s->nkeys, sizeof(*ses->found))) == NULL)
		return CKR_HOST_MEMORY;
	for (i = 0; i < s->nkeys; i++)
		for (kind = P11_PRIVATE; kind <= P11_CERT; kind++) {
			CK_SLOT_ID slot;
			struct p11_key *k;

			handle = p11_handle(ses->slot, i, kind);
			if ((k = p11_object(handle, &slot, &kind)) == NULL)
				continue;
			p11_object_attrs(k, kind, &attrs);
			if (p11_matches(&attrs, tmpl, count))
				ses->found[ses->nfound++] = handle;
		}
	ses->pos = 0;
	ses->finding = 1;
	return CKR_OK;
}

/* Takes the module lock (the caller unlocks): the session of h, whose search must be under way
 * (searching 1) or not (0). */
static CK_RV lock_search(CK_SESSION_HANDLE h, int searching, struct p11_session **s)
{
	CK_RV rv = p11_lock_session(h, s);

	if (rv == CKR_OK && (*s)->finding != searching)
		rv = searching ? CKR_OPERATION_NOT_INITIALIZED : CKR_OPERATION_ACTIVE;
	return rv;
}

/* The daemon is asked for its keys without the module lock, so the session is looked up again
 * after. */
CK_RV p11_C_FindObjectsInit(CK_SESSION_HANDLE h, CK_ATTRIBUTE_PTR tmpl, CK_ULONG count)
{
	struct p11_session *s;
	CK_SLOT_ID slot = 0;
	CK_RV rv;

	if (tmpl == NULL && count > 0)
		return CKR_ARGUMENTS_BAD;
	if ((rv = lock_search(h, 0, &s)) == CKR_OK)
		slot = s->slot;
	p11_unlock();
	if (rv != CKR_OK)
		return rv;
	if ((rv = p11_refresh_keys(slot)) != CKR_OK)
		return rv;
	if ((rv = lock_search(h, 0, &s)) == CKR_OK)
		rv = collect(s, tmpl, count);
	p11_unlock();
	return rv;
}

CK_RV p11_C_FindObjects(CK_SESSION_HANDLE h, CK_OBJECT_HANDLE_PTR out, CK_ULONG max,
	CK_ULONG_PTR count)
{
	struct p11_session *s;
	CK_ULONG n = 0;
	CK_RV rv;

	if ((out == NULL && max > 0) || count == NULL)
		return CKR_ARGUMENTS_BAD;
	if ((rv = lock_search(h, 1, &s)) == CKR_OK) {
		while (n < max && s->pos < s->nfound)
			out[n++] = s->found[s->pos++];
		*count = n;
	}
	p11_unlock();
	return rv;
}

CK_RV p11_C_FindObjectsFinal(CK_SESSION_HANDLE h)
{
	struct p11_session *s;
	CK_RV rv;

	if ((rv = lock_search(h, 1, &s)) == CKR_OK) {
		free(s->found);
		s->found = NULL;
		s->nfound = s->pos = 0;
		s->finding = 0;
	}
	p11_unlock();
	return rv;
}
