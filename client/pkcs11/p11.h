/* SPDX-License-Identifier: ISC */
/*
 * The PKCS#11 module p256sign-pkcs11.so: PKCS#11 2.40 calls turned into p256signd requests
 * through libp256sign's public API (docs/pkcs11.md). One slot per daemon socket; per key a
 * private key object (absent for audit keys), a public key object, and a certificate object when
 * the daemon has the key's certificate.
 *
 * Locking: one module lock (module.c) guards the sessions, the slots' key tables and the
 * module's state; it is never held across a daemon request. Each slot has its own lock around
 * its libp256sign handle, held across the request. Order: a thread holding a slot's handle lock
 * never takes the module lock.
 */
#ifndef P11_H
#define P11_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <p11-kit/pkcs11.h>

#include "p256sign.h"

#define P11_MANUFACTURER "p256sign"
#define P11_LABEL "p256sign"
#define P11_SOCKET_MAX 108		/* sun_path */
#define P11_MAX_SLOTS 16
#define P11_BUF_MAX P256SIGN_MESSAGE_MAX	/* a signing operation's data */

enum p11_purpose { P11_ANY, P11_TLS_SERVER, P11_TLS_CLIENT, P11_AUDIT, P11_OTHER };

/* Object kinds, the low two bits of an object handle. */
enum p11_kind { P11_PRIVATE = 1, P11_PUBLIC = 2, P11_CERT = 3 };

/* PKCS#11 2.40 section 4.6.2, CKA_CERTIFICATE_CATEGORY: a certificate of the token's user. */
#define P11_CATEGORY_TOKEN_USER 1

/* A key the daemon reported (LIST_KEYS). Entries are never removed while the module is
 * initialized, so that object handles stay valid: a key gone from the list is marked absent. */
struct p11_key {
	char name[65];
	uint8_t id[P256SIGN_KEY_ID_LEN];
	uint8_t point[P256SIGN_POINT_LEN];
	int purpose;
	int present;
	int has_cert;			/* LIST_KEYS showed certificate_not_after */
	int has_cert_sha256;		/* and certificate_sha256 (a daemon of a release before it
					 * does not: its certificates are read at every listing) */
	uint8_t cert_sha256[32];	/* the SHA-256 of the DER CERTIFICATE answers, as listed */
	int cert_cached;		/* keys.c: the slot's table holds that DER; merged, the
					 * entry takes it rather than asking the daemon again */
	uint8_t *cert;			/* its DER (CERTIFICATE), the entry's own; NULL: none */
	size_t cert_len;
	struct p256sign_cert_fields fields;	/* point into cert */
};

struct p11_slot {
	char socket[P11_SOCKET_MAX];	/* "" is libp256sign's default socket */
	char label[33];
	pthread_mutex_t handle_lock;	/* around h and every request on it */
	struct p256sign *h;		/* NULL until a connect succeeds */
	int timeout_ms;
	/* under the module lock */
	struct p11_key *keys;
	size_t nkeys, capkeys;
	int logged_in;
	char version[16];		/* the daemon's release, from STATUS */
};

/* A session's active operations. */
struct p11_session {
	int used;
	CK_SLOT_ID slot;
	CK_FLAGS flags;
	CK_OBJECT_HANDLE *found;	/* C_FindObjects */
	size_t nfound, pos;
	int finding;
	int signing;			/* C_Sign* */
	int multipart;			/* C_SignUpdate was called */
	CK_MECHANISM_TYPE mech;
	CK_OBJECT_HANDLE key;
	uint8_t *buf;			/* P11_BUF_MAX bytes; the first len hold the data so far */
	size_t len;
	void *md;			/* EVP_MD_CTX once CKM_ECDSA_SHA256 data outgrew buf */
};

struct p11_module;

/*
 * An entry of a state's list of work in flight, a signature (sign.c) or a key list being read
 * (keys.c), while its thread waits for the daemon: a child made by fork() then, where that thread
 * does not exist, frees it with the inherited state. The first member of its entry.
 */
struct p11_inflight {
	struct p11_inflight *next, *prev;
	struct p11_module *mod;		/* whose list it is on */
	struct p11_inflight **head;	/* that list */
	void (*free)(struct p11_inflight *e);	/* frees the whole entry */
};

struct p11_module {
	struct p11_slot slots[P11_MAX_SLOTS];
	size_t nslots;
	struct p11_session **sessions;	/* handle = index + 1 */
	size_t nsessions;
	struct p11_inflight *jobs;	/* signatures at the daemon now (sign.c) */
	struct p11_inflight *refreshes;	/* key lists being read from the daemon now (keys.c) */
	struct p11_module *kept;	/* module.c: parents' states a child could not free */
	int timeout_ms;			/* config.c: every slot's request deadline */
};

/* module.c: the state, NULL while not initialized; the lock around it. */
extern struct p11_module *p11_mod;
void p11_lock(void);
void p11_unlock(void);
int p11_initialized(void);	/* p11_mod != NULL, read under the lock */
/* Under the module lock: e onto the list *head of the state in use, and off it again (an entry of
 * a state finalised meanwhile, which PKCS#11 forbids during a call, is on no list any more). */
void p11_inflight_link(struct p11_inflight **head, struct p11_inflight *e,
	void (*free_entry)(struct p11_inflight *e));
void p11_inflight_unlink(struct p11_inflight *e);

/* config.c: slots from C_Initialize's reserved string (p11-kit's x-init-reserved) and the file
 * named by $P256SIGN_PKCS11_CONFIG; the default socket when neither names one. */
int p11_config(struct p11_module *m, const char *reserved);
int p11_config_text(struct p11_module *m, const char *text, size_t len);

/* slots.c */
struct p11_slot *p11_slot(CK_SLOT_ID id);	/* under the module lock; NULL: invalid */
/* Not under the module lock: the slot of id, looked up under it (the lock is released on return,
 * so that the caller may ask the daemon); CKR_CRYPTOKI_NOT_INITIALIZED, CKR_SLOT_ID_INVALID. */
CK_RV p11_find_slot(CK_SLOT_ID id, struct p11_slot **out);
int p11_slot_present(struct p11_slot *s);	/* 1 when the daemon answers (a PING) */
void p11_slot_free(struct p11_slot *s);

/* request.c: one daemon request on a slot's handle, under its lock; a P256SIGN_E_* code. */
typedef int p11_request_fn(struct p256sign *h, void *arg);
int p11_request(struct p11_slot *s, p11_request_fn *fn, void *arg);
CK_RV p11_rv(int p256sign_error);

/* keylist.c: LIST_KEYS's JSON as key entries (*out to free with p11_keys_free); -1 when
 * malformed. */
#define P11_MAX_KEYS (1u << 22)	/* the key index bits of an object handle */
int p11_parse_keys(const char *json, struct p11_key **out, size_t *n);
/* A certificate's DER (len bytes, copied) for k, with its fields; -1 when it is not one (k keeps
 * none) or out of memory. */
int p11_key_set_cert(struct p11_key *k, const uint8_t *der, size_t len);
void p11_key_clear_cert(struct p11_key *k);
void p11_keys_free(struct p11_key *keys, size_t n);

/* keytable.c, under the module lock: p11_cached_certs marks the entries of keys whose
 * certificate the slot's table holds (cert_cached); p11_merge_keys makes the table the list,
 * taking the certificates of keys, and those the table holds for the entries marked (keys's
 * entries keep none); -1 when out of memory or full. */
void p11_cached_certs(const struct p11_slot *s, struct p11_key *keys, size_t n);
int p11_merge_keys(struct p11_slot *s, struct p11_key *keys, size_t n);

/* keys.c: the slot's key table from LIST_KEYS and the certificates of the keys it says have one,
 * each asked of the daemon only when the table does not hold it already (takes the slot's
 * handle lock, then the module lock). */
CK_RV p11_refresh_keys(CK_SLOT_ID slot);
/* The key and kind of a handle (under the module lock); NULL when invalid or absent. */
struct p11_key *p11_object(CK_OBJECT_HANDLE h, CK_SLOT_ID *slot, int *kind);
CK_OBJECT_HANDLE p11_handle(CK_SLOT_ID slot, size_t key_index, int kind);

/* attrs.c: an object's attributes; PKCS#11 2.40's C_GetAttributeValue and template match. */
struct p11_attr {
	CK_ATTRIBUTE_TYPE type;
	const void *value;
	CK_ULONG len;
	int sensitive;
};
#define P11_MAX_ATTRS 48
struct p11_attrs {
	struct p11_attr a[P11_MAX_ATTRS];
	size_t n;
	uint8_t ec_point[2 + P256SIGN_POINT_LEN];	/* DER OCTET STRING */
	uint8_t spki[P256SIGN_SPKI_LEN];
	CK_ULONG label_len;
};
void p11_object_attrs(const struct p11_key *k, int kind, struct p11_attrs *out);
CK_RV p11_get_attributes(const struct p11_attrs *attrs, CK_ATTRIBUTE *tmpl, CK_ULONG count);
int p11_matches(const struct p11_attrs *attrs, const CK_ATTRIBUTE *tmpl, CK_ULONG count);

/* session.c: takes the module lock, which the caller releases whatever the answer, and finds the
 * session of h: CKR_OK, CKR_CRYPTOKI_NOT_INITIALIZED or CKR_SESSION_HANDLE_INVALID. */
CK_RV p11_lock_session(CK_SESSION_HANDLE h, struct p11_session **out);
void p11_session_reset(struct p11_session *s);


/* attrs.c: the mechanisms, CKA_ALLOWED_MECHANISMS and C_GetMechanismList. */
extern const CK_MECHANISM_TYPE p11_mechanisms[];
extern const size_t p11_nmechanisms;

#endif
