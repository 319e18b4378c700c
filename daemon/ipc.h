/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_IPC_H
#define P256SIGND_IPC_H

#include <stddef.h>
#include <stdint.h>

#include "audit-seal.h"
#include "p256.h"
#include "policy.h"
#include "proc.h"
#include "proto.h"

/*
 * Messages between the daemon's roles (proc.h), declared once in ipc.c's table: type, sender ->
 * receiver, fixed body size, the most trailing bytes it may carry, and the reply it expects. A
 * message is a fixed header and a body of at least the type's fixed size; both ends are this
 * machine, so integers are in host order. ipc_next checks the type, the sender and receiver, the
 * flags and the length against the table before any body field is read. Every request carries an
 * id that its reply echoes; the parent matches a signer's replies against the oldest request it
 * sent to that signer (a signer answers in order). Several messages travel in one read or write
 * (batching) on the parent <-> signer byte stream; the key-holder's channel is a SOCK_SEQPACKET
 * pair, so that a descriptor passed with SCM_RIGHTS arrives with its own message.
 */
enum ipc_type {
	IPC_SIGN = 1,		/* parent -> signer: struct ipc_sign */
	IPC_SIGNATURE,		/* signer -> parent: struct ipc_signature (reply to IPC_SIGN) */
	IPC_SELFTEST,		/* parent -> signer: no body; run the self-test */
	IPC_SELFTEST_RESULT,	/* signer -> parent: struct ipc_signature, the known answer */
	IPC_PING,		/* parent -> signer: no body; liveness */
	IPC_PONG,		/* signer -> parent: no body */
	IPC_KEY_PUBLIC,		/* keyholder -> parent: struct ipc_key_public, one per key */
	IPC_KEYS_READY,		/* keyholder -> parent: struct ipc_keys_ready, after the keys */
	IPC_SIGNER_FD,		/* keyholder -> parent: struct ipc_signer + its socket (SCM_RIGHTS) */
	IPC_SIGNER_EXIT,	/* keyholder -> parent: struct ipc_signer_exit */
	IPC_SIGNER_RESTART,	/* parent -> keyholder: struct ipc_signer; kill it, start another */
	IPC_RELOAD,		/* parent -> keyholder: no body; read the key set again */
	IPC_RELOAD_FAILED,	/* keyholder -> parent: no fixed body; the reason as trailing text */
	IPC_SIGN_TLS,		/* parent -> signer: struct ipc_sign_tls; answered by IPC_SIGNATURE */
	IPC_AUDIT_SEAL,		/* parent -> keyholder: struct ipc_audit_seal; seal the audit log */
	IPC_AUDIT_SEALED,	/* keyholder -> parent: struct ipc_audit_sealed (reply to IPC_AUDIT_SEAL) */
	IPC_TYPE_MAX,
};

struct ipc_header {
	uint16_t type;		/* enum ipc_type */
	uint16_t flags;		/* 0 */
	uint32_t len;		/* body bytes after this header */
	uint64_t id;		/* a request's id, echoed by its reply; 0 for notices */
};

struct ipc_sign {
	uint32_t key;		/* index into the signer's key table */
	uint8_t digest[P256_DIGEST_LEN];
};

/* A handshake signature: the signer builds the signed content itself (proto/tls.h). */
struct ipc_sign_tls {
	uint32_t key;		/* first, as in struct ipc_sign */
	struct proto_tls tls;
};

struct ipc_signature {
	int32_t result;		/* 0 or a negative enum p256_err code */
	uint32_t from_pool;	/* 1: signed with a precomputed nonce from the key's pool
				 * (lib/nonce-pool.h), else 0; 0 in a self-test or a seal */
	uint8_t sig[P256_SIG_LEN]; /* r || s when result is 0, zeros otherwise */
};
_Static_assert(sizeof(struct ipc_signature) == 8 + P256_SIG_LEN, "no padding in a signature");

/* A checkpoint to sign with the audit key: the key-holder builds the seal digest from these and
 * the time it reads itself (proto/audit-seal.h), so the audit key signs nothing else. */
struct ipc_audit_seal {
	uint8_t covers_hash[32];	/* SHA-256 of the audit line sealed */
	uint64_t covers_seq;		/* its sequence number */
	uint32_t reason;		/* enum audit_seal_reason */
	uint32_t zero;			/* 0 */
};
_Static_assert(sizeof(struct ipc_audit_seal) == 48, "no padding in a seal request");

/* The checkpoint's time, stamped by the key-holder, and the audit key's signature of the seal. */
struct ipc_audit_sealed {
	int32_t result;			/* 0 or a negative enum p256_err code */
	char time[AUDIT_TIME_LEN + 1];	/* the checkpoint's time member, NUL-terminated */
	uint8_t sig[P256_SIG_LEN];	/* r || s when result is 0, zeros otherwise */
};
_Static_assert(sizeof(struct ipc_audit_sealed) == 4 + 28 + P256_SIG_LEN, "no padding in a seal");

/* The public half of one key; the parent derives the key id and SubjectPublicKeyInfo itself. */
struct ipc_key_public {
	uint32_t generation;	/* the key set it belongs to: 1 at start, one more per reload */
	uint32_t index;		/* its place in the key table, config order */
	uint32_t max_signatures_per_second;	/* per uid, 0: no limit (config.h) */
	uint8_t nonce;		/* enum p256_nonce */
	uint8_t verify_after_sign;
	uint8_t purpose;	/* enum policy_purpose */
	uint8_t name_len;
	char name[PROTO_NAME_MAX];
	uint8_t point[P256_POINT_LEN];
	struct policy_acl allow;	/* names resolved by the key-holder, which read the config */
};

struct ipc_keys_ready {
	uint32_t generation;
	uint32_t nkeys;		/* IPC_KEY_PUBLIC messages sent before this one */
	uint32_t nsigners;	/* IPC_SIGNER_FD messages that follow */
};

struct ipc_signer {
	uint32_t generation;
	uint32_t signer;	/* the key-holder's number for it, never reused */
	int32_t pid;
};

struct ipc_signer_exit {
	uint32_t signer;
	int32_t pid;
	int32_t status;		/* as from waitpid */
};

/* The longest reason in IPC_RELOAD_FAILED. */
#define IPC_TEXT_MAX 512

/* Messages a signer reads at most at once, and answers as one batch. */
#define IPC_BATCH 64

/*
 * A signer writes the answers of a batch after every IPC_ANSWERS_PER_WRITE of them, not only at
 * its end, so that its clients can turn the first answers round while it signs the rest
 * (docs/performance.md, "A signer's answers, 16 to a write").
 */
#define IPC_ANSWERS_PER_WRITE 16

/* The largest answer of a signer, and the largest request to one, header included. */
#define IPC_SIGNER_MSG_MAX (sizeof(struct ipc_header) + sizeof(struct ipc_signature))
#define IPC_SIGNER_REQ_MAX (sizeof(struct ipc_header) + sizeof(struct ipc_sign_tls))

/* The largest message on any channel. */
#define IPC_MSG_MAX (sizeof(struct ipc_header) + IPC_TEXT_MAX)
_Static_assert(sizeof(struct ipc_key_public) <= IPC_TEXT_MAX, "IPC_MSG_MAX holds every body");

/* Framing faults (ipc_next, ipc_put); they say which rule a message broke. */
enum ipc_err {
	IPC_PARTIAL = 1,	/* not an error: buf holds only part of a message */
	IPC_ERR_TYPE = -1,	/* unknown type */
	IPC_ERR_ROUTE = -2,	/* a type this sender may not send to this receiver */
	IPC_ERR_LENGTH = -3,	/* a length the type does not allow, or flags not 0 */
	IPC_ERR_SPACE = -4,	/* ipc_put: the message does not fit */
	IPC_ERR_FIELD = -5,	/* ipc_signature_check: a field out of its range */
};

/*
 * Splits the next message off buf (len bytes) sent by `from` to `to`: 0 with *h, *body and *used
 * (header plus body) set; IPC_PARTIAL when buf holds only part of a message; a negative
 * enum ipc_err when it breaks the table. The header is copied out; *body points into buf.
 */
int ipc_next(const uint8_t *buf, size_t len, enum proc_role from, enum proc_role to,
	struct ipc_header *h, const uint8_t **body, size_t *used);

/*
 * Appends one message of `type` with `len` body bytes (the fixed body, then any trailing bytes)
 * to out, whose capacity is cap and fill *len_out. 0, IPC_ERR_TYPE, IPC_ERR_LENGTH, or
 * IPC_ERR_SPACE when it does not fit.
 */
int ipc_put(uint8_t *out, size_t cap, size_t *fill, uint16_t type, uint64_t id,
	const void *body, size_t len);

/* Checks the fields of a signature a peer sent: 0, or IPC_ERR_FIELD when from_pool is neither 0
 * nor 1. */
int ipc_signature_check(const struct ipc_signature *s);

/* The type a request's reply must have, or 0 when it expects none. */
uint16_t ipc_reply_type(uint16_t type);

/* The table's name of a type ("sign", "signer-fd", ...), or "unknown". */
const char *ipc_type_name(uint16_t type);

#endif
