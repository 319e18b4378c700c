/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_IPC_MESSAGES_H
#define P256SIGND_IPC_MESSAGES_H

/*
 * The one list of messages between the daemon's roles: ipc.h makes enum ipc_type of it and
 * ipc.c its table, so that a type and its rules cannot drift apart. Types are numbered from 1 in
 * this order, which is part of the channel's format: a new message goes at the end.
 *
 * X(type, name, from, to, body, trailing, reply, flags):
 *   from, to   the only sender and receiver (enum proc_role, without the PROC_ prefix)
 *   body       the fixed body's size (a struct of ipc.h, or 0)
 *   trailing   the most bytes that may follow it
 *   reply      the type that answers it, or 0
 *   flags      when it may come (IPC_FD, IPC_KEYSET, ... in ipc.h; checked by ipc_dispatch)
 */
#define IPC_MESSAGES(X) \
	/* parent -> signer: sign a digest */ \
	X(IPC_SIGN, "sign", PARENT, SIGNER, sizeof(struct ipc_sign), 0, IPC_SIGNATURE, 0) \
	/* signer -> parent: the answer to IPC_SIGN or IPC_SIGN_TLS */ \
	X(IPC_SIGNATURE, "signature", SIGNER, PARENT, sizeof(struct ipc_signature), 0, 0, 0) \
	/* parent -> signer: run the self-test */ \
	X(IPC_SELFTEST, "selftest", PARENT, SIGNER, 0, 0, IPC_SELFTEST_RESULT, 0) \
	/* signer -> parent: the known answer */ \
	X(IPC_SELFTEST_RESULT, "selftest-result", SIGNER, PARENT, sizeof(struct ipc_signature), 0, \
	    0, 0) \
	/* parent -> signer: liveness */ \
	X(IPC_PING, "ping", PARENT, SIGNER, 0, 0, IPC_PONG, 0) \
	X(IPC_PONG, "pong", SIGNER, PARENT, 0, 0, 0, 0) \
	/* keyholder -> parent: one per key of a key set, in table order */ \
	X(IPC_KEY_PUBLIC, "key-public", KEYHOLDER, PARENT, sizeof(struct ipc_key_public), 0, 0, \
	    IPC_KEYSET) \
	/* keyholder -> parent: the key set is complete */ \
	X(IPC_KEYS_READY, "keys-ready", KEYHOLDER, PARENT, sizeof(struct ipc_keys_ready), 0, 0, \
	    IPC_KEYSET_END) \
	/* keyholder -> parent: a signer of the last key set, and its socket (SCM_RIGHTS) */ \
	X(IPC_SIGNER_FD, "signer-fd", KEYHOLDER, PARENT, sizeof(struct ipc_signer), 0, 0, \
	    IPC_FD | IPC_LAST_KEYSET) \
	/* keyholder -> parent: a signer was reaped */ \
	X(IPC_SIGNER_EXIT, "signer-exit", KEYHOLDER, PARENT, sizeof(struct ipc_signer_exit), 0, 0, \
	    IPC_AFTER_KEYS) \
	/* parent -> keyholder: kill a signer, start another */ \
	X(IPC_SIGNER_RESTART, "signer-restart", PARENT, KEYHOLDER, sizeof(struct ipc_signer), 0, 0, \
	    0) \
	/* parent -> keyholder: read the key set again */ \
	X(IPC_RELOAD, "reload", PARENT, KEYHOLDER, 0, 0, 0, 0) \
	/* keyholder -> parent: the reason, as trailing text */ \
	X(IPC_RELOAD_FAILED, "reload-failed", KEYHOLDER, PARENT, 0, IPC_TEXT_MAX, 0, \
	    IPC_AFTER_KEYS) \
	/* parent -> signer: a TLS handshake signature, answered by IPC_SIGNATURE */ \
	X(IPC_SIGN_TLS, "sign-tls", PARENT, SIGNER, sizeof(struct ipc_sign_tls), 0, IPC_SIGNATURE, \
	    0) \
	/* parent -> keyholder: seal the audit log */ \
	X(IPC_AUDIT_SEAL, "audit-seal", PARENT, KEYHOLDER, sizeof(struct ipc_audit_seal), 0, \
	    IPC_AUDIT_SEALED, 0) \
	/* keyholder -> parent: the seal */ \
	X(IPC_AUDIT_SEALED, "audit-sealed", KEYHOLDER, PARENT, sizeof(struct ipc_audit_sealed), 0, \
	    0, IPC_AFTER_KEYS) \
	/* keyholder -> parent: the certificate of the key just announced, its DER as trailing bytes */ \
	X(IPC_KEY_CERT, "key-cert", KEYHOLDER, PARENT, sizeof(struct ipc_key_cert), IPC_CERT_MAX, 0, \
	    IPC_KEYSET)

#endif
