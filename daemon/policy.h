/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_POLICY_H
#define P256SIGND_POLICY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Who may use a key, and for what: one pure function over a key's access list and purpose and a
 * peer's credentials (taken from the kernel at accept: SO_PEERCRED, SO_PEERGROUPS).
 */

#define POLICY_IDS_MAX 32	/* users, and groups, in one key's "allow" */

/* What a key may sign (config "purpose"). */
enum policy_purpose {
	POLICY_PURPOSE_ANY = 0,		/* SIGN, SIGN_MESSAGE */
	POLICY_PURPOSE_TLS_SERVER = 1,	/* only handshake signatures the signer builds */
	POLICY_PURPOSE_TLS_CLIENT = 2,
	POLICY_PURPOSE_AUDIT = 3,	/* seals the audit log in the key-holder; no client signs */
};

/* A key's "allow": without one (set 0), only root and the daemon's own user may use it. */
struct policy_acl {
	uint8_t set;
	uint8_t nusers, ngroups;
	uint32_t users[POLICY_IDS_MAX];
	uint32_t groups[POLICY_IDS_MAX];
};

struct policy_peer {
	uid_t uid;
	gid_t gid;			/* primary group */
	const gid_t *groups;		/* supplementary groups */
	size_t ngroups;
};

enum policy_op {
	POLICY_SEE,			/* PUBKEY, VERIFY by name, LIST_KEYS */
	POLICY_SIGN,			/* SIGN, SIGN_MESSAGE: a digest of the client's choice */
	POLICY_SIGN_TLS_SERVER,		/* SIGN_TLS, a server's CertificateVerify or ServerKeyExchange */
	POLICY_SIGN_TLS_CLIENT,		/* SIGN_TLS, a client's CertificateVerify */
};

/*
 * 0 when peer may do op with a key of this acl and purpose, else PROTO_E_DENIED: the peer is
 * neither root, nor the daemon's own user (daemon_uid) where the key has no acl, nor listed by
 * uid, primary gid or a supplementary group; or the key's purpose does not allow op: a key of
 * purpose "any" signs everything, a "tls-server" key only POLICY_SIGN_TLS_SERVER, a "tls-client"
 * key only POLICY_SIGN_TLS_CLIENT, an "audit" key nothing (it signs checkpoints only, in the
 * key-holder).
 */
int policy_allows(uid_t daemon_uid, const struct policy_peer *peer, const struct policy_acl *acl,
	enum policy_purpose purpose, enum policy_op op);

/* Whether a key of this purpose may do op, whoever asks (the signer checks this too). */
int policy_purpose_allows(enum policy_purpose purpose, enum policy_op op);

/* "any", "tls-server", "tls-client", "audit". */
const char *policy_purpose_name(enum policy_purpose purpose);

#endif
