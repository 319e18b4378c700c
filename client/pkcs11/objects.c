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

	p11_lock();
	if (p11_mod == NULL)
		rv = CKR_CRYPTOKI_NOT_INITIALIZED;
	else if ((s = p11_session(h)) == NULL)
		rv = CKR_SESSION_HANDLE_INVALID;
	else if ((k = p11_object(obj, &slot, &kind)) == NULL || slot != s->slot)
		rv = CKR_OBJECT_HANDLE_INVALID;
	else if (tmpl == NULL && count > 0)
		rv = CKR_ARGUMENTS_BAD;
	else {
		p11_object_attrs(k, kind, &attrs);
		rv = p11_get_attributes(&attrs, tmpl, count);
	}
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

	if (s->nkeys > 0 && (ses->found = calloc(2 * s->nkeys, sizeof(*ses->found))) == NULL)
		return CKR_HOST_MEMORY;
	for (i = 0; i < s->nkeys; i++)
		for (kind = P11_PRIVATE; kind <= P11_PUBLIC; kind++) {
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

CK_RV p11_C_FindObjectsInit(CK_SESSION_HANDLE h, CK_ATTRIBUTE_PTR tmpl, CK_ULONG count)
{
	struct p11_session *s;
	CK_SLOT_ID slot = 0;
	CK_RV rv = CKR_OK;

	if (tmpl == NULL && count > 0)
		return CKR_ARGUMENTS_BAD;
	p11_lock();
	if (p11_mod == NULL)
		rv = CKR_CRYPTOKI_NOT_INITIALIZED;
	else if ((s = p11_session(h)) == NULL)
		rv = CKR_SESSION_HANDLE_INVALID;
	else if (s->finding)
		rv = CKR_OPERATION_ACTIVE;
	else
		slot = s->slot;
	p11_unlock();
	if (rv != CKR_OK)
		return rv;
	if ((rv = p11_refresh_keys(slot)) != CKR_OK)
		return rv;
	p11_lock();
	if (p11_mod == NULL)
		rv = CKR_CRYPTOKI_NOT_INITIALIZED;
	else if ((s = p11_session(h)) == NULL)
		rv = CKR_SESSION_HANDLE_INVALID;
	else if (s->finding)
		rv = CKR_OPERATION_ACTIVE;
	else
		rv = collect(s, tmpl, count);
	p11_unlock();
	return rv;
}

CK_RV p11_C_FindObjects(CK_SESSION_HANDLE h, CK_OBJECT_HANDLE_PTR out, CK_ULONG max,
	CK_ULONG_PTR count)
{
	struct p11_session *s;
	CK_RV rv = CKR_OK;
	CK_ULONG n = 0;

	if ((out == NULL && max > 0) || count == NULL)
		return CKR_ARGUMENTS_BAD;
	p11_lock();
	if (p11_mod == NULL) {
		rv = CKR_CRYPTOKI_NOT_INITIALIZED;
	} else if ((s = p11_session(h)) == NULL) {
		rv = CKR_SESSION_HANDLE_INVALID;
	} else if (!s->finding) {
		rv = CKR_OPERATION_NOT_INITIALIZED;
	} else {
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
	CK_RV rv = CKR_OK;

	p11_lock();
	if (p11_mod == NULL) {
		rv = CKR_CRYPTOKI_NOT_INITIALIZED;
	} else if ((s = p11_session(h)) == NULL) {
		rv = CKR_SESSION_HANDLE_INVALID;
	} else if (!s->finding) {
		rv = CKR_OPERATION_NOT_INITIALIZED;
	} else {
		free(s->found);
		s->found = NULL;
		s->nfound = s->pos = 0;
		s->finding = 0;
	}
	p11_unlock();
	return rv;
}
