/* SPDX-License-Identifier: ISC */
/*
 * Key management for "EC" keys held by p256signd. A key object is a reference plus its public
 * point, fetched once at load: has, match, export and the parameters never talk to the daemon.
 * No key generation and no TLS-GROUP capability, so libssl never picks this keymgmt for its
 * ephemeral ECDHE keys; the private half is never exported.
 */
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <stdlib.h>
#include <string.h>

#include "keymgmt.h"
#include "provider.h"

/* The name libssl maps through OBJ_txt2nid; "P-256" would give NID_undef there. */
#define GROUP_NAME "prime256v1"

static void *key_new(void *provctx)
{
	struct prov_key *k = calloc(1, sizeof(*k));

	if (k == NULL) {
		prov_error(provctx, PROV_R_NOMEM, "key object");
		return NULL;
	}
	k->prov = provctx;
	return k;
}

static void key_free(void *keydata)
{
	free(keydata);
}

/* The reference comes from our store or decoder, by value (struct keyref). */
static void *key_load(const void *reference, size_t reference_sz)
{
	struct prov_key *k;
	struct keyref ref;

	if (reference == NULL || reference_sz != sizeof(ref))
		return NULL;
	memcpy(&ref, reference, sizeof(ref));
	if (ref.magic != KEYREF_MAGIC || (k = key_new((void *)ref.prov)) == NULL)
		return NULL;
	k->ref = ref;
	k->has_ref = 1;
	memcpy(k->point, ref.point, sizeof(k->point));
	k->has_point = 1;
	return k;
}

static void *key_dup(const void *keydata, int selection)
{
	const struct prov_key *from = keydata;
	struct prov_key *k = key_new((void *)from->prov);

	if (k == NULL)
		return NULL;
	*k = *from;
	if (!(selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY))
		k->has_ref = 0;
	if (!(selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY))
		k->has_point = 0;
	return k;
}

/* Domain parameters are always there: every key is on P-256. */
static int key_has(const void *keydata, int selection)
{
	const struct prov_key *k = keydata;

	if (k == NULL)
		return 0;
	if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) && !k->has_ref)
		return 0;
	if ((selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) && !k->has_point)
		return 0;
	return 1;
}

/* The public point identifies the key pair; the curve is the same for all. */
static int key_match(const void *keydata1, const void *keydata2, int selection)
{
	const struct prov_key *a = keydata1, *b = keydata2;

	if (!(selection & OSSL_KEYMGMT_SELECT_KEYPAIR))
		return 1;
	return a->has_point && b->has_point && memcmp(a->point, b->point, sizeof(a->point)) == 0;
}

static int is_p256(const char *name)
{
	return OPENSSL_strcasecmp(name, GROUP_NAME) == 0 || OPENSSL_strcasecmp(name, "P-256") == 0 ||
		OPENSSL_strcasecmp(name, "secp256r1") == 0;
}

/* Public keys only (a certificate's key for EVP_PKEY_eq): a private scalar is not taken in. */
static int key_import(void *keydata, int selection, const OSSL_PARAM params[])
{
	struct prov_key *k = keydata;
	const OSSL_PARAM *p;
	const char *group = NULL;
	const void *pub = NULL;
	size_t pub_len = 0;

	if (k == NULL || OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PRIV_KEY) != NULL)
		return 0;
	/* The curve is implied unless the domain parameters are asked for. */
	p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_GROUP_NAME);
	if ((p == NULL && (selection & OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS)) ||
	    (p != NULL && (!OSSL_PARAM_get_utf8_string_ptr(p, &group) || !is_p256(group)))) {
		prov_error(k->prov, PROV_R_BAD_KEY, "the group is not %s", GROUP_NAME);
		return 0;
	}
	if (!(selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY))
		return 1;
	p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PUB_KEY);
	if (p == NULL || !OSSL_PARAM_get_octet_string_ptr(p, &pub, &pub_len) ||
	    pub_len != P256SIGN_POINT_LEN || p256sign_point_check(pub) != 0) {
		prov_error(k->prov, PROV_R_BAD_KEY, "no uncompressed point on the curve");
		return 0;
	}
	memcpy(k->point, pub, sizeof(k->point));
	k->has_point = 1;
	return 1;
}

static const OSSL_PARAM key_io_types[] = {
	OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, NULL, 0),
	OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PUB_KEY, NULL, 0),
	OSSL_PARAM_END
};

static const OSSL_PARAM *key_io_types_fn(int selection)
{
	return key_io_types;
}

/*
 * libssl 3.0 tries to export the key into the default provider on every signature set-up
 * (do_sigver_init): a successful public-only export would send the signature there without a
 * private key, so any selection with the private part fails, silently (it is expected).
 */
static int key_export(void *keydata, int selection, OSSL_CALLBACK *cb, void *cbarg)
{
	struct prov_key *k = keydata;
	OSSL_PARAM params[3];
	size_t n = 0;

	if (k == NULL || ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) && k->has_ref))
		return 0;
	params[n++] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME,
		(char *)GROUP_NAME, 0);
	if ((selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) && k->has_point)
		params[n++] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, k->point,
			sizeof(k->point));
	params[n] = OSSL_PARAM_construct_end();
	return cb(params, cbarg);
}

static int key_get_params(void *keydata, OSSL_PARAM params[])
{
	struct prov_key *k = keydata;
	OSSL_PARAM *p;

	if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_BITS)) != NULL &&
	    !OSSL_PARAM_set_int(p, 256))
		return 0;
	if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_SECURITY_BITS)) != NULL &&
	    !OSSL_PARAM_set_int(p, 128))
		return 0;
	if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_MAX_SIZE)) != NULL &&
	    !OSSL_PARAM_set_int(p, P256SIGN_SIG_MAX))
		return 0;
	if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_GROUP_NAME)) != NULL &&
	    !OSSL_PARAM_set_utf8_string(p, GROUP_NAME))
		return 0;
	if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_DEFAULT_DIGEST)) != NULL &&
	    !OSSL_PARAM_set_utf8_string(p, "SHA256"))
		return 0;
	if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_EC_POINT_CONVERSION_FORMAT)) != NULL &&
	    !OSSL_PARAM_set_utf8_string(p, "uncompressed"))
		return 0;
	if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY)) != NULL &&
	    (!k->has_point || !OSSL_PARAM_set_octet_string(p, k->point, sizeof(k->point))))
		return 0;
	return 1;
}

static const OSSL_PARAM key_gettable[] = {
	OSSL_PARAM_int(OSSL_PKEY_PARAM_BITS, NULL),
	OSSL_PARAM_int(OSSL_PKEY_PARAM_SECURITY_BITS, NULL),
	OSSL_PARAM_int(OSSL_PKEY_PARAM_MAX_SIZE, NULL),
	OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, NULL, 0),
	OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_DEFAULT_DIGEST, NULL, 0),
	OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_EC_POINT_CONVERSION_FORMAT, NULL, 0),
	OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, NULL, 0),
	OSSL_PARAM_END
};

static const OSSL_PARAM *key_gettable_params(void *provctx)
{
	return key_gettable;
}

/* An "EC" key signs with "ECDSA". */
static const char *key_operation_name(int operation_id)
{
	return operation_id == OSSL_OP_SIGNATURE ? "ECDSA" : NULL;
}

const OSSL_DISPATCH prov_keymgmt_functions[] = {
	{ OSSL_FUNC_KEYMGMT_NEW, (void (*)(void))key_new },
	{ OSSL_FUNC_KEYMGMT_FREE, (void (*)(void))key_free },
	{ OSSL_FUNC_KEYMGMT_LOAD, (void (*)(void))key_load },
	{ OSSL_FUNC_KEYMGMT_DUP, (void (*)(void))key_dup },
	{ OSSL_FUNC_KEYMGMT_HAS, (void (*)(void))key_has },
	{ OSSL_FUNC_KEYMGMT_MATCH, (void (*)(void))key_match },
	{ OSSL_FUNC_KEYMGMT_IMPORT, (void (*)(void))key_import },
	{ OSSL_FUNC_KEYMGMT_IMPORT_TYPES, (void (*)(void))key_io_types_fn },
	{ OSSL_FUNC_KEYMGMT_EXPORT, (void (*)(void))key_export },
	{ OSSL_FUNC_KEYMGMT_EXPORT_TYPES, (void (*)(void))key_io_types_fn },
	{ OSSL_FUNC_KEYMGMT_GET_PARAMS, (void (*)(void))key_get_params },
	{ OSSL_FUNC_KEYMGMT_GETTABLE_PARAMS, (void (*)(void))key_gettable_params },
	{ OSSL_FUNC_KEYMGMT_QUERY_OPERATION_NAME, (void (*)(void))key_operation_name },
	{ 0, NULL }
};
