/* SPDX-License-Identifier: ISC */
/*
 * Slots and tokens: one slot per configured socket. The token is present while its daemon
 * answers; its label is the slot's (p256sign, p256sign-1, ...), its serial a hash of the socket
 * path the library connects to (what identifies a daemon to its clients), its model and firmware
 * version the daemon's release (STATUS). No login is required and the token is read-only to
 * PKCS#11: keys are managed in the daemon's configuration.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "p11-functions.h"

struct p11_slot *p11_slot(CK_SLOT_ID id)
{
	if (p11_mod == NULL || id >= p11_mod->nslots)
		return NULL;
	return &p11_mod->slots[id];
}

CK_RV p11_find_slot(CK_SLOT_ID id, struct p11_slot **out)
{
	CK_RV rv = CKR_OK;

	p11_lock();
	if (p11_mod == NULL)
		rv = CKR_CRYPTOKI_NOT_INITIALIZED;
	else if ((*out = p11_slot(id)) == NULL)
		rv = CKR_SLOT_ID_INVALID;
	p11_unlock();
	return rv;
}

void p11_slot_free(struct p11_slot *s)
{
	p256sign_close(s->h);
	s->h = NULL;
	p11_keys_free(s->keys, s->nkeys);
	s->keys = NULL;
	(void)pthread_mutex_destroy(&s->handle_lock);
}

static int ping(struct p256sign *h, void *arg)
{
	(void)arg;
	return p256sign_ping(h);
}

int p11_slot_present(struct p11_slot *s)
{
	return p11_request(s, ping, NULL) == 0;
}

/* STATUS: the daemon's release and the socket path, for the token's description. */
struct identity {
	char version[16];
	uint64_t serial;
};

static int status(struct p256sign *h, void *arg)
{
	struct identity *id = arg;
	const char *path = p256sign_socket_path(h), *v;
	char *text = NULL;
	json_t *st = NULL;
	int r;

	/* FNV-1a: a stable name, not a secret. */
	id->serial = 14695981039346656037ULL;
	for (; *path != '\0'; path++)
		id->serial = (id->serial ^ (unsigned char)*path) * 1099511628211ULL;
	if ((r = p256sign_status(h, &text)) != 0)
		return r;
	if ((st = json_loads(text, 0, NULL)) == NULL ||
	    (v = json_string_value(json_object_get(st, "version"))) == NULL)
		r = P256SIGN_E_PROTOCOL;
	else
		snprintf(id->version, sizeof(id->version), "%s", v);
	json_decref(st);
	free(text);
	return r;
}

/* PKCS#11 2.40 section 5.2: the list's length always, the list too when the caller's buffer (list;
 * NULL asks for the length alone) holds it, else CKR_BUFFER_TOO_SMALL. */
static CK_RV answer_list(void *list, CK_ULONG_PTR count, const void *items, CK_ULONG n,
	size_t size)
{
	CK_RV rv = CKR_OK;

	if (list != NULL) {
		if (*count < n)
			rv = CKR_BUFFER_TOO_SMALL;
		else
			memcpy(list, items, n * size);
	}
	*count = n;
	return rv;
}

CK_RV p11_C_GetSlotList(CK_BBOOL present, CK_SLOT_ID_PTR list, CK_ULONG_PTR count)
{
	struct p11_slot *slots[P11_MAX_SLOTS];
	CK_SLOT_ID ids[P11_MAX_SLOTS];
	CK_ULONG n = 0;
	size_t i, nslots = 0;
	int initialized;

	if (count == NULL)
		return CKR_ARGUMENTS_BAD;
	p11_lock();
	initialized = p11_mod != NULL;
	for (i = 0; initialized && i < p11_mod->nslots; i++)
		slots[nslots++] = &p11_mod->slots[i];
	p11_unlock();
	if (!initialized)
		return CKR_CRYPTOKI_NOT_INITIALIZED;
	/* The daemons are asked without the module lock: a PING each, bounded by timeout_ms. */
	for (i = 0; i < nslots; i++)
		if (!present || p11_slot_present(slots[i]))
			ids[n++] = i;
	return answer_list(list, count, ids, n, sizeof(ids[0]));
}

CK_RV p11_C_GetSlotInfo(CK_SLOT_ID id, CK_SLOT_INFO_PTR info)
{
	struct p11_slot *s;
	char desc[160];
	CK_RV rv;

	if (info == NULL)
		return CKR_ARGUMENTS_BAD;
	if ((rv = p11_find_slot(id, &s)) != CKR_OK)
		return rv;
	memset(info, 0, sizeof(*info));
	snprintf(desc, sizeof(desc), "p256signd at %s",
		s->socket[0] != '\0' ? s->socket : "the default socket");
	p11_pad(info->slotDescription, sizeof(info->slotDescription), desc);
	p11_pad(info->manufacturerID, sizeof(info->manufacturerID), P11_MANUFACTURER);
	info->flags = CKF_REMOVABLE_DEVICE | (p11_slot_present(s) ? CKF_TOKEN_PRESENT : 0);
	return CKR_OK;
}

/* "0.1.0" -> major 0, minor 1. */
static void parse_version(const char *text, CK_VERSION *v)
{
	unsigned major = 0, minor = 0;

	if (sscanf(text, "%u.%u", &major, &minor) >= 1) {
		v->major = major > 255 ? 255 : major;
		v->minor = minor > 255 ? 255 : minor;
	}
}

CK_RV p11_C_GetTokenInfo(CK_SLOT_ID id, CK_TOKEN_INFO_PTR info)
{
	struct identity ident = { "", 0 };
	struct p11_slot *s;
	char serial[17];
	CK_RV rv;
	int r;

	if (info == NULL)
		return CKR_ARGUMENTS_BAD;
	if ((rv = p11_find_slot(id, &s)) != CKR_OK)
		return rv;
	if ((r = p11_request(s, status, &ident)) != 0)
		return r == P256SIGN_E_NOMEM ? CKR_HOST_MEMORY : CKR_TOKEN_NOT_PRESENT;
	memset(info, 0, sizeof(*info));
	p11_pad(info->label, sizeof(info->label), s->label);
	p11_pad(info->manufacturerID, sizeof(info->manufacturerID), P11_MANUFACTURER);
	p11_pad(info->model, sizeof(info->model), "p256signd");
	snprintf(serial, sizeof(serial), "%016llx", (unsigned long long)ident.serial);
	p11_pad(info->serialNumber, sizeof(info->serialNumber), serial);
	info->flags = CKF_TOKEN_INITIALIZED | CKF_USER_PIN_INITIALIZED | CKF_RNG;
	info->ulMaxSessionCount = CK_EFFECTIVELY_INFINITE;
	info->ulSessionCount = CK_UNAVAILABLE_INFORMATION;
	info->ulMaxRwSessionCount = CK_EFFECTIVELY_INFINITE;
	info->ulRwSessionCount = CK_UNAVAILABLE_INFORMATION;
	info->ulMaxPinLen = 255;
	info->ulMinPinLen = 0;
	info->ulTotalPublicMemory = CK_UNAVAILABLE_INFORMATION;
	info->ulFreePublicMemory = CK_UNAVAILABLE_INFORMATION;
	info->ulTotalPrivateMemory = CK_UNAVAILABLE_INFORMATION;
	info->ulFreePrivateMemory = CK_UNAVAILABLE_INFORMATION;
	parse_version(ident.version, &info->firmwareVersion);
	info->hardwareVersion = info->firmwareVersion;
	return CKR_OK;
}

/* C_GetMechanismList's and C_GetMechanismInfo's checks: where the answer goes (answer: NULL is
 * CKR_ARGUMENTS_BAD), then the slot, whose mechanisms are every slot's. */
static CK_RV check_mechanism_query(CK_SLOT_ID id, const void *answer)
{
	struct p11_slot *s;

	if (answer == NULL)
		return CKR_ARGUMENTS_BAD;
	return p11_find_slot(id, &s);
}

CK_RV p11_C_GetMechanismList(CK_SLOT_ID id, CK_MECHANISM_TYPE_PTR list, CK_ULONG_PTR count)
{
	CK_RV rv = check_mechanism_query(id, count);

	if (rv != CKR_OK)
		return rv;
	return answer_list(list, count, p11_mechanisms, p11_nmechanisms, sizeof(p11_mechanisms[0]));
}

CK_RV p11_C_GetMechanismInfo(CK_SLOT_ID id, CK_MECHANISM_TYPE type, CK_MECHANISM_INFO_PTR info)
{
	CK_RV rv = check_mechanism_query(id, info);

	if (rv != CKR_OK)
		return rv;
	if (type != CKM_ECDSA && type != CKM_ECDSA_SHA256)
		return CKR_MECHANISM_INVALID;
	/* P-256 only; signing only (verification is the caller's, with the public key); CKF_HW:
	 * done by the token (the daemon), not by this library. */
	info->ulMinKeySize = 256;
	info->ulMaxKeySize = 256;
	info->flags = CKF_HW | CKF_SIGN | CKF_EC_F_P | CKF_EC_NAMEDCURVE | CKF_EC_UNCOMPRESS;
	return CKR_OK;
}
