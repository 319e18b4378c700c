/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_LISTEN_H
#define P256SIGND_LISTEN_H

#include <sys/types.h>

#include "config.h"

/* The listening socket: handed over by systemd, or made by the daemon at the configured path. */

struct listener_socket {
	int fd;
	int activated;			/* from systemd (LISTEN_FDS) */
	dev_t dev;			/* the socket file made by the daemon, to remove at exit */
	ino_t ino;
};

/*
 * With socket activation (sd_listen_fds_with_names) takes the one stream socket passed.
 * Otherwise binds cfg->socket with cfg->socket_mode and cfg->socket_group: a stale socket file
 * (nobody accepts on it) is replaced, a live one (another daemon answers) or a file that is not a
 * socket is an error. Returns 0 or -1 (logged).
 */
int listen_open(const struct config *cfg, struct listener_socket *ls);

/* Removes the socket file made by listen_open, if it is still the same file. */
void listen_cleanup(const struct config *cfg, const struct listener_socket *ls);

#endif
