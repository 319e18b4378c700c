/* SPDX-License-Identifier: ISC */
/*
 * A key's purpose, read at key load from the daemon's key list (LIST_KEYS), so that the
 * provider refuses a signature the purpose does not allow before sending anything (docs/config.md,
 * `purpose`): a key of purpose tls-server or tls-client signs TLS handshakes only (SIGN_TLS), of
 * its own side; a key of purpose audit seals the daemon's audit log and signs nothing for a
 * client. An application that asks for such a signature (`openssl pkeyutl -sign`) gets the
 * reason from the provider rather than a request denied by the daemon. The daemon refuses it
 * again whatever the provider does: this check is for a clear error, not the guard.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "purpose.h"

/* The entry of keys[] whose key_id is id, or NULL. */
static json_t *find_key(json_t *list, const uint8_t id[P256SIGN_KEY_ID_LEN])
{
	char want[2 * P256SIGN_KEY_ID_LEN + 1];
	json_t *keys = json_object_get(list, "keys"), *k;
	const char *kid;
	size_t i;

	p256sign_key_id_format(id, want);
	json_array_foreach(keys, i, k)
		if ((kid = json_string_value(json_object_get(k, "key_id"))) != NULL &&
		    strcmp(kid, want) == 0)
			return k;
	return NULL;
}

int purpose_fetch(struct p256sign *h, const uint8_t id[P256SIGN_KEY_ID_LEN],
	char purpose[PURPOSE_MAX + 1])
{
	char *text = NULL;
	json_t *list = NULL, *k;
	const char *p;
	int r;

	purpose[0] = '\0';
	if ((r = p256sign_list_keys(h, &text)) != 0)
		goto out;
	r = P256SIGN_E_PROTOCOL;
	if ((list = json_loads(text, 0, NULL)) == NULL || !json_is_array(json_object_get(list,
	    "keys")))
		goto out;
	r = 0;
	/* Not listed (a daemon older than purposes): the daemon alone decides. */
	if ((k = find_key(list, id)) == NULL ||
	    (p = json_string_value(json_object_get(k, "purpose"))) == NULL)
		goto out;
	if (strlen(p) > PURPOSE_MAX) {
		r = P256SIGN_E_PROTOCOL;
		goto out;
	}
	memcpy(purpose, p, strlen(p) + 1);
out:
	json_decref(list);
	free(text);
	return r;
}

const char *purpose_refusal(const char *purpose, const struct p256sign_tls *tls)
{
	if (strcmp(purpose, "audit") == 0)
		return "it seals the daemon's audit log and signs nothing else";
	if (strcmp(purpose, "tls-server") == 0 || strcmp(purpose, "tls-client") == 0) {
		int server = strcmp(purpose, "tls-server") == 0;

		if (tls == NULL)
			return "it signs TLS handshakes only";
		/* A TLS 1.2 ServerKeyExchange is a server's (side P256SIGN_TLS_SERVER). */
		if ((tls->side == P256SIGN_TLS_SERVER) != server)
			return server ? "it signs TLS server handshakes only" :
			    "it signs TLS client handshakes only";
	}
	/* any, "" (a daemon older than purposes) or a purpose this provider does not know: the
	 * daemon alone decides. */
	return NULL;
}
