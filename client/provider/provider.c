/* SPDX-License-Identifier: ISC */
/*
 * The provider's entry point: OSSL_provider_init, its parameters and the fixed algorithm tables.
 * Init never fails for a missing daemon (OpenSSL hides a failed init and the key load would then
 * fail with a confusing decoder error); it does no I/O at all. A bad configuration value is
 * reported at the first key load.
 */
#include <errno.h>
#include <limits.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "provider.h"
#include "session.h"

#define PROPS "provider=p256sign"

static const OSSL_ALGORITHM keymgmt_algs[] = {
	{ "EC:id-ecPublicKey:1.2.840.10045.2.1", PROPS, prov_keymgmt_functions,
		"EC P-256 keys held by p256signd" },
	{ NULL, NULL, NULL, NULL }
};

static const OSSL_ALGORITHM signature_algs[] = {
	{ "ECDSA", PROPS, prov_signature_functions, "ECDSA through p256signd" },
	{ NULL, NULL, NULL, NULL }
};

/* Key-reference files, in two steps (decoder.c). */
static const OSSL_ALGORITHM decoder_algs[] = {
	{ "DER", PROPS ",input=pem", prov_pem_decoder_functions, P256SIGN_KEYREF_PEM_LABEL " blocks" },
	{ "EC", PROPS ",input=der,structure=p256sign-keyref", prov_der_decoder_functions,
		"p256signd keys from key references" },
	{ NULL, NULL, NULL, NULL }
};

static const OSSL_ALGORITHM store_algs[] = {
	{ "p256sign", PROPS, prov_store_functions, "p256sign: key URIs" },
	{ NULL, NULL, NULL, NULL }
};

static const OSSL_ALGORITHM *prov_query(void *provctx, int operation_id, int *no_cache)
{
	*no_cache = 0;	/* complete from init on: nothing is added later */
	switch (operation_id) {
	case OSSL_OP_KEYMGMT:
		return keymgmt_algs;
	case OSSL_OP_SIGNATURE:
		return signature_algs;
	case OSSL_OP_STORE:
		return store_algs;
	case OSSL_OP_DECODER:
		return decoder_algs;
	default:
		return NULL;
	}
}

static const OSSL_PARAM prov_param_types[] = {
	OSSL_PARAM_DEFN(OSSL_PROV_PARAM_NAME, OSSL_PARAM_UTF8_PTR, NULL, 0),
	OSSL_PARAM_DEFN(OSSL_PROV_PARAM_VERSION, OSSL_PARAM_UTF8_PTR, NULL, 0),
	OSSL_PARAM_DEFN(OSSL_PROV_PARAM_STATUS, OSSL_PARAM_INTEGER, NULL, 0),
	OSSL_PARAM_END
};

static const OSSL_PARAM *prov_gettable_params(void *provctx)
{
	return prov_param_types;
}

static int prov_get_params(void *provctx, OSSL_PARAM params[])
{
	OSSL_PARAM *p;

	if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_NAME)) != NULL &&
	    !OSSL_PARAM_set_utf8_ptr(p, "p256sign provider for p256signd"))
		return 0;
	if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_VERSION)) != NULL &&
	    !OSSL_PARAM_set_utf8_ptr(p, P256SIGN_VERSION))
		return 0;
	if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_STATUS)) != NULL &&
	    !OSSL_PARAM_set_int(p, 1))
		return 0;
	return 1;
}

static const OSSL_ITEM *prov_reasons(void *provctx)
{
	return prov_reason_strings;
}

static void prov_teardown(void *provctx)
{
	struct prov_ctx *prov = provctx;

	session_release_thread();
	for (size_t i = 0; i < sizeof(prov->md) / sizeof(prov->md[0]); i++)
		EVP_MD_free(prov->md[i]);
	OSSL_LIB_CTX_free(prov->libctx);
	free(prov);
}

static const OSSL_DISPATCH prov_functions[] = {
	{ OSSL_FUNC_PROVIDER_TEARDOWN, (void (*)(void))prov_teardown },
	{ OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, (void (*)(void))prov_gettable_params },
	{ OSSL_FUNC_PROVIDER_GET_PARAMS, (void (*)(void))prov_get_params },
	{ OSSL_FUNC_PROVIDER_QUERY_OPERATION, (void (*)(void))prov_query },
	{ OSSL_FUNC_PROVIDER_GET_REASON_STRINGS, (void (*)(void))prov_reasons },
	{ 0, NULL }
};

/*
 * openssl.cnf's `socket` and `timeout_ms` in the provider's section. A value that does not fit
 * is kept as a message for the first key load to raise.
 */
static void read_config(struct prov_ctx *prov, OSSL_FUNC_core_get_params_fn *get_params)
{
	const char *socket = NULL, *timeout = NULL;
	OSSL_PARAM params[] = {
		OSSL_PARAM_utf8_ptr("socket", (char **)&socket, 0),
		OSSL_PARAM_utf8_ptr("timeout_ms", (char **)&timeout, 0),
		OSSL_PARAM_END
	};
	char *end;
	long ms;

	if (get_params == NULL || !get_params(prov->handle, params))
		return;
	if (socket != NULL && strlen(socket) < sizeof(prov->socket))
		memcpy(prov->socket, socket, strlen(socket) + 1);
	else if (socket != NULL)
		snprintf(prov->config_error, sizeof(prov->config_error),
			"openssl.cnf: socket: longer than %zu bytes", sizeof(prov->socket) - 1);
	if (timeout == NULL)
		return;
	errno = 0;
	ms = strtol(timeout, &end, 10);
	if (errno == 0 && end != timeout && *end == '\0' && ms >= 1 && ms <= INT_MAX)
		prov->timeout_ms = (int)ms;
	else
		snprintf(prov->config_error, sizeof(prov->config_error),
			"openssl.cnf: timeout_ms: %.40s is not a number of milliseconds", timeout);
}

/* The module's one exported symbol (the project builds with -fvisibility=hidden). */
__attribute__((visibility("default"))) int OSSL_provider_init(const OSSL_CORE_HANDLE *handle,
	const OSSL_DISPATCH *in, const OSSL_DISPATCH **out, void **provctx);

int OSSL_provider_init(const OSSL_CORE_HANDLE *handle, const OSSL_DISPATCH *in,
	const OSSL_DISPATCH **out, void **provctx)
{
	static const char *const md_names[] = { "SHA2-256", "SHA2-384", "SHA2-512" };
	OSSL_FUNC_core_get_params_fn *get_params = NULL;
	struct prov_ctx *prov;

	if ((prov = calloc(1, sizeof(*prov))) == NULL)
		return 0;	/* the one failure: nothing could work */
	prov->handle = handle;
	prov->timeout_ms = P256SIGN_TIMEOUT_DEFAULT;
	for (; in->function_id != 0; in++) {
		switch (in->function_id) {
		case OSSL_FUNC_CORE_GET_PARAMS:
			get_params = OSSL_FUNC_core_get_params(in);
			break;
		case OSSL_FUNC_CORE_NEW_ERROR:
			prov->new_error = OSSL_FUNC_core_new_error(in);
			break;
		case OSSL_FUNC_CORE_VSET_ERROR:
			prov->vset_error = OSSL_FUNC_core_vset_error(in);
			break;
		case OSSL_FUNC_BIO_READ_EX:
			prov->bio_read_ex = OSSL_FUNC_BIO_read_ex(in);
			break;
		default:
			break;
		}
	}
	read_config(prov, get_params);
	/*
	 * Hashing uses a library context of the provider's own, holding only OpenSSL's default
	 * provider: the application's may hold this provider itself, or no digest at all.
	 */
	if ((prov->libctx = OSSL_LIB_CTX_new()) != NULL)
		for (size_t i = 0; i < sizeof(md_names) / sizeof(md_names[0]); i++)
			prov->md[i] = EVP_MD_fetch(prov->libctx, md_names[i], NULL);
	*out = prov_functions;
	*provctx = prov;
	return 1;
}
