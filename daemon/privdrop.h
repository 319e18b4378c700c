/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_PRIVDROP_H
#define P256SIGND_PRIVDROP_H

/*
 * The `user` setting: when running as root, becomes that user for good (supplementary groups,
 * then real, effective and saved group and user ids) and checks that root cannot be regained.
 * Called once the socket is bound and the keys are read, before the workers start. Not running
 * as root is fine when it already is that user (systemd's User=); otherwise an error. NULL user:
 * nothing to do. Returns 0 or -1 (logged).
 */
int privdrop(const char *user);

#endif
