/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_KEYHOLDER_H
#define P256SIGND_KEYHOLDER_H

#include "config.h"
#include "proc.h"

/*
 * The key-holder role, forked by the parent (proc_fork, a SOCK_SEQPACKET channel on fd) before
 * any key is read. It loads and checks every key of cfg (keyset.h), sends the parent the public
 * half of each (IPC_KEY_PUBLIC, then IPC_KEYS_READY), drops to `user` and into its sandbox,
 * forks cfg->workers signers with the keys (signer.h) and hands the parent its end of each
 * signer's socketpair (IPC_SIGNER_FD, SCM_RIGHTS). Then it serves the parent: a signer that
 * exits is reported (IPC_SIGNER_EXIT) and replaced; IPC_SIGNER_RESTART kills one, which is then
 * replaced; IPC_RELOAD reads the configuration's key set again, starts a new generation of
 * signers and lets the old ones go when the parent closes them. The parent never sees a private
 * key. Never returns: exits 0 when the parent closes the channel, 1 when keys cannot be loaded
 * or a signer cannot be started.
 */
__attribute__((noreturn)) void keyholder_main(int fd, struct config *cfg,
	const struct proc_user *user);

#endif
