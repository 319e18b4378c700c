/* SPDX-License-Identifier: ISC */
#ifndef P256SIGN_PROVIDER_H
#define P256SIGN_PROVIDER_H

/*
 * The OpenSSL 3 provider "p256sign": keys that live in p256signd, used through libp256sign's
 * public API only (p256sign.h). This header: the provider's state, its errors and its algorithm
 * tables, which every file uses; each of the others (keyref.h, keymgmt.h, purpose.h, async.h,
 * session.h, lane.h, sign-input.h) is included by the files that use it.
 *
 * Calls run downwards only: provider.c (init, algorithm tables) -> store.c, decoder.c,
 * keymgmt.c, signature.c -> keyref.c -> async.c -> session.c -> lane.c; besides, provider.c ->
 * session.c (teardown), keyref.c -> session.c, purpose.c; signature.c -> purpose.c; async.c ->
 * lane.c; all -> errors.c, and libp256sign.
 */

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/evp.h>

#include "p256sign.h"

/* Reason codes of the provider's errors (ERR_GET_REASON); their texts are in errors.c. */
enum prov_reason {
	PROV_R_BAD_URI = 1,		/* a p256sign: URI that does not parse */
	PROV_R_DAEMON,			/* p256signd could not be reached or refused a request */
	PROV_R_NOT_A_DAEMON_KEY,	/* a public key only: nothing to sign with */
	PROV_R_BAD_DIGEST,		/* a digest other than SHA-256, SHA-384, SHA-512 */
	PROV_R_BAD_INPUT_LENGTH,	/* a pre-hashed input of the wrong length */
	PROV_R_BUFFER,			/* the caller's signature buffer is too small */
	PROV_R_PRIVATE_EXPORT,		/* the private half cannot leave p256signd */
	PROV_R_BAD_KEY,			/* import: not a P-256 public key */
	PROV_R_BAD_KEYREF,		/* a key-reference file that does not parse */
	PROV_R_CONFIG,			/* a provider parameter in openssl.cnf that does not fit */
	PROV_R_NOMEM,
	PROV_R_PURPOSE,			/* a signature the key's purpose does not allow */
};

/* The provider's state: one per library context that loaded it. */
struct prov_ctx {
	const OSSL_CORE_HANDLE *handle;
	OSSL_FUNC_core_new_error_fn *new_error;
	OSSL_FUNC_core_vset_error_fn *vset_error;
	OSSL_FUNC_BIO_read_ex_fn *bio_read_ex;	/* the decoder's input */
	/* From openssl.cnf: socket path ("" = libp256sign's own choice) and timeout. */
	char socket[P256SIGN_KEYREF_SOCKET_MAX + 1];
	int timeout_ms;
	char config_error[128];	/* "" or what was wrong in openssl.cnf, raised at key load */
	/* Digests for hashing locally, fetched at init from a library context of our own. */
	OSSL_LIB_CTX *libctx;
	EVP_MD *md[3];		/* SHA2-256, SHA2-384, SHA2-512; NULL if the fetch failed */
};

/* errors.c: raises an OpenSSL error of the provider with a printf-style detail. */
void prov_error(const struct prov_ctx *prov, int reason, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The reason texts, for OSSL_FUNC_PROVIDER_GET_REASON_STRINGS. */
extern const OSSL_ITEM prov_reason_strings[];

/* The provider's algorithm tables (keymgmt.c, signature.c, store.c, decoder.c). */
extern const OSSL_DISPATCH prov_keymgmt_functions[];
extern const OSSL_DISPATCH prov_signature_functions[];
extern const OSSL_DISPATCH prov_store_functions[];
extern const OSSL_DISPATCH prov_pem_decoder_functions[];
extern const OSSL_DISPATCH prov_der_decoder_functions[];

#endif
