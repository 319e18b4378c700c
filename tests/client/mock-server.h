/* SPDX-License-Identifier: ISC */
#ifndef CLIENT_MOCK_SERVER_H
#define CLIENT_MOCK_SERVER_H

#include <stdint.h>
#include <sys/types.h>

/*
 * A small stand-in for p256signd in the library's tests, speaking the protocol through proto/
 * and signing with the core. It listens on a socket in a fresh temporary directory and serves
 * each connection in a process of its own (so that it can be killed mid-request like a crashed
 * daemon). Its misbehaviours produce the error paths that a correct daemon does not.
 *
 * Keys: MOCK_KEY_NAME (scalar MOCK_KEY_D..., the RFC 6979 A.2.5 key) by name or key id; a key name
 * "err-N" answers with wire error code N; any other name with unknown-key. STATUS answers
 * {"peer_pid": PID, "served": N} where PID is the client's pid (SO_PEERCRED) and N the requests
 * served on that connection.
 */

#define MOCK_KEY_NAME "k1"

enum mock_mode {
	MOCK_NORMAL,		/* answers every request correctly, in order */
	MOCK_REVERSE,		/* answers the requests available at once in reverse order */
	MOCK_STUCK,		/* reads nothing, answers nothing */
	MOCK_CLOSE,		/* reads one request, then closes the connection */
	MOCK_ANSWER_CLOSE,	/* answers one request, then closes (a daemon draining as it stops) */
	MOCK_GARBAGE,		/* answers with bytes that are not a frame */
	MOCK_WRONG_ID,		/* answers with a request id never sent */
	MOCK_WRONG_TYPE,	/* answers a request with a response of another type */
	MOCK_TOO_MANY,		/* as p256signd over max_connections: the unrequested ERROR
				 * too-many-connections with id 0 at once, then closes unread */
};

struct mock {
	char dir[64];		/* temporary directory holding the socket */
	char path[96];		/* socket path */
	int listen_fd;		/* kept across restarts, like socket activation */
	pid_t pid;		/* the serving process (group leader) */
};

/* Creates the socket and starts serving in `mode`. Exits the test on failure. */
void mock_start(struct mock *m, enum mock_mode mode);

/* Kills the serving processes (SIGKILL, as a crash) but keeps the listening socket. */
void mock_kill(struct mock *m);

/* Starts serving again on the same listening socket (a daemon restart under socket activation). */
void mock_restart(struct mock *m, enum mock_mode mode);

/* Kills the server, removes the socket and its directory. */
void mock_stop(struct mock *m);

/* The mock key's public point (65 bytes) and key id (32 bytes). */
void mock_key_public(uint8_t point[65], uint8_t key_id[32]);

#endif
