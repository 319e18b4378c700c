/* SPDX-License-Identifier: ISC */
/*
 * The libseccomp backend of sandbox.h: one allowlist per role, anything else kills the process
 * with SIGSYS, after the role's Landlock rules (sandbox-landlock.c). Each entry names the call
 * of the code (or of the library it calls) that needs it. The lists, with the reason for each
 * entry, are docs/security.md; tests/daemon/test_security_tables.py keeps the two in step. Written and tested for x86_64 (where fork is clone and recv is recvfrom); any
 * other architecture is refused rather than guessed at.
 */
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "sandbox-landlock.h"

/*
 * SANDBOX_SANITIZER is 1 in ASan/UBSan builds (meson, b_sanitize), 0 otherwise: a constant of
 * the build, never a run-time switch. The sanitizers' list is compiled in every build, and used
 * (through a plain `if`) only in theirs; only the call into their run-time needs #if.
 */
#ifndef SANDBOX_SANITIZER
#error "SANDBOX_SANITIZER must be defined by the build (daemon/meson.build)"
#endif
#if SANDBOX_SANITIZER
#include <sanitizer/common_interface_defs.h>
#endif

/* One allowed form of a system call: any arguments, or all of up to two conditions on them. */
struct allow {
	const char *name;
	unsigned ncmp;
	struct scmp_arg_cmp cmp[2];
};

#define ANY(call) { .name = call }
#define IF(call, c) { .name = call, .ncmp = 1, .cmp = { c } }
#define IF2(call, c1, c2) { .name = call, .ncmp = 2, .cmp = { c1, c2 } }
#define COUNT(list) (sizeof(list) / sizeof((list)[0]))

/* Flag and number conditions compare the low 32 bits only: the kernel reads these as int. */
#define LOW32_EQ(arg, v) { arg, SCMP_CMP_MASKED_EQ, 0xffffffffu, (v) }
#define NONE_OF(arg, bits) { arg, SCMP_CMP_MASKED_EQ, (bits), 0 }
#define MASKED(arg, bits, v) { arg, SCMP_CMP_MASKED_EQ, (bits), (v) }
/*
 * A pid of 0 or above: never another process group (-pgid) or every process the uid may signal
 * (-1). kill(0, sig), the caller's own group, stays possible: "!= 0" cannot be checked on the
 * low 32 bits alone.
 */
#define NOT_NEGATIVE(arg) { arg, SCMP_CMP_MASKED_EQ, 0x80000000u, 0 }

/* glibc 2.36's fork(): clone(CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD). */
#define FORK_FLAGS (CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD)
/* openat for reading only: no write access, no creating or truncating. */
#define WRITE_FLAGS (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)
/* openat for appending only (the audit file): write-only, append, never truncate. */
#define APPEND_MASK (O_ACCMODE | O_APPEND | O_TRUNC)
#define APPEND_ONLY (O_WRONLY | O_APPEND)

/* What signing needs once the keys are loaded and OpenSSL is warm. */
static const struct allow signer_calls[] = {
	ANY("read"),		/* requests, when busypoll_read falls back to a blocking read */
	ANY("recvfrom"),	/* recv(MSG_DONTWAIT): busypoll_read's polling */
	ANY("write"),		/* answers to the parent; log lines to stderr */
	ANY("getrandom"),	/* hedged nonces: fresh randomness for every signature */
	ANY("clock_gettime"),	/* busypoll's clock, when the vDSO cannot answer (valgrind) */
	ANY("sched_yield"),	/* busypoll's polling loop */
	ANY("futex"),		/* glibc's and OpenSSL's locks (uncontended: single-threaded) */
	ANY("brk"),		/* malloc's main heap */
	IF("mmap", NONE_OF(2, PROT_EXEC)),	/* malloc of large blocks; never executable */
	ANY("munmap"),		/* free of large blocks */
	ANY("mremap"),		/* realloc of large blocks */
	ANY("madvise"),		/* malloc_trim / free returning pages (MADV_DONTNEED) */
	ANY("munlock"),		/* key memory unlocked when it is wiped and freed at exit */
	ANY("getpid"),		/* log lines name the process */
	ANY("rt_sigreturn"),	/* return from a signal handler */
	ANY("restart_syscall"),	/* the kernel resuming a wait that a signal (SIGCHLD, SIGSTOP) cut */
	ANY("exit_group"),	/* exit() */
	ANY("exit"),		/* a thread's end (glibc's exit path may use it) */
};

/* The key-holder: a signer's list (sandbox_keyholder adds it) and this. */
static const struct allow keyholder_calls[] = {
	IF("clone", LOW32_EQ(0, FORK_FLAGS)),	/* fork() of a signer; no threads, no namespaces */
	ANY("set_robust_list"),	/* glibc's fork child resets its robust futex list */
	ANY("wait4"),		/* reaping signers (waitpid) */
	ANY("poll"),		/* waiting for the parent's channel and the SIGCHLD signalfd */
	ANY("getppid"),		/* a forked signer checks its parent-death signal is not too late */
	ANY("prlimit64"),	/* a forked signer's proc_drop: RLIMIT_CORE (get, and set to 0) */
	ANY("geteuid"),		/* the key-file owner check on reload */
	ANY("fgetxattr"),	/* the key-file ACL check on reload (systemd credentials) */
	ANY("sched_getaffinity"),	/* reload: config_load's default "workers" (CPUs online) */
	IF("kill", NOT_NEGATIVE(0)),	/* stopping a signer; never pid -1 or -pgid */
	IF("socketpair", LOW32_EQ(0, AF_UNIX)),	/* each signer's channel to the parent */
	ANY("sendmsg"),		/* the parent's end of a channel, as SCM_RIGHTS */
	ANY("recvmsg"),		/* messages from the parent on its channel */
	ANY("close"),		/* the signer's end after the fork; files read on reload */
	ANY("dup2"),		/* the forked signer moves its channel to a fixed descriptor */
	ANY("close_range"),	/* the forked signer closes every other descriptor */
	ANY("rt_sigaction"),	/* the forked signer ignores SIGINT, SIGTERM, SIGHUP, SIGPIPE */
	ANY("rt_sigprocmask"),	/* signal masks around fork */
	ANY("mlock"),		/* the signer locks its copy of the keys (not inherited by fork) */
	/* The forked signer's set-up, then its own stricter filter (filters stack). */
	IF("prctl", LOW32_EQ(0, PR_SET_NAME)),
	IF("prctl", LOW32_EQ(0, PR_SET_PDEATHSIG)),
	IF("prctl", LOW32_EQ(0, PR_SET_DUMPABLE)),
	IF("prctl", LOW32_EQ(0, PR_SET_NO_NEW_PRIVS)),
	IF("prctl", LOW32_EQ(0, PR_SET_SECCOMP)),
	IF("seccomp", LOW32_EQ(0, SECCOMP_SET_MODE_FILTER)),	/* the signer's filter */
	IF("seccomp", LOW32_EQ(0, SECCOMP_GET_ACTION_AVAIL)),	/* libseccomp's probes */
	IF("seccomp", LOW32_EQ(0, SECCOMP_GET_NOTIF_SIZES)),
	/* Reload: reading the configuration and key files again, and nothing else. */
	IF("openat", NONE_OF(2, WRITE_FLAGS)),	/* read-only opens (Landlock limits where) */
	ANY("newfstatat"),	/* fstat (glibc's is newfstatat with AT_EMPTY_PATH) */
	ANY("fstat"),		/* fstat of older glibc */
	ANY("lseek"),		/* stdio's reads */
	ANY("getdents64"),	/* a directory of keys ($CREDENTIALS_DIRECTORY) */
};

/* The parent: libevent's loop, clients, the key-holder and signers, systemd, the audit file. */
static const struct allow parent_calls[] = {
	ANY("epoll_wait"),	/* libevent's loop */
	ANY("epoll_ctl"),	/* libevent adding and removing descriptors */
	ANY("poll"),		/* the key-holder's audit seal, awaited at reopen and stop */
	ANY("accept4"),		/* new clients */
	IF2("getsockopt", LOW32_EQ(1, SOL_SOCKET), LOW32_EQ(2, SO_PEERCRED)),	/* a client's uid */
	IF2("getsockopt", LOW32_EQ(1, SOL_SOCKET), LOW32_EQ(2, SO_PEERGROUPS)),	/* its groups */
	IF2("getsockopt", LOW32_EQ(1, SOL_SOCKET), LOW32_EQ(2, SO_SNDBUF)),	/* sd_notify */
	IF2("setsockopt", LOW32_EQ(1, SOL_SOCKET), LOW32_EQ(2, SO_SNDBUF)),	/* sd_notify */
	IF2("setsockopt", LOW32_EQ(1, SOL_SOCKET), LOW32_EQ(2, SO_SNDBUFFORCE)),	/* sd_notify */
	ANY("read"),		/* chan_read: clients, signers, the key-holder */
	ANY("recvfrom"),	/* recv: libevent's signal socketpair, busypoll */
	ANY("recvmsg"),		/* signers' channels from the key-holder (SCM_RIGHTS) */
	ANY("write"),		/* clients, signers, log lines to stderr */
	ANY("writev"),		/* chan_flush's evbuffer_write */
	ANY("sendto"),		/* send(): libevent's signal handler wakes its loop (evsig) */
	ANY("sendmsg"),		/* sd_notify */
	ANY("sendmmsg"),	/* journald: a batch of audit records */
	IF("socket", LOW32_EQ(0, AF_UNIX)),	/* sd_notify's and journald's datagram sockets */
	ANY("connect"),		/* audit-journal.c's journald socket (AF_UNIX: no other family) */
	ANY("close"),		/* finished connections */
	ANY("fcntl"),		/* non-blocking and close-on-exec flags of accepted sockets */
	ANY("clock_gettime"),	/* timeouts, when the vDSO cannot answer */
	ANY("getpid"),		/* log lines, sd_notify */
	ANY("getuid"),		/* sd_notify: the credentials it sends along */
	ANY("geteuid"),		/* sd_notify */
	ANY("getgid"),		/* sd_notify */
	ANY("getegid"),		/* sd_notify */
	ANY("gettid"),		/* glibc's abort and raise */
	ANY("wait4"),		/* reaping the key-holder */
	IF("kill", NOT_NEGATIVE(0)),	/* stopping the key-holder; never -1 or -pgid */
	ANY("unlink"),		/* removing its socket at exit */
	IF("openat", MASKED(2, APPEND_MASK, APPEND_ONLY)),	/* the audit file */
	IF("ioctl", LOW32_EQ(1, TCGETS)),	/* libsystemd's line reader asks isatty (/proc) */
	ANY("newfstatat"),	/* stdio sizing its buffer: libsystemd's reads beneath /proc */
	ANY("fstat"),		/* fstat of older glibc */
	ANY("getrandom"),	/* libevent's and OpenSSL's randomness */
	ANY("sched_yield"),	/* busypoll */
	ANY("nanosleep"),	/* parent.c: the tick while it waits for the key-holder to exit */
	ANY("clock_nanosleep"),	/* the same nanosleep, as glibc 2.36 makes it */
	ANY("rt_sigaction"),	/* libevent's signal events */
	ANY("rt_sigprocmask"),	/* glibc and libevent mask signals around work */
	ANY("rt_sigreturn"),	/* return from a signal handler */
	ANY("restart_syscall"),	/* the kernel resuming a wait that a signal cut */
	ANY("futex"),		/* glibc's and OpenSSL's locks */
	ANY("brk"),		/* malloc's main heap */
	IF("mmap", NONE_OF(2, PROT_EXEC)),	/* malloc of large blocks; never executable */
	ANY("munmap"),		/* free of large blocks */
	ANY("mremap"),		/* realloc of large blocks */
	ANY("madvise"),		/* free returning pages */
	ANY("exit_group"),	/* exit() */
	ANY("exit"),		/* a thread's end */
};

/*
 * A client's process name and unit at accept (peer.c): /proc/PID/comm, /proc/PID/cgroup and
 * /proc/1/cgroup. Allowed only where Landlock confines the parent's reads to /proc; without it
 * the open fails with EACCES (the name and unit stay unknown) rather than let the parent read
 * whatever its uid may.
 */
static const struct allow peer_calls[] = {
	IF("openat", NONE_OF(2, WRITE_FLAGS)),	/* read-only opens, beneath /proc (Landlock) */
};

/*
 * What the sanitizers' run-time calls inside a sandbox (ASan/UBSan reports, LeakSanitizer's
 * check at exit), added to every role in sanitizer builds only. Found by running the sandbox
 * tests in an ASan build (tests/daemon/test-sandbox.c).
 */
static const struct allow sanitizer_calls[] = {
	ANY("sigaltstack"),	/* the sanitizers' signal stack, set up and torn down per thread */
	ANY("gettid"),		/* their thread registry */
	IF("open", NONE_OF(1, WRITE_FLAGS)),	/* /proc/self/maps (their own raw open) */
	IF("ioctl", LOW32_EQ(1, TCGETS)),	/* isatty(stderr): a report in colour or not */
	/* LeakSanitizer's stop-the-world makes a non-dumpable process dumpable while it works. */
	IF("prctl", LOW32_EQ(0, PR_GET_DUMPABLE)),
	IF("prctl", LOW32_EQ(0, PR_SET_DUMPABLE)),
	IF("prctl", LOW32_EQ(0, PR_SET_PTRACER)),	/* lets its tracer attach (Yama) */
	IF("prctl", LOW32_EQ(0, PR_SET_PDEATHSIG)),	/* the tracer dies with the process */
	IF("mprotect", NONE_OF(2, PROT_EXEC)),	/* the guard page of its tracer's stack */
	ANY("rt_sigprocmask"),	/* signals blocked while the world is stopped */
	ANY("rt_sigaction"),	/* the tracer's handlers for a fault while it works */
	/* LeakSanitizer's tracer: a thread-like task without CLONE_THREAD that ptraces the rest. */
	IF("clone", LOW32_EQ(0, CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_UNTRACED)),
	IF("ptrace", LOW32_EQ(0, PTRACE_ATTACH)),
	IF("ptrace", LOW32_EQ(0, PTRACE_GETREGSET)),
	IF("ptrace", LOW32_EQ(0, PTRACE_DETACH)),
	ANY("wait4"),		/* the tracer waiting for the stopped threads */
	ANY("getppid"),		/* the tracer checking that the process it stops is there */
	ANY("getdents"),	/* the tracer listing the threads (/proc/self/task) */
	ANY("lseek"),		/* ... from the start again */
	ANY("close"),		/* ... and closing it */
	ANY("dup"),		/* the tracer keeps its descriptors above 2 (a signer closes 0 and 1) */
};

struct list {
	const struct allow *calls;
	size_t n;
	int deny_errno;		/* 0: allowed; else the calls fail with this errno */
};

static int add_calls(scmp_filter_ctx ctx, const struct list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		int nr = seccomp_syscall_resolve_name(l->calls[i].name), e;

		if (nr == __NR_SCMP_ERROR) {
			log_error("sandbox: no system call named %s", l->calls[i].name);
			return -1;
		}
		e = seccomp_rule_add_array(ctx,
		    l->deny_errno ? SCMP_ACT_ERRNO((uint32_t)l->deny_errno) : SCMP_ACT_ALLOW, nr,
		    l->calls[i].ncmp, l->calls[i].cmp);
		if (e != 0) {
			log_error("sandbox: allowing %s: %s", l->calls[i].name, strerror(-e));
			return -1;
		}
	}
	return 0;
}

/* Loads a filter allowing the calls of lists[0..n) (and the sanitizers'), killing on the rest. */
static int install(const char *role, const struct list *lists, size_t n)
{
	static const struct list sanitizer = { sanitizer_calls, COUNT(sanitizer_calls), 0 };
	scmp_filter_ctx ctx = NULL;
	int r = -1, e;

	if (seccomp_arch_native() != SCMP_ARCH_X86_64) {
		log_error("sandbox %s: the allowlists are written for x86_64 only; build with "
		    "-Dseccomp=disabled on this architecture", role);
		return -1;
	}
	if ((ctx = seccomp_init(SCMP_ACT_KILL_PROCESS)) == NULL) {
		/* libseccomp checks that the kernel can kill a whole process (Linux 4.14). */
		log_error("sandbox %s: seccomp_init failed: no SECCOMP_RET_KILL_PROCESS here "
		    "(an old kernel, or valgrind, which has no seccomp(2))", role);
		return -1;
	}
	/* Another architecture's calls (i386's int 0x80, x32) would bypass the names above. */
	if ((e = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS)) != 0) {
		log_error("sandbox %s: %s", role, strerror(-e));
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (add_calls(ctx, &lists[i]) != 0)
			goto out;
	if (SANDBOX_SANITIZER && add_calls(ctx, &sanitizer) != 0)
		goto out;
	if ((e = seccomp_load(ctx)) != 0) {
		log_error("sandbox %s: loading the filter: %s", role, strerror(-e));
		goto out;
	}
	r = 0;
out:
	seccomp_release(ctx);
	return r;
}

/* sandbox.h: the sandbox never goes on without no-new-privileges. */
static int no_new_privs(const char *role)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		log_error("sandbox %s: PR_SET_NO_NEW_PRIVS: %s", role, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The sanitizers' run-time reads what a report needs later while it still can: their maps
 * (__sanitizer_sandbox_on_notify) and, by symbolizing one address now, the program's own debug
 * information (the symbolizer opens /proc/self/exe on first use, which no filter allows).
 */
static void tell_sanitizers(void)
{
#if SANDBOX_SANITIZER
	__sanitizer_sandbox_arguments args = { 0 };
	char frame[256];

	__sanitizer_sandbox_on_notify(&args);
	__sanitizer_symbolize_pc(__builtin_return_address(0), "%F %L", frame, sizeof(frame));
#endif
}

int sandbox_signer(void)
{
	const struct list lists[] = { { signer_calls, COUNT(signer_calls), 0 } };

	if (no_new_privs("signer") != 0)
		return -1;
	tell_sanitizers();
	return install("signer", lists, COUNT(lists));
}

int sandbox_keyholder(const char *const *paths, size_t n)
{
	const struct list lists[] = {
		{ signer_calls, COUNT(signer_calls), 0 },
		{ keyholder_calls, COUNT(keyholder_calls), 0 },
	};
	int confined;

	if (no_new_privs("keyholder") != 0 ||
	    (confined = landlock_confine("keyholder", paths, n, NULL, 0)) < 0)
		return -1;
	if (!confined)
		log_info("sandbox keyholder: no Landlock in this kernel: reload may read any file "
		    "this user can, but still write none");
	tell_sanitizers();
	return install("keyholder", lists, COUNT(lists));
}

/*
 * Every right of Landlock ABI 1 is handled for the parent: reading beneath /proc; appending to
 * and creating the audit file beneath its directory (opened again on SIGHUP, a new file after a
 * rotation); removing its socket at exit; nothing else anywhere.
 */
int sandbox_parent(const char *audit_dir, const char *socket_dir)
{
	static const char *const proc[] = { "/proc" };
	const struct landlock_grant grants[] = {
		{ audit_dir, LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_MAKE_REG },
		{ socket_dir, LANDLOCK_ACCESS_FS_REMOVE_FILE },
	};
	struct list lists[] = {
		{ parent_calls, COUNT(parent_calls), 0 },
		{ peer_calls, COUNT(peer_calls), EACCES },
	};
	int confined;

	if (no_new_privs("parent") != 0 ||
	    (confined = landlock_confine("parent", proc, 1, grants, COUNT(grants))) < 0)
		return -1;
	if (confined)
		lists[1].deny_errno = 0;
	else
		log_info("sandbox parent: no Landlock in this kernel: clients' process names and "
		    "units are not read (the parent opens no file for reading)");
	tell_sanitizers();
	return install("parent", lists, COUNT(lists));
}
