/* SPDX-License-Identifier: ISC */
/* Starting a role's process and dropping its privileges (proc.h). */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "sandbox.h"

static const char *const names[PROC_MAX] = {
	[PROC_PARENT] = "parent",
	[PROC_KEYHOLDER] = "keyholder",
	[PROC_SIGNER] = "signer",
};

/*
 * A child role's process title (ps, top, /proc/PID/comm): "p256signd-" and a short form of the
 * role, since the kernel keeps 15 bytes of a name (TASK_COMM_LEN) and "p256signd-keyholder"
 * would be cut. The parent keeps its program's name, p256signd.
 */
#define TITLE_MAX 15
static const char titles[PROC_MAX][TITLE_MAX + 1] = {
	[PROC_PARENT] = "p256signd",
	[PROC_KEYHOLDER] = "p256signd-keys",
	[PROC_SIGNER] = "p256signd-sign",
};

/* The process that forked this one (0 in the parent role): for the parent-death signal. */
static pid_t forked_by;

const char *proc_name(enum proc_role role)
{
	return role < PROC_MAX ? names[role] : "unknown";
}

int proc_user_lookup(const char *name, struct proc_user *u)
{
	struct passwd *pw;

	memset(u, 0, sizeof(*u));
	if (name == NULL)
		return 0;
	errno = 0;
	if ((pw = getpwnam(name)) == NULL) {
		log_error("user %s: %s", name, errno ? strerror(errno) : "no such user");
		return -1;
	}
	if (snprintf(u->name, sizeof(u->name), "%s", name) >= (int)sizeof(u->name)) {
		log_error("user %s: name too long", name);
		return -1;
	}
	u->set = 1;
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	return 0;
}

/* Dies with the process that forked this one; 0 or -1. Checked after the call: the forker may
 * have exited before it. */
static int die_with_forker(void)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
		return -1;
	if (getppid() != forked_by) {
		errno = ESRCH;
		return -1;
	}
	return 0;
}

/* In a new child: the channel on PROC_CHANNEL_FD, nothing else open but stdin and stdout on
 * /dev/null and stderr. The key-holder opens /dev/null (the parent's may be a terminal); the
 * signers inherit the key-holder's, as its sandbox opens no file. 0 or -1. */
static int child_descriptors(enum proc_role role, int fd)
{
	int null;

	if (fd == PROC_CHANNEL_FD) {
		if (fcntl(fd, F_SETFD, 0) != 0)
			return -1;
	} else if (dup2(fd, PROC_CHANNEL_FD) < 0)
		return -1;
	if (role == PROC_KEYHOLDER &&
	    ((null = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0 ||
	    dup2(null, STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0))
		return -1;
	return close_range(PROC_CHANNEL_FD + 1, ~0U, 0);
}

static int child_setup(enum proc_role role, int fd)
{
	sigset_t none;

	sigemptyset(&none);
	/* The forker decides when a role stops (it closes the channel); a terminal's Ctrl-C reaches
	 * the whole process group and must not kill the roles before the parent's orderly stop. */
	if (signal(SIGINT, SIG_IGN) == SIG_ERR || signal(SIGTERM, SIG_IGN) == SIG_ERR ||
	    signal(SIGHUP, SIG_IGN) == SIG_ERR || signal(SIGPIPE, SIG_IGN) == SIG_ERR ||
	    signal(SIGCHLD, SIG_DFL) == SIG_ERR || sigprocmask(SIG_SETMASK, &none, NULL) != 0 ||
	    die_with_forker() != 0 || prctl(PR_SET_NAME, titles[role]) != 0 ||
	    child_descriptors(role, fd) != 0)
		return -1;
	return 0;
}

pid_t proc_fork(enum proc_role role, int socktype, int *fd)
{
	int sv[2];
	pid_t pid, self = getpid();

	if (socketpair(AF_UNIX, socktype | SOCK_CLOEXEC, 0, sv) != 0) {
		log_error("socketpair for a %s: %s", proc_name(role), strerror(errno));
		return -1;
	}
	if ((pid = fork()) < 0) {
		log_error("fork of a %s: %s", proc_name(role), strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (pid == 0) {
		forked_by = self;
		close(sv[0]);
		if (child_setup(role, sv[1]) != 0) {
			log_error("%s %d: set-up failed: %s", proc_name(role), (int)getpid(),
			    strerror(errno));
			_exit(1);
		}
		return 0;
	}
	close(sv[1]);
	*fd = sv[0];
	return pid;
}

/* setgroups, setresgid, setresuid to u, then checks that all six ids hold and that root cannot
 * be regained. Without root, only the user we already are is accepted. */
static int change_user(const struct proc_user *u)
{
	uid_t ruid, euid, suid;
	gid_t rgid, egid, sgid;

	if (geteuid() != 0) {
		if (getuid() == u->uid && geteuid() == u->uid)
			return 0;
		log_error("user %s: not running as root, cannot change user", u->name);
		return -1;
	}
	if (setgroups(1, &u->gid) != 0 || setresgid(u->gid, u->gid, u->gid) != 0 ||
	    setresuid(u->uid, u->uid, u->uid) != 0) {
		log_error("becoming user %s: %s", u->name, strerror(errno));
		return -1;
	}
	if (getresuid(&ruid, &euid, &suid) != 0 || getresgid(&rgid, &egid, &sgid) != 0 ||
	    ruid != u->uid || euid != u->uid || suid != u->uid ||
	    rgid != u->gid || egid != u->gid || sgid != u->gid ||
	    (u->uid != 0 && setresuid(0, 0, 0) == 0)) {
		log_error("becoming user %s: the change did not hold", u->name);
		return -1;
	}
	return 0;
}

static int sandbox(enum proc_role role, const struct proc_paths *p)
{
	const struct proc_paths none = { NULL, NULL, NULL };

	p = p != NULL ? p : &none;
	switch (role) {
	case PROC_PARENT:
		return sandbox_parent(p->audit_dir, p->socket_dir);
	case PROC_KEYHOLDER: {
		size_t n = 0;

		while (p->read != NULL && p->read[n] != NULL)
			n++;
		return sandbox_keyholder(p->read, n);
	}
	case PROC_SIGNER:
		return sandbox_signer();
	default:
		return -1;
	}
}

int proc_drop(enum proc_role role, const struct proc_user *u, const struct proc_paths *paths)
{
	const struct rlimit none = { 0, 0 };
	struct rlimit core;

	/* Already none (systemd's LimitCORE=0, whose unit filters setrlimit): nothing to set. */
	if (getrlimit(RLIMIT_CORE, &core) != 0 ||
	    ((core.rlim_cur != 0 || core.rlim_max != 0) && setrlimit(RLIMIT_CORE, &none) != 0) ||
	    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
		log_error("%s: no core dumps: %s", proc_name(role), strerror(errno));
		return -1;
	}
	if (u->set && change_user(u) != 0)
		return -1;
	/* A uid change resets both (commit_creds): the dumpable flag to fs.suid_dumpable, which
	 * may be 1 or 2, and the parent-death signal to none. */
	if ((u->set && (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 ||
	    (role != PROC_PARENT && die_with_forker() != 0))) ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		log_error("%s: %s", proc_name(role), strerror(errno));
		return -1;
	}
	if (sandbox(role, paths) != 0) {
		log_error("%s: cannot enter its sandbox", proc_name(role));
		return -1;
	}
	return 0;
}
