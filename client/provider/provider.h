/* SPDX-License-Identifier: ISC */
#ifndef P256SIGN_PROVIDER_H
#define P256SIGN_PROVIDER_H

/*
 * The OpenSSL 3 provider "p256sign": keys that live in p256signd, used through libp256sign's
 * public API only (p256sign.h). What the provider's files share.
 *
 * Calls run downwards only: provider.c (init, algorithm tables) -> store.c, decoder.c,
 * keymgmt.c, signature.c -> keyref.c -> conn.c, async.c, purpose.c -> errors.c, and
 * libp256sign.
 */

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/evp.h>
#include <stdint.h>

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

/*
 * A key reference: what a key object needs to sign through the daemon. Passed by value as the
 * OSSL_OBJECT_PARAM_REFERENCE of a loaded key (so it has no lifetime of its own); `magic` and the
 * size tell a reference of ours from anything else.
 */
#define KEYREF_MAGIC 0x70323536u	/* "p256" */
#define KEYREF_PURPOSE_MAX 15

struct keyref {
	uint32_t magic;
	const struct prov_ctx *prov;
	int by_id;				/* 1: id selects the key, 0: name */
	char name[P256SIGN_KEYREF_NAME_MAX + 1];
	uint8_t id[P256SIGN_KEY_ID_LEN];
	char socket[P256SIGN_KEYREF_SOCKET_MAX + 1];			/* "" until resolved */
	int timeout_ms;
	uint8_t point[P256SIGN_POINT_LEN];	/* the public key, from the daemon at load */
	char purpose[KEYREF_PURPOSE_MAX + 1];	/* the key's, from the daemon at load; "" unknown */
};

/* An empty reference of the provider's (no key named yet). */
void keyref_init(struct keyref *ref, const struct prov_ctx *prov);

/*
 * Parses a URI `p256sign:NAME` or `p256sign:id=HEX` (64 hex digits), optionally followed by
 * `;socket=PATH`, into *ref (not resolved yet). 0, or -1 with an error raised.
 */
int keyref_parse_uri(const struct prov_ctx *prov, const char *uri, struct keyref *ref);

/*
 * purpose.c: the purpose of the key with this id in the daemon's key list (LIST_KEYS) into
 * purpose ("" when the list does not say). 0 or a P256SIGN_E_* code.
 */
int purpose_fetch(struct p256sign *h, const uint8_t id[P256SIGN_KEY_ID_LEN],
	char purpose[KEYREF_PURPOSE_MAX + 1]);

/*
 * Why a key of this purpose may not sign the input, tls (SIGN_TLS) or a digest of the caller's
 * choosing (tls NULL, SIGN): a sentence for the error, or NULL when the provider sends it.
 */
const char *purpose_refusal(const char *purpose, const struct p256sign_tls *tls);

/*
 * Asks the daemon for the key's public point and purpose (the key load: a missing daemon or key is an error
 * here, not at the first signature) and fixes the socket path the key will use. 0 or -1 with an
 * error raised.
 */
int keyref_resolve(struct keyref *ref);

/*
 * A key object of the keymgmt. A key loaded from the store or a key-reference file holds a
 * reference (has_ref) and can sign; a key imported from another provider (a certificate's, for
 * EVP_PKEY_eq) holds only its public point.
 */
struct prov_key {
	const struct prov_ctx *prov;
	int has_ref;
	struct keyref ref;
	uint8_t point[P256SIGN_POINT_LEN];
	int has_point;
};

/* What to sign: a 32-byte digest, or (tls not NULL) a TLS handshake's parts (SIGN_TLS). */
struct sign_input {
	const uint8_t *digest;
	const struct p256sign_tls *tls;
};

/* Queues the request for in on h (SIGN or SIGN_TLS, DER). 0 or a P256SIGN_E_* code. */
int sign_submit(struct p256sign *h, const struct p256sign_key *sel, const struct sign_input *in,
	uint32_t *id);

/* Signs in; DER signature into sig (cap bytes), its length into *len. 0 or -1. */
int keyref_sign(const struct keyref *ref, const struct sign_input *in, uint8_t *sig, size_t cap,
	size_t *len);

/* The key's selector for libp256sign calls. */
struct p256sign_key keyref_selector(const struct keyref *ref);

/* A call on a connection: a libp256sign call, returning 0 or its P256SIGN_E_* code. */
typedef int conn_fn(struct p256sign *h, void *arg);

/*
 * Runs fn on the calling thread's connection to the daemon at `path` (one per process and
 * thread, opened on first use; libp256sign itself reconnects after a fork), each request with
 * timeout_ms. NULL path: libp256sign's default ($P256SIGN_SOCKET or the built-in path). A daemon
 * that cannot be reached is tried again for a short while (conn.c). 0 or a P256SIGN_E_* code.
 */
int conn_call(const char *path, int timeout_ms, conn_fn *fn, void *arg);

/* Releases the calling thread's connections (provider teardown). */
void conn_release_thread(void);

/*
 * async.c: signs `in` from inside an OpenSSL ASYNC job, pausing the job while the daemon
 * works, its request on the connection the thread's jobs share; DER signature into sig. 0, a
 * P256SIGN_E_* code, or ASYNC_NOT_HERE when the caller must sign the blocking way (no job or
 * wait context, or no reader thread could be started).
 */
#define ASYNC_NOT_HERE 1
int async_sign(const char *path, int timeout_ms, const struct p256sign_key *sel,
	const struct sign_input *in, uint8_t *sig, size_t cap, size_t *len);

/* Stops the calling thread's reader threads and closes their connections (teardown). */
void async_release_thread(void);


#endif
