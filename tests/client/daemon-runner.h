/* SPDX-License-Identifier: ISC */
#ifndef CLIENT_DAEMON_RUNNER_H
#define CLIENT_DAEMON_RUNNER_H

#include <sys/types.h>

/*
 * The real p256signd for the library's integration tests: a generated configuration in a fresh
 * temporary directory, one key (with its certificate, when given), and a socket there. Every
 * function exits the test on failure.
 */
struct daemon_proc {
	char dir[64];
	char socket[128];
	char config[128];
	const char *binary;
	pid_t pid;
};

/* What the generated configuration says besides the socket. */
struct daemon_config {
	const char *key_name;		/* the one key's name */
	const char *key_file;		/* its file (copied into the directory, mode 0600) */
	const char *cert_file;		/* its certificate (copied too), or NULL for none */
	const char *nonce;		/* "deterministic" or "hedged" */
	int verify_after_sign;
	unsigned workers;
	unsigned max_inflight_per_connection;
	unsigned idle_timeout_ms;	/* 0: the daemon's default */
};

/* Writes the configuration and starts the daemon; returns once it answers PING. */
void daemon_start(struct daemon_proc *d, const char *binary, const struct daemon_config *cfg);

/* Sends sig to the daemon (SIGSTOP, SIGCONT, ...). */
void daemon_signal(struct daemon_proc *d, int sig);

/* SIGKILL (a crash) and reaps it; the socket file stays behind, as after a crash. */
void daemon_kill(struct daemon_proc *d);

/* Starts the daemon again with the same configuration and socket; returns once it answers. */
void daemon_restart(struct daemon_proc *d);

/* SIGTERM, checks a clean exit, removes the directory. */
void daemon_stop(struct daemon_proc *d);

#endif
