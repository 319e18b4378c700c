/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_SANDBOX_H
#define P256SIGND_SANDBOX_H

/* Each role's system-call sandbox, applied last by proc_drop (proc.h). 0 or -1. */
int sandbox_parent(void);
int sandbox_keyholder(const char *const *read_paths);
int sandbox_signer(void);

#endif
