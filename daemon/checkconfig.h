/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_CHECKCONFIG_H
#define P256SIGND_CHECKCONFIG_H

/*
 * p256signd --check-config: one process, not a server. Reads the configuration and every key
 * with the daemon's own checks, prints each key's name and id and "PATH: ok". 0, or 1 with the
 * first error on stderr.
 */
int check_config(const char *path);

#endif
