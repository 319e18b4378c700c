/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_WORKER_H
#define P256SIGND_WORKER_H

#include "keys.h"

/*
 * The worker process: the only place private keys live after start-up. Called in the child right
 * after fork with its end of the socketpair. It keeps that descriptor and stderr, closes every
 * other one, ignores SIGINT/SIGTERM (the parent decides when to stop: it closes the socketpair),
 * then loops: one read of up to IPC_BATCH requests (polling for up to poll_us before it blocks,
 * busypoll.h), sign each, one write of the answers after every IPC_ANSWERS_PER_WRITE of them and
 * one at the end of the batch.
 * Never returns: exits 0 when the parent closes the socketpair, 1 on an I/O or message error.
 */
__attribute__((noreturn)) void worker_main(int fd, struct keytab *kt, unsigned poll_us);

#endif
