/* SPDX-License-Identifier: ISC */
/*
 * The module's entry: C_GetFunctionList, C_Initialize, C_Finalize, C_GetInfo, and fork.
 *
 * Fork (PKCS#11 2.40 section 6.7.7): a child must call C_Initialize again and gets
 * CKR_CRYPTOKI_NOT_INITIALIZED until it does. An atfork handler marks the child's module
 * uninitialized and keeps the parent's state aside; the child's C_Initialize frees what is safe to
 * free and never uses the parent's handles: a slot whose handle lock a thread of the parent held
 * at the fork is left alone (its state is kept, unused, once per such fork), the others are
 * closed (libp256sign closes an inherited descriptor without writing to it); the signatures the
 * parent's threads were waiting for are freed.
 */
#include <stdlib.h>
#include <string.h>

#include "p11.h"
#include "p11-functions.h"

struct p11_module *p11_mod;
static struct p11_module *stale;	/* the parent's state, in a child before C_Initialize */
static struct p11_module *kept;		/* parents' states with a handle a child cannot free */
static pthread_mutex_t module_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static int atfork_ok;

void p11_lock(void)
{
	(void)pthread_mutex_lock(&module_lock);
}

void p11_unlock(void)
{
	(void)pthread_mutex_unlock(&module_lock);
}

int p11_initialized(void)
{
	int r;

	p11_lock();
	r = p11_mod != NULL;
	p11_unlock();
	return r;
}

/* The module lock is held across fork so that the child's copy of the state is consistent. */
static void before_fork(void)
{
	p11_lock();
}

static void parent_after_fork(void)
{
	p11_unlock();
}

static void child_after_fork(void)
{
	(void)pthread_mutex_init(&module_lock, NULL);
	if (p11_mod != NULL) {
		stale = p11_mod;
		p11_mod = NULL;
	}
}

static void register_atfork(void)
{
	atfork_ok = pthread_atfork(before_fork, parent_after_fork, child_after_fork) == 0;
}

void p11_inflight_link(struct p11_inflight **head, struct p11_inflight *e,
	void (*free_entry)(struct p11_inflight *e))
{
	e->mod = p11_mod;
	e->head = head;
	e->free = free_entry;
	e->prev = NULL;
	e->next = *head;
	if (e->next != NULL)
		e->next->prev = e;
	*head = e;
}

void p11_inflight_unlink(struct p11_inflight *e)
{
	if (p11_mod != e->mod)
		return;
	if (e->prev != NULL)
		e->prev->next = e->next;
	else
		*e->head = e->next;
	if (e->next != NULL)
		e->next->prev = e->prev;
}

/* Frees the entries of a list of an inherited state: their threads are gone with the fork. */
static void free_inflight(struct p11_inflight **head)
{
	struct p11_inflight *e, *next;

	for (e = *head; e != NULL; e = next) {
		next = e->next;
		e->free(e);
	}
	*head = NULL;
}

/* Frees a state; inherited: it came from the parent, whose threads may hold handle locks. */
static void free_module(struct p11_module *m, int inherited)
{
	size_t i, busy = 0;

	if (inherited) {
		free_inflight(&m->jobs);
		free_inflight(&m->refreshes);
	}
	for (i = 0; i < m->nsessions; i++) {
		if (m->sessions[i] != NULL)
			p11_session_reset(m->sessions[i]);
		free(m->sessions[i]);
	}
	free(m->sessions);
	m->sessions = NULL;
	m->nsessions = 0;
	for (i = 0; i < m->nslots; i++) {
		if (inherited && pthread_mutex_trylock(&m->slots[i].handle_lock) != 0) {
			busy++;		/* a parent's thread was inside a request: leave it */
			continue;
		}
		if (inherited)
			(void)pthread_mutex_unlock(&m->slots[i].handle_lock);
		p11_slot_free(&m->slots[i]);
	}
	if (busy > 0) {
		/* Kept, its busy slots' handles with it, rather than lost. */
		m->kept = kept;
		kept = m;
		return;
	}
	free(m);
}

/* Locking: CKF_OS_LOCKING_OK, or no locking callbacks: this module uses pthreads. An application
 * that insists on its own mutexes (callbacks without the flag) gets CKR_CANT_LOCK. */
static CK_RV check_init_args(const CK_C_INITIALIZE_ARGS *args, const char **reserved)
{
	int callbacks;

	*reserved = NULL;
	if (args == NULL)
		return CKR_OK;
	callbacks = args->CreateMutex != NULL || args->DestroyMutex != NULL ||
		args->LockMutex != NULL || args->UnlockMutex != NULL;
	if (callbacks && (args->CreateMutex == NULL || args->DestroyMutex == NULL ||
	    args->LockMutex == NULL || args->UnlockMutex == NULL))
		return CKR_ARGUMENTS_BAD;
	if (callbacks && !(args->flags & CKF_OS_LOCKING_OK))
		return CKR_CANT_LOCK;
	/* p11-kit passes a module's x-init-reserved option here (docs/pkcs11.md). */
	*reserved = args->pReserved;
	return CKR_OK;
}

static CK_RV p11_C_Initialize(CK_VOID_PTR init_args)
{
	struct p11_module *m = NULL, *old;
	const char *reserved;
	CK_RV rv;

	if ((rv = check_init_args(init_args, &reserved)) != CKR_OK)
		return rv;
	if (pthread_once(&atfork_once, register_atfork) != 0 || !atfork_ok)
		return CKR_GENERAL_ERROR;
	if ((m = calloc(1, sizeof(*m))) == NULL)
		return CKR_HOST_MEMORY;
	if (p11_config(m, reserved) != 0) {
		free_module(m, 0);
		return CKR_GENERAL_ERROR;
	}
	p11_lock();
	if (p11_mod != NULL) {
		p11_unlock();
		free_module(m, 0);
		return CKR_CRYPTOKI_ALREADY_INITIALIZED;
	}
	p11_mod = m;
	old = stale;
	stale = NULL;
	p11_unlock();
	if (old != NULL)
		free_module(old, 1);
	return CKR_OK;
}

static CK_RV p11_C_Finalize(CK_VOID_PTR reserved)
{
	struct p11_module *m;

	if (reserved != NULL)
		return CKR_ARGUMENTS_BAD;
	p11_lock();
	m = p11_mod;
	p11_mod = NULL;
	p11_unlock();
	if (m == NULL)
		return CKR_CRYPTOKI_NOT_INITIALIZED;
	free_module(m, 0);
	return CKR_OK;
}

/* Space-padded, not NUL-terminated, as every PKCS#11 string. */
void p11_pad(unsigned char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	memset(dst, ' ', size);
	memcpy(dst, src, n < size ? n : size);
}

static CK_RV p11_C_GetInfo(CK_INFO_PTR info)
{
	if (info == NULL)
		return CKR_ARGUMENTS_BAD;
	if (!p11_initialized())
		return CKR_CRYPTOKI_NOT_INITIALIZED;
	memset(info, 0, sizeof(*info));
	info->cryptokiVersion.major = 2;
	info->cryptokiVersion.minor = 40;
	p11_pad(info->manufacturerID, sizeof(info->manufacturerID), P11_MANUFACTURER);
	p11_pad(info->libraryDescription, sizeof(info->libraryDescription),
		"p256signd keys (PKCS#11)");
	info->libraryVersion.major = 0;
	info->libraryVersion.minor = 1;
	return CKR_OK;
}

static CK_FUNCTION_LIST function_list = {
	.version = { 2, 40 },
	.C_Initialize = p11_C_Initialize,
	.C_Finalize = p11_C_Finalize,
	.C_GetInfo = p11_C_GetInfo,
	.C_GetFunctionList = C_GetFunctionList,
	P11_SLOT_FUNCTIONS,
	P11_SESSION_FUNCTIONS,
	P11_OBJECT_FUNCTIONS,
	P11_SIGN_FUNCTIONS,
	P11_UNSUPPORTED_FUNCTIONS,
};

__attribute__((visibility("default"))) CK_RV C_GetFunctionList(CK_FUNCTION_LIST_PTR_PTR list)
{
	if (list == NULL)
		return CKR_ARGUMENTS_BAD;
	*list = &function_list;
	return CKR_OK;
}
