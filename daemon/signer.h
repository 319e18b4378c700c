/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_SIGNER_H
#define P256SIGND_SIGNER_H

#include "keyset.h"

/*
 * The signer role: the only processes that sign. Forked by the key-holder (proc_fork) with the
 * key table and its channel to the parent on fd. It runs the self-test once (which also loads
 * everything OpenSSL loads lazily, before the sandbox would forbid it), locks the private keys
 * in memory, drops into its sandbox (proc_drop), then loops: one read of up to IPC_BATCH
 * requests (polling for up to poll_us first when its idle gaps are that short, busypoll.h), each
 * answered in order, the answers written after every IPC_ANSWERS_PER_WRITE of them and at the
 * end of the batch.
 * Never returns: exits 0 when the parent closes the channel (wiping the keys first), 1 on a
 * failed start, an I/O error or a message the table does not allow.
 */
__attribute__((noreturn)) void signer_main(int fd, struct keyset *ks, unsigned poll_us);

#endif
