/* SPDX-License-Identifier: ISC */
/*
 * Sessions: a table under the module lock, handle = index + 1. Read-write sessions and any PIN
 * are accepted because programs ask for them (OpenSSH, pkcs11-tool, Java) although nothing here
 * can be written and no login is required: the daemon decides every request from the caller's
 * uid, as for every other client.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "p11-functions.h"

#define MAX_SESSIONS 65536

/* Under the module lock: the session of a handle, NULL when invalid. */
static struct p11_session *find_session(CK_SESSION_HANDLE h)
{
	if (p11_mod == NULL || h == 0 || h > p11_mod->nsessions ||
	    p11_mod->sessions[h - 1] == NULL || !p11_mod->sessions[h - 1]->used)
		return NULL;
	return p11_mod->sessions[h - 1];
}

CK_RV p11_lock_session(CK_SESSION_HANDLE h, struct p11_session **out)
{
	p11_lock();
	if (p11_mod == NULL)
		return CKR_CRYPTOKI_NOT_INITIALIZED;
	if ((*out = find_session(h)) == NULL)
		return CKR_SESSION_HANDLE_INVALID;
	return CKR_OK;
}

/* Ends the session's operations and frees what they held. */
void p11_session_reset(struct p11_session *s)
{
	free(s->found);
	s->found = NULL;
	s->nfound = s->pos = 0;
	s->finding = 0;
	if (s->buf != NULL)
		explicit_bzero(s->buf, s->len);
	free(s->buf);
	s->buf = NULL;
	EVP_MD_CTX_free(s->md);
	s->md = NULL;
	s->len = 0;
	s->signing = s->multipart = 0;
}

/* A free entry's index, the table grown if needed; -1 when full or out of memory. */
static long free_entry(struct p11_module *m)
{
	struct p11_session **grown;
	size_t i, cap;

	for (i = 0; i < m->nsessions; i++)
		if (m->sessions[i] == NULL || !m->sessions[i]->used)
			goto found;
	if (m->nsessions == MAX_SESSIONS)
		return -1;
	cap = m->nsessions ? 2 * m->nsessions : 16;
	if ((grown = realloc(m->sessions, cap * sizeof(*grown))) == NULL)
		return -1;
	memset(grown + m->nsessions, 0, (cap - m->nsessions) * sizeof(*grown));
	m->sessions = grown;
	i = m->nsessions;
	m->nsessions = cap;
found:
	if (m->sessions[i] == NULL && (m->sessions[i] = calloc(1, sizeof(**m->sessions))) == NULL)
		return -1;
	return (long)i;
}

CK_RV p11_C_OpenSession(CK_SLOT_ID slot, CK_FLAGS flags, CK_VOID_PTR app, CK_NOTIFY notify,
	CK_SESSION_HANDLE_PTR out)
{
	struct p11_slot *s;
	CK_RV rv;
	long i;

	(void)app;
	(void)notify;	/* no callbacks are ever made */
	if (out == NULL)
		return CKR_ARGUMENTS_BAD;
	if (!(flags & CKF_SERIAL_SESSION))
		return CKR_SESSION_PARALLEL_NOT_SUPPORTED;
	if ((rv = p11_find_slot(slot, &s)) != CKR_OK)
		return rv;
	if ((rv = p11_refresh_keys(slot)) != CKR_OK)
		return rv == CKR_DEVICE_ERROR ? CKR_TOKEN_NOT_PRESENT : rv;
	p11_lock();
	if (p11_slot(slot) != s) {
		rv = CKR_CRYPTOKI_NOT_INITIALIZED;
	} else if ((i = free_entry(p11_mod)) < 0) {
		rv = CKR_HOST_MEMORY;
	} else {
		struct p11_session *ses = p11_mod->sessions[i];

		memset(ses, 0, sizeof(*ses));
		ses->used = 1;
		ses->slot = slot;
		ses->flags = flags & (CKF_SERIAL_SESSION | CKF_RW_SESSION);
		*out = (CK_SESSION_HANDLE)i + 1;
	}
	p11_unlock();
	return rv;
}

static void close_session(struct p11_session *s)
{
	p11_session_reset(s);
	s->used = 0;
}

/* The login state is the application's per token; it ends with the token's last session. */
static void logout_if_last(CK_SLOT_ID slot)
{
	size_t i;

	for (i = 0; i < p11_mod->nsessions; i++)
		if (p11_mod->sessions[i] != NULL && p11_mod->sessions[i]->used &&
		    p11_mod->sessions[i]->slot == slot)
			return;
	p11_mod->slots[slot].logged_in = 0;
}

CK_RV p11_C_CloseSession(CK_SESSION_HANDLE h)
{
	struct p11_session *s;
	CK_RV rv;

	if ((rv = p11_lock_session(h, &s)) == CKR_OK) {
		close_session(s);
		logout_if_last(s->slot);
	}
	p11_unlock();
	return rv;
}

CK_RV p11_C_CloseAllSessions(CK_SLOT_ID slot)
{
	CK_RV rv = CKR_OK;
	size_t i;

	p11_lock();
	if (p11_mod == NULL) {
		rv = CKR_CRYPTOKI_NOT_INITIALIZED;
	} else if (p11_slot(slot) == NULL) {
		rv = CKR_SLOT_ID_INVALID;
	} else {
		for (i = 0; i < p11_mod->nsessions; i++)
			if (p11_mod->sessions[i] != NULL && p11_mod->sessions[i]->used &&
			    p11_mod->sessions[i]->slot == slot)
				close_session(p11_mod->sessions[i]);
		p11_mod->slots[slot].logged_in = 0;
	}
	p11_unlock();
	return rv;
}

CK_RV p11_C_GetSessionInfo(CK_SESSION_HANDLE h, CK_SESSION_INFO_PTR info)
{
	struct p11_session *s;
	CK_RV rv;
	int rw, user;

	if (info == NULL)
		return CKR_ARGUMENTS_BAD;
	if ((rv = p11_lock_session(h, &s)) == CKR_OK) {
		rw = (s->flags & CKF_RW_SESSION) != 0;
		user = p11_mod->slots[s->slot].logged_in;
		memset(info, 0, sizeof(*info));
		info->slotID = s->slot;
		info->flags = s->flags;
		info->state = user ? (rw ? CKS_RW_USER_FUNCTIONS : CKS_RO_USER_FUNCTIONS) :
			(rw ? CKS_RW_PUBLIC_SESSION : CKS_RO_PUBLIC_SESSION);
	}
	p11_unlock();
	return rv;
}

CK_RV p11_C_Login(CK_SESSION_HANDLE h, CK_USER_TYPE user, CK_UTF8CHAR_PTR pin, CK_ULONG len)
{
	struct p11_session *s;
	CK_RV rv;

	(void)pin;	/* any PIN: access is the daemon's decision, by uid */
	(void)len;
	if ((rv = p11_lock_session(h, &s)) != CKR_OK)
		goto out;
	if (user != CKU_USER && user != CKU_SO && user != CKU_CONTEXT_SPECIFIC)
		rv = CKR_USER_TYPE_INVALID;
	else if (user == CKU_SO)
		rv = CKR_USER_TYPE_INVALID;	/* nothing to administer through PKCS#11 */
	else if (user == CKU_USER && p11_mod->slots[s->slot].logged_in)
		rv = CKR_USER_ALREADY_LOGGED_IN;
	else if (user == CKU_USER)
		p11_mod->slots[s->slot].logged_in = 1;
out:
	p11_unlock();
	return rv;
}

CK_RV p11_C_Logout(CK_SESSION_HANDLE h)
{
	struct p11_session *s;
	CK_RV rv;

	if ((rv = p11_lock_session(h, &s)) != CKR_OK)
		goto out;
	if (!p11_mod->slots[s->slot].logged_in)
		rv = CKR_USER_NOT_LOGGED_IN;
	else
		p11_mod->slots[s->slot].logged_in = 0;
out:
	p11_unlock();
	return rv;
}
