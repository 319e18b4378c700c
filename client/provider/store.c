/* SPDX-License-Identifier: ISC */
/*
 * The store loader of `p256sign:` URIs (OSSL_STORE: openssl -key, nginx 1.29's store:). Loading
 * asks the daemon for the public key, so a missing daemon or an unknown key is an error at key
 * load, with the daemon's reason; the loaded object is a key reference (struct keyref) that the
 * keymgmt's load turns into a key. There is no export_object: libcrypto then falls back to that
 * load instead of importing the key into another provider.
 */
#include <openssl/core_names.h>
#include <openssl/core_object.h>
#include <openssl/params.h>
#include <stdlib.h>

#include "keyref.h"
#include "provider.h"

struct store_ctx {
	struct keyref ref;
	int eof;
};

static void *store_open(void *provctx, const char *uri)
{
	struct store_ctx *s = calloc(1, sizeof(*s));

	if (s == NULL) {
		prov_error(provctx, PROV_R_NOMEM, "store context");
		return NULL;
	}
	if (keyref_parse_uri(provctx, uri, &s->ref) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

static int store_load(void *loaderctx, OSSL_CALLBACK *object_cb, void *object_cbarg,
	OSSL_PASSPHRASE_CALLBACK *pw_cb, void *pw_cbarg)
{
	struct store_ctx *s = loaderctx;
	int type = OSSL_OBJECT_PKEY;
	OSSL_PARAM params[4];

	s->eof = 1;	/* one object per URI, loaded or not */
	if (keyref_resolve(&s->ref) != 0)
		return 0;
	params[0] = OSSL_PARAM_construct_int(OSSL_OBJECT_PARAM_TYPE, &type);
	params[1] = OSSL_PARAM_construct_utf8_string(OSSL_OBJECT_PARAM_DATA_TYPE, (char *)"EC", 0);
	params[2] = OSSL_PARAM_construct_octet_string(OSSL_OBJECT_PARAM_REFERENCE, &s->ref,
		sizeof(s->ref));
	params[3] = OSSL_PARAM_construct_end();
	return object_cb(params, object_cbarg);
}

static int store_eof(void *loaderctx)
{
	return ((struct store_ctx *)loaderctx)->eof;
}

static int store_close(void *loaderctx)
{
	free(loaderctx);
	return 1;
}

const OSSL_DISPATCH prov_store_functions[] = {
	{ OSSL_FUNC_STORE_OPEN, (void (*)(void))store_open },
	{ OSSL_FUNC_STORE_LOAD, (void (*)(void))store_load },
	{ OSSL_FUNC_STORE_EOF, (void (*)(void))store_eof },
	{ OSSL_FUNC_STORE_CLOSE, (void (*)(void))store_close },
	{ 0, NULL }
};
