/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_PROC_H
#define P256SIGND_PROC_H

#include <sys/types.h>

/*
 * The daemon's process roles (docs/daemon.md, docs/security.md), and the one place that starts a
 * role's process and drops its privileges.
 *
 *   parent     the event loop: clients, access to the signers, the log; never holds a private key
 *   keyholder  reads the key files, forks the signers with the keys, replaces them when they die
 *   signer     holds the keys and signs; reads and writes its socketpair and nothing else
 */
enum proc_role {
	PROC_PARENT,
	PROC_KEYHOLDER,
	PROC_SIGNER,
	PROC_MAX,
};

/* The descriptor a child role finds its channel to the role that forked it on. */
#define PROC_CHANNEL_FD 3

/* A user to run a role as, looked up before any privilege is dropped. */
struct proc_user {
	int set;			/* 0: keep the current uid and gid */
	char name[64];
	uid_t uid;
	gid_t gid;
};

/* "parent", "keyholder", "signer". */
const char *proc_name(enum proc_role role);

/* Looks up a user by name (NULL: none, *u unset). 0, or -1 with a message logged. */
int proc_user_lookup(const char *name, struct proc_user *u);

/*
 * Forks a process of `role` with a new socketpair (type SOCK_STREAM or SOCK_SEQPACKET) as its
 * channel. In the parent: returns the child's pid and its end of the pair in *fd. In the child:
 * returns 0 with the child's end moved to PROC_CHANNEL_FD, every other descriptor closed but
 * stderr (stdin and stdout on /dev/null), its name set to "p256signd-keys" or "p256signd-sign"
 * (the kernel's 15 bytes: proc.c), SIGINT, SIGTERM, SIGHUP and SIGPIPE ignored (the parent
 * decides when a role stops) and SIGKILL as its parent-death signal. -1 (logged) when the pair or the fork fails.
 */
pid_t proc_fork(enum proc_role role, int socktype, int *fd);

/* What a role's sandbox leaves it of the file system (sandbox.h): the key-holder's paths to read
 * (NULL-terminated), the parent's audit file directory and socket directory (NULL: none). */
struct proc_paths {
	const char *const *read;
	const char *audit_dir;
	const char *socket_dir;
};

/*
 * Drops the privileges of the calling role, in this fixed order: RLIMIT_CORE 0,
 * PR_SET_DUMPABLE 0, setgroups, setresgid, setresuid (then checked that root cannot be
 * regained), PR_SET_NO_NEW_PRIVS, then that role's sandbox_*() (sandbox.h). The kernel resets
 * the dumpable flag and the parent-death signal when the uid changes: both are set again after
 * it. u->set 0 keeps the current user; paths (NULL for a signer) are what its sandbox leaves it.
 * 0, or -1 (logged): the caller must then exit.
 */
int proc_drop(enum proc_role role, const struct proc_user *u, const struct proc_paths *paths);

#endif
