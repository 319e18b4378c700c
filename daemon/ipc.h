/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_IPC_H
#define P256SIGND_IPC_H

#include <stddef.h>
#include <stdint.h>

#include "audit-seal.h"
#include "ipc-messages.h"
#include "p256.h"
#include "policy.h"
#include "proc.h"
#include "proto.h"

/*
 * Messages between the daemon's roles (proc.h), declared once in ipc-messages.h: type, sender ->
 * receiver, fixed body size, the most trailing bytes it may carry, the reply it expects, and
 * when it may come. A message is a fixed header and a body of at least the type's fixed size;
 * both ends are this machine, so integers are in host order. ipc_next checks the type, the sender
 * and receiver, the flags and the length against the table before any body field is read;
 * ipc_dispatch also checks the state flags and calls the receiver's handler. Every request
 * carries an id that its reply echoes; the parent matches a signer's replies against the oldest
 * request it sent to that signer (a signer answers in order). Several messages travel in one read
 * or write (batching) on the parent <-> signer byte stream; the key-holder's channel is a
 * SOCK_SEQPACKET pair, so that a descriptor passed with SCM_RIGHTS arrives with its own message.
 */
enum ipc_type {
	IPC_NONE,		/* no message has type 0 */
#define IPC_ENUM(type, name, from, to, body, trailing, reply, flags) type,
	IPC_MESSAGES(IPC_ENUM)
#undef IPC_ENUM
	IPC_TYPE_MAX,
};

/*
 * When a message may come (the table's flags), as OpenSSH's monitor and relayd allow a message
 * only in its state. A key set is announced as its IPC_KEY_PUBLIC messages and its IPC_KEYS_READY,
 * all of one generation (the body's first member), with nothing between them; the generations go
 * up by one, from 1.
 */
enum ipc_flag {
	IPC_FD = 1 << 0,		/* carries exactly one descriptor; no other message carries one */
	IPC_KEYSET = 1 << 1,		/* a key of the key set being announced, or the first of the
					 * next one (the last announced + 1) */
	IPC_KEYSET_END = 1 << 2,	/* ends the key set being announced, of the same generation */
	IPC_LAST_KEYSET = 1 << 3,	/* of the last key set announced whole */
	IPC_AFTER_KEYS = 1 << 4,	/* only once a key set was announced whole */
};

/* The longest reason in IPC_RELOAD_FAILED. */
#define IPC_TEXT_MAX 512

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
	int64_t cert_not_after;	/* its certificate's notAfter, Unix seconds; 0: none */
	uint32_t max_signatures_per_second;	/* per uid, 0: no limit (config.h) */
	uint8_t nonce;		/* enum p256_nonce */
	uint8_t verify_after_sign;
	uint8_t purpose;	/* enum policy_purpose */
	uint8_t name_len;
	char name[PROTO_NAME_MAX];
	uint8_t point[P256_POINT_LEN];
	struct policy_acl allow;	/* names resolved by the key-holder, which read the config */
};

/*
 * The certificate of a key of the key set being announced: right after that key's
 * IPC_KEY_PUBLIC, for a key configured with one; its DER (1 .. IPC_CERT_MAX bytes) follows this
 * fixed part. Public data, read once by the key-holder at load: the parent answers CERTIFICATE
 * from its copy.
 */
#define IPC_CERT_MAX PROTO_CERT_MAX
struct ipc_key_cert {
	uint32_t generation;
	uint32_t index;		/* the key's, the last IPC_KEY_PUBLIC's */
};

struct ipc_keys_ready {
	uint32_t generation;
	uint32_t nkeys;		/* IPC_KEY_PUBLIC messages sent before this one */
	uint32_t nsigners;	/* IPC_SIGNER_FD messages that follow */
	uint32_t ncerts;	/* IPC_KEY_CERT messages sent before this one */
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

/* The largest message on any channel: a certificate's (16 KiB of DER). */
#define IPC_MSG_MAX (sizeof(struct ipc_header) + sizeof(struct ipc_key_cert) + IPC_CERT_MAX)
_Static_assert(sizeof(struct ipc_key_public) <= IPC_MSG_MAX - sizeof(struct ipc_header),
    "IPC_MSG_MAX holds every body");
_Static_assert(IPC_TEXT_MAX <= IPC_MSG_MAX - sizeof(struct ipc_header), "and every text");

/* Faults of a message; they say which rule it broke (ipc_err_text). */
enum ipc_err {
	IPC_PARTIAL = 1,	/* not an error: buf holds only part of a message */
	IPC_ERR_TYPE = -1,	/* unknown type */
	IPC_ERR_ROUTE = -2,	/* a type this sender may not send to this receiver, or one the
				 * receiver has no handler for */
	IPC_ERR_LENGTH = -3,	/* a length the type does not allow, or flags not 0 */
	IPC_ERR_SPACE = -4,	/* ipc_put: the message does not fit */
	IPC_ERR_FIELD = -5,	/* a field out of its range (ipc_signature_check, a handler) */
	IPC_ERR_STATE = -6,	/* ipc_dispatch: a message its flags do not allow now */
	IPC_ERR_FD = -7,	/* ipc_dispatch: a descriptor missing, or with the wrong message */
	IPC_ERR_REPLY = -8,	/* a reply that answers no request sent (id, type or order) */
	IPC_ERR_CONTENT = -9,	/* a handler refused what the message says (logged by it) */
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

/* One message as a handler sees it. */
struct ipc_msg {
	struct ipc_header h;
	const uint8_t *body;	/* h.len bytes, in the caller's buffer */
	int fd;			/* IPC_FD: the descriptor, the handler's to keep (then set -1) or
				 * leave (ipc_dispatch closes it); else -1 */
};

/* What a receiver does with one message: 0, or a negative enum ipc_err that ends the dispatch. */
typedef int (*ipc_handler)(void *ctx, struct ipc_msg *m);

/* One receiver's end of a channel: whom it hears, its handlers, and the state its flags need. */
struct ipc_peer {
	enum proc_role from, to;
	const ipc_handler *handlers;	/* IPC_TYPE_MAX of them, by type; NULL: refused */
	void *ctx;			/* the handlers' first argument */
	uint32_t keyset;		/* the key set being announced, or 0 */
	uint32_t last_keyset;		/* the last one announced whole, or 0 */
};

/* Sets p up for messages from `from` to `to`, handled by handlers[type](ctx, ...). */
void ipc_peer_init(struct ipc_peer *p, enum proc_role from, enum proc_role to,
	const ipc_handler handlers[IPC_TYPE_MAX], void *ctx);

/*
 * Handles the whole messages at the start of buf (len bytes), at most max of them, in order:
 * each checked as ipc_next does, then against its state flags, then given to its handler. fd
 * (NULL on a channel that passes none) is the descriptor that came with buf, or -1: the one
 * IPC_FD message takes it, and *fd is -1 after it. Returns 0 with *used the bytes handled (a
 * partial message after them is left), or the first fault (a negative enum ipc_err) with *used
 * the bytes before the message that broke a rule.
 */
int ipc_dispatch(struct ipc_peer *p, const uint8_t *buf, size_t len, size_t max, int *fd,
	size_t *used);

/* What a fault means, for the log: "sent a reply that matches no request", ... */
const char *ipc_err_text(int err);

/* The type a request's reply must have, or 0 when it expects none. */
uint16_t ipc_reply_type(uint16_t type);

/* The table's name of a type ("sign", "signer-fd", ...), or "unknown". */
const char *ipc_type_name(uint16_t type);

#endif
