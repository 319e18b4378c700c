/* SPDX-License-Identifier: ISC */
/*
 * A slot's requests to its daemon, on the slot's libp256sign handle: opened on first use, kept,
 * and used under the slot's handle lock by one request at a time. libp256sign reconnects the
 * handle's connection by itself after a daemon restart, a timeout or a fork, and bounds every
 * request by the slot's timeout. Also the PKCS#11 code for a request's libp256sign error.
 */
#include "p11.h"

int p11_request(struct p11_slot *s, p11_request_fn *fn, void *arg)
{
	int r;

	if (pthread_mutex_lock(&s->handle_lock) != 0)
		return P256SIGN_E_INTERNAL;
	if (s->h == NULL) {
		r = p256sign_connect(&s->h, s->socket[0] != '\0' ? s->socket : NULL);
		if (r == 0 && (r = p256sign_set_timeout(s->h, s->timeout_ms)) != 0) {
			p256sign_close(s->h);
			s->h = NULL;
		}
		if (r != 0)
			goto out;
	}
	r = fn(s->h, arg);
out:
	(void)pthread_mutex_unlock(&s->handle_lock);
	return r;
}

/* The PKCS#11 code a caller acts on for a libp256sign error. */
CK_RV p11_rv(int e)
{
	switch (e) {
	case 0:
		return CKR_OK;
	case P256SIGN_E_DENIED:
		return CKR_KEY_FUNCTION_NOT_PERMITTED;
	case P256SIGN_E_UNKNOWN_KEY:
		return CKR_KEY_HANDLE_INVALID;
	case P256SIGN_E_INVALID:
	case P256SIGN_E_BAD_KEY_SELECTOR:
		return CKR_ARGUMENTS_BAD;
	case P256SIGN_E_MESSAGE_TOO_LARGE:
		return CKR_DATA_LEN_RANGE;
	case P256SIGN_E_NOMEM:
		return CKR_HOST_MEMORY;
	case P256SIGN_E_BUFFER:
		return CKR_BUFFER_TOO_SMALL;
	case P256SIGN_E_CONNECT:
	case P256SIGN_E_CLOSED:
	case P256SIGN_E_TIMEOUT:
	case P256SIGN_E_IO:
	case P256SIGN_E_SHUTTING_DOWN:
	case P256SIGN_E_TOO_MANY_CONNECTIONS:
	case P256SIGN_E_OVERLOADED:
	case P256SIGN_E_DAEMON_TIMEOUT:
	case P256SIGN_E_AUDIT_UNAVAILABLE:
		return CKR_DEVICE_ERROR;
	default:
		return CKR_FUNCTION_FAILED;
	}
}
