/* SPDX-License-Identifier: ISC */
/*
 * Key references: parsing `p256sign:` URIs, resolving a reference at key load (the daemon's
 * public key, the socket path fixed for good) and signing a digest through the daemon.
 */
#include <errno.h>
#include <openssl/async.h>
#include <stdio.h>
#include <string.h>

#include "async.h"
#include "keyref.h"
#include "provider.h"
#include "purpose.h"
#include "session.h"

#define SCHEME "p256sign:"
#define ID_PREFIX "id="
#define SOCKET_PREFIX ";socket="

void keyref_init(struct keyref *ref, const struct prov_ctx *prov)
{
	memset(ref, 0, sizeof(*ref));
	ref->magic = KEYREF_MAGIC;
	ref->prov = prov;
	ref->timeout_ms = prov->timeout_ms;
}

/* The URI's attribute (attr: from its ';', or NULL when it has none) into ref->socket. */
static int parse_socket_attr(const char *uri, const char *attr, struct keyref *ref)
{
	if (attr == NULL)
		return 0;
	if (strncmp(attr, SOCKET_PREFIX, strlen(SOCKET_PREFIX)) != 0) {
		prov_error(ref->prov, PROV_R_BAD_URI, "%s: the only attribute is socket=PATH", uri);
		return -1;
	}
	attr += strlen(SOCKET_PREFIX);
	if (attr[0] == '\0' || strlen(attr) >= sizeof(ref->socket)) {
		prov_error(ref->prov, PROV_R_BAD_URI, "%s: socket path empty or longer than %zu bytes",
			uri, sizeof(ref->socket) - 1);
		return -1;
	}
	memcpy(ref->socket, attr, strlen(attr) + 1);
	return 0;
}

/* The URI's key selector (len bytes at sel), `id=HEX` or a key name, into ref. */
static int parse_selector(const char *uri, const char *sel, size_t len, struct keyref *ref)
{
	if (len > strlen(ID_PREFIX) && strncmp(sel, ID_PREFIX, strlen(ID_PREFIX)) == 0) {
		ref->by_id = 1;
		if (p256sign_key_id_parse(sel + strlen(ID_PREFIX), len - strlen(ID_PREFIX),
			ref->id) != 0) {
			prov_error(ref->prov, PROV_R_BAD_URI, "%s: id= needs %zu hex digits", uri,
				2 * sizeof(ref->id));
			return -1;
		}
		return 0;
	}
	/* The name's characters are checked by libp256sign, which knows the protocol's rule. */
	if (len == 0 || len > P256SIGN_KEYREF_NAME_MAX) {
		prov_error(ref->prov, PROV_R_BAD_URI, "%s: a key name has 1 to %d characters", uri,
			P256SIGN_KEYREF_NAME_MAX);
		return -1;
	}
	memcpy(ref->name, sel, len);
	return 0;
}

int keyref_parse_uri(const struct prov_ctx *prov, const char *uri, struct keyref *ref)
{
	const char *sel, *attr;

	keyref_init(ref, prov);
	if (prov->config_error[0] != '\0') {
		prov_error(prov, PROV_R_CONFIG, "%s", prov->config_error);
		return -1;
	}
	if (strncmp(uri, SCHEME, strlen(SCHEME)) != 0) {
		prov_error(prov, PROV_R_BAD_URI, "%s: does not start with " SCHEME, uri);
		return -1;
	}
	sel = uri + strlen(SCHEME);
	attr = strchr(sel, ';');
	if (parse_socket_attr(uri, attr, ref) != 0)
		return -1;
	return parse_selector(uri, sel, attr != NULL ? (size_t)(attr - sel) : strlen(sel), ref);
}

struct p256sign_key keyref_selector(const struct keyref *ref)
{
	return ref->by_id ? (struct p256sign_key){ .id = ref->id } :
		(struct p256sign_key){ .name = ref->name };
}

/* The key as an error message names it. */
static const char *describe(const struct keyref *ref, char out[P256SIGN_KEYREF_NAME_MAX + 4])
{
	char hex[2 * P256SIGN_KEY_ID_LEN + 1];

	if (!ref->by_id)
		return ref->name;
	p256sign_key_id_format(ref->id, hex);
	/* the first half is enough to recognise it */
	snprintf(out, P256SIGN_KEYREF_NAME_MAX + 4, "id=%.*s", P256SIGN_KEY_ID_LEN, hex);
	return out;
}

/* Raises the error of a failed daemon call r; errno still tells why a connect failed. */
static void daemon_error(const struct keyref *ref, const char *what, int r)
{
	char key[P256SIGN_KEYREF_NAME_MAX + 4];
	const char *path = ref->socket[0] != '\0' ? ref->socket :
		"the default socket ($" P256SIGN_SOCKET_ENV " or " P256SIGN_SOCKET_DEFAULT ")";

	if (r == P256SIGN_E_CONNECT || r == P256SIGN_E_IO)
		prov_error(ref->prov, PROV_R_DAEMON, "%s key %s at %s: %s: %s", what,
			describe(ref, key), path, p256sign_strerror(r), strerror(errno));
	else
		prov_error(ref->prov, PROV_R_DAEMON, "%s key %s at %s: %s", what,
			describe(ref, key), path, p256sign_strerror(r));
}

/* What keyref_resolve asks: the public key, its purpose, and the socket path the connection
 * used. */
struct pubkey_call {
	const struct keyref *ref;
	struct p256sign_pubkey pub;
	char purpose[PURPOSE_MAX + 1];
	char socket[P256SIGN_KEYREF_SOCKET_MAX + 1];
};

static int pubkey_fn(struct p256sign *h, void *arg)
{
	struct pubkey_call *c = arg;
	struct p256sign_key sel = keyref_selector(c->ref);
	const char *path = p256sign_socket_path(h);
	int r;

	if (strlen(path) >= sizeof(c->socket))
		return P256SIGN_E_INVALID;
	memcpy(c->socket, path, strlen(path) + 1);
	if ((r = p256sign_get_pubkey(h, &sel, &c->pub)) != 0)
		return r;
	return purpose_fetch(h, c->pub.key_id, c->purpose);
}

int keyref_resolve(struct keyref *ref)
{
	struct pubkey_call call = { .ref = ref };
	const char *path = ref->socket;
	int r;

	if (path[0] == '\0')
		path = ref->prov->socket[0] != '\0' ? ref->prov->socket : NULL;
	if ((r = session_call(path, ref->timeout_ms, pubkey_fn, &call)) != 0) {
		if (path != NULL && ref->socket[0] == '\0')
			memcpy(ref->socket, path, strlen(path) + 1);
		daemon_error(ref, "loading", r);
		return -1;
	}
	/* The socket is fixed now: nothing is looked up again after the key is loaded. */
	memcpy(ref->socket, call.socket, sizeof(ref->socket));
	if (ref->by_id && memcmp(call.pub.key_id, ref->id, sizeof(ref->id)) != 0) {
		daemon_error(ref, "loading", P256SIGN_E_PROTOCOL);
		return -1;
	}
	memcpy(ref->point, call.pub.point, sizeof(ref->point));
	memcpy(ref->purpose, call.purpose, sizeof(ref->purpose));
	return 0;
}

/* What keyref_sign asks. */
struct sign_call {
	const struct keyref *ref;
	const struct sign_input *in;
	uint8_t *sig;
	size_t cap;
	size_t *len;
};

static int sign_fn(struct p256sign *h, void *arg)
{
	struct sign_call *c = arg;
	struct p256sign_key sel = keyref_selector(c->ref);

	if (c->in->tls != NULL)
		return p256sign_sign_tls(h, &sel, c->in->tls, P256SIGN_DER, c->sig, c->cap, c->len);
	return p256sign_sign_digest(h, &sel, c->in->digest, P256SIGN_DER, c->sig, c->cap, c->len);
}

int keyref_sign(const struct keyref *ref, const struct sign_input *in, uint8_t *sig, size_t cap,
	size_t *len)
{
	struct sign_call call = { .ref = ref, .in = in, .sig = sig, .cap = cap, .len = len };
	struct p256sign_key sel = keyref_selector(ref);
	int r;

	/* Inside an ASYNC job the job pauses instead of the thread blocking. */
	r = ASYNC_NOT_HERE;
	if (ASYNC_get_current_job() != NULL)
		r = async_sign(ref->socket, ref->timeout_ms, &sel, in, sig, cap, len);
	if (r == ASYNC_NOT_HERE)
		r = session_call(ref->socket, ref->timeout_ms, sign_fn, &call);
	if (r != 0) {
		daemon_error(ref, "signing with", r);
		return -1;
	}
	return 0;
}
