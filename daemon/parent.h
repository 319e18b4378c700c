/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_PARENT_H
#define P256SIGND_PARENT_H

/*
 * The parent role: everything the daemon does but holding keys. Reads the configuration, takes
 * the listening socket, forks the key-holder before any key is read, drops its own privileges
 * into its sandbox, then runs the event loop: clients (server.h, request.h), the signers
 * (signers.h) and the key-holder's channel. Returns the exit status: 0 after an orderly stop, 1
 * when the start failed or healing became impossible (the key-holder died, or no signer came
 * back), so that a service manager restarts the daemon.
 */
int parent_main(const char *config_path);

#endif
