/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_SANDBOX_H
#define P256SIGND_SANDBOX_H

#include <stddef.h>

/*
 * The last step of a role's privilege drop: one system-call allowlist per role, installed for
 * good (docs/security.md lists every entry and why). The libseccomp backend
 * (sandbox-seccomp.c) kills the whole process with SIGSYS on any call outside its list, and
 * confines file access with Landlock where the kernel has it (sandbox-landlock.c, given the
 * paths each function below names); the no-op backend (sandbox-none.c, -Dseccomp=disabled)
 * enforces nothing and says so once in the log. Which one a build has is a constant of the
 * build (SANDBOX_ENFORCED, daemon/meson.build), for tests. Filters stack and are
 * inherited across fork: a process can only narrow what it was given.
 *
 * Each function sets PR_SET_NO_NEW_PRIVS itself (the proc module sets it just before too; the
 * second time is harmless), so that no role is ever sandboxed without it: seccomp needs it of an
 * unprivileged caller, and a setuid program executed later could not regain what was dropped.
 * Call it last, once the role has opened every descriptor and warmed up every library it uses
 * (OpenSSL loads its configuration and algorithms lazily: sign once first). Each returns 0, or -1
 * (logged with log_error) when the sandbox could not be installed: the caller must then stop.
 */

/*
 * The parent (libevent loop). It may still: wait in epoll; accept clients; read their credentials
 * (SO_PEERCRED, SO_PEERGROUPS); read and write its sockets, receive descriptors over them
 * (SCM_RIGHTS from the key-holder); create, connect and send on AF_UNIX sockets only (sd_notify,
 * journald); close and fcntl descriptors; set signal handlers and masks; read clocks; reap and
 * kill children (the key-holder, when stopping); unlink a path (its socket at exit); open a file
 * only for appending (O_WRONLY|O_APPEND, with O_CREAT and O_CLOEXEC: the audit file); allocate
 * memory; exit. It may not: open a file for reading, create a process,
 * execute a program, ptrace, read or write another process's memory, create a socket of any other
 * family, mount, use keyrings or BPF.
 *
 * Where the kernel has Landlock (ABI 1), it may also read nothing outside /proc (a client's name
 * and unit), append to or create files only beneath audit_dir (the audit file's directory: the
 * file is opened again there after a rotation), and remove files only beneath socket_dir (its
 * socket, at exit); either may be NULL (no audit file; a socket systemd made), and then nothing
 * is granted for it. Without Landlock, seccomp's append-only rule is all there is.
 */
int sandbox_parent(const char *audit_dir, const char *socket_dir);

/*
 * The key-holder. It may still: do everything a signer may; fork (clone with exactly glibc fork's
 * flags: no threads, no shared memory, no namespaces; no clone3), reap its children (wait4) and
 * signal them (no negative pid); create AF_UNIX socketpairs and pass a descriptor over them
 * (sendmsg with SCM_RIGHTS); close descriptors; set up a forked signer (dup2, close_range, signal
 * dispositions, mlock, its name, parent-death signal, dumpability, no-new-privileges) and install
 * a further filter (a signer's); open files for reading only (openat without any write, create or
 * truncate flag), fstat and lseek them, list directories. It may not create sockets, execute
 * programs, ptrace, or open anything for writing.
 *
 * paths (n of them) are what it may read again on reload: directories (everything beneath them)
 * or single files. The key-holder passes the directories of the configuration file and of every
 * key and certificate file, and the account databases that resolve "allow" names. Where the
 * kernel has Landlock (ABI 1, Linux 5.13), reading is limited to them: a directory rather than
 * a key file, because a renewed key or certificate is written as a new file renamed over the old
 * one (a new inode, which a rule on the old file would not cover), and because a key added on
 * reload sits beside the others. A key in another directory needs a restart. Without Landlock
 * (ENOSYS, or EOPNOTSUPP when it is built but not enabled), this is logged once and reading stays
 * open to every file the process's uid can read; writing, creating and every socket stay refused
 * by seccomp.
 */
int sandbox_keyholder(const char *const *paths, size_t n);

/*
 * A signer. It may still: read and recv (MSG_DONTWAIT) on its descriptors, write answers and
 * log lines, getrandom, read clocks, sched_yield, futex, allocate and free memory (brk, mmap
 * without PROT_EXEC, munmap, mremap, madvise), munlock its keys, getpid, return from signal
 * handlers, exit. Nothing that opens files or sockets, creates processes, closes or duplicates
 * descriptors, changes memory protection, executes programs or ptraces.
 */
int sandbox_signer(void);

#endif
