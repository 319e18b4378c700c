/* SPDX-License-Identifier: ISC */
/*
 * Unit test of the sandboxes (daemon/sandbox.h). Every case runs in a child that enters one
 * role's sandbox and then either makes the calls the role still needs (they must work, and the
 * child exits 0 through exit(), the sanitizers' exit path included) or makes one call the role
 * must not (the seccomp backend kills the child with SIGSYS). With the no-op backend the same
 * forbidden calls must go through, so that the test tells the two builds apart and says that
 * nothing is enforced.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "peer.h"
#include "sandbox.h"

#define ENTER_FAILED 100

static const int enforced = SANDBOX_ENFORCED;	/* the seccomp backend (meson) */
static pid_t test_pid;		/* the test's own process, a peer whose name is known */
static int landlock;		/* the seccomp backend, on a kernel with Landlock */
static char tmp[] = "/tmp/test-sandbox-XXXXXX";
static char keydir[64], otherdir[64], key_path[96], renewed_path[96], added_path[96];
static char outside_path[96];
static char single_path[96];	/* a file allowed on its own, beside outside_path */
static char audit_path[96], notify_path[96];
static char auditdir[64], sockdir[64], rotated_path[96], socket_path[96];
static int chan[2];		/* a socketpair made before each fork, as a role's channel */
static int sync_up[2], sync_down[2];	/* child -> test, test -> child */

/* In a child: the first failed step is named on stderr and becomes the exit status 1. */
#define MUST(cond) \
	do { \
		if (!(cond)) { \
			fprintf(stderr, "child: %s: %s\n", #cond, strerror(errno)); \
			return 1; \
		} \
	} while (0)

typedef int (*enter_fn)(void);
typedef int (*body_fn)(void);

static int enter_signer(void)
{
	return sandbox_signer();
}

static int enter_keyholder(void)
{
	const char *const paths[] = { keydir, single_path };	/* as keys_read_dirs gives them */

	return sandbox_keyholder(paths, 2);
}

static int enter_parent(void)
{
	return sandbox_parent(auditdir, sockdir);
}

/* Starts body in a child under the sandbox that enter installs, with fresh channels. */
static pid_t spawn(enter_fn enter, body_fn body)
{
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, chan) != 0 || pipe(sync_up) != 0 ||
	    pipe(sync_down) != 0)
		test_fatal("socketpair/pipe");
	fflush(NULL);
	if ((pid = fork()) < 0)
		test_fatal("fork");
	/*
	 * Like a role: stdin and stdout closed (a signer keeps only stderr and its channel), not
	 * dumpable (no core, no ptrace by the same uid), then the sandbox.
	 */
	if (pid == 0) {
		if (close(STDIN_FILENO) != 0 || close(STDOUT_FILENO) != 0 ||
		    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 || enter() != 0)
			_exit(ENTER_FAILED);
		exit(body());
	}
	return pid;
}

/* Lets the child go on past its wait (wait_for_test), then reaps it; returns its wait status. */
static int reap(pid_t pid)
{
	int st;

	if (write(sync_down[1], "g", 1) != 1 || waitpid(pid, &st, 0) != pid)
		test_fatal("write/waitpid");
	close(chan[0]);
	close(chan[1]);
	close(sync_up[0]);
	close(sync_up[1]);
	close(sync_down[0]);
	close(sync_down[1]);
	return st;
}

static int run(enter_fn enter, body_fn body)
{
	return reap(spawn(enter, body));
}

static void show(int st)
{
	if (WIFSIGNALED(st))
		fprintf(stderr, "  [%s] child killed by signal %d\n", test_case, WTERMSIG(st));
	else
		fprintf(stderr, "  [%s] child exited %d\n", test_case, WEXITSTATUS(st));
}

/* Every call in body works under the sandbox: the child exits 0. */
static void allowed(const char *name, enter_fn enter, body_fn body)
{
	int st = run(enter, body);

	test_case = name;
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		show(st);
}

/*
 * body makes one forbidden call and returns 0 once it went through: the seccomp backend kills
 * the child with SIGSYS first; the no-op backend lets it through.
 */
static void refused(const char *name, enter_fn enter, body_fn body)
{
	int st = run(enter, body);
	int ok = enforced ? WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS :
	    WIFEXITED(st) && WEXITSTATUS(st) == 0;

	test_case = name;
	CHECK(ok);
	if (!ok)
		show(st);
}

/* ---- calls a signer needs ----------------------------------------------------------------- */

static int signer_work(void)
{
	uint8_t buf[32], nonce[32];
	struct timespec ts;
	uint8_t *big;

	MUST(write(chan[0], "request", 7) == 7);
	MUST(read(chan[1], buf, sizeof(buf)) == 7 && memcmp(buf, "request", 7) == 0);
	MUST(recv(chan[1], buf, sizeof(buf), MSG_DONTWAIT) < 0 && errno == EAGAIN);
	MUST(getrandom(nonce, sizeof(nonce), 0) == (ssize_t)sizeof(nonce));
	/* The system call itself, not the vDSO's answer without one. */
	MUST(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts) == 0 && ts.tv_sec >= 0);
	MUST((big = malloc(1 << 20)) != NULL);
	memset(big, 0x5a, 1 << 20);
	free(big);
	MUST(sched_yield() == 0);
	MUST(getpid() > 0);
	return 0;
}

/* ---- forbidden calls: each returns 0 once the call went through -------------------------- */

static int try_openat(void)
{
	int fd = open("/dev/null", O_RDONLY);

	return fd >= 0 ? 0 : 1;
}

static int try_open_write(void)
{
	int fd = open(key_path, O_WRONLY);

	return fd >= 0 ? 0 : 1;
}

static int try_unix_socket(void)
{
	return socket(AF_UNIX, SOCK_STREAM, 0) >= 0 ? 0 : 1;
}

static int try_inet_socket(void)
{
	return socket(AF_INET, SOCK_STREAM, 0) >= 0 ? 0 : 1;
}

static int try_inet6_socket(void)
{
	return socket(AF_INET6, SOCK_DGRAM, 0) >= 0 ? 0 : 1;
}

static int try_execve(void)
{
	char *const argv[] = { "true", NULL }, *const envp[] = { NULL };

	execve("/bin/true", argv, envp);	/* /bin/true's exit 0 when it went through */
	return 1;
}

static int try_ptrace(void)
{
	return ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0 ? 0 : 1;
}

/* The parent reads its sockets with read and readv, never asking FIONREAD first (chan.c). */
static int try_fionread(void)
{
	int n;

	return ioctl(chan[0], FIONREAD, &n);
}

static int try_process_vm_readv(void)
{
	char src[8] = "secret!", dst[8];
	struct iovec local = { dst, sizeof(dst) }, remote = { src, sizeof(src) };

	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == sizeof(dst) ? 0 : 1;
}

/* A user namespace: clone with a flag fork never uses. */
static int try_clone_newuser(void)
{
	long pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL, NULL, 0);

	if (pid == 0)
		_exit(0);
	return pid > 0 && waitpid((pid_t)pid, NULL, 0) == pid ? 0 : 1;
}

/* clone3, the call glibc creates threads (and posix_spawn children) with. */
static int try_clone3(void)
{
	struct clone_args args = { .exit_signal = SIGCHLD };
	long pid = syscall(SYS_clone3, &args, sizeof(args));

	if (pid == 0)
		_exit(0);
	return pid > 0 && waitpid((pid_t)pid, NULL, 0) == pid ? 0 : 1;
}

/* ---- the key-holder ---------------------------------------------------------------------- */

/*
 * Forks a signer as the key-holder will: its set-up, then its own filter on top, one answer on
 * the channel, then openat. Returns 0 when the signer answered and then died of SIGSYS (seccomp)
 * or opened the file (none).
 */
static int keyholder_forks_signer(void)
{
	int st;
	char c;
	pid_t pid;

	MUST((pid = fork()) >= 0);
	if (pid == 0) {
		if (prctl(PR_SET_NAME, "signer", 0, 0, 0) != 0 ||
		    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 ||
		    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 ||
		    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || dup2(chan[0], 3) != 3 ||
		    close_range(4, ~0U, 0) != 0 || signal(SIGPIPE, SIG_IGN) == SIG_ERR ||
		    sandbox_signer() != 0)
			_exit(ENTER_FAILED);
		if (write(3, "s", 1) != 1)
			_exit(2);
		_exit(try_openat());
	}
	MUST(read(chan[1], &c, 1) == 1 && c == 's');
	MUST(waitpid(pid, &st, 0) == pid);
	if (enforced)
		MUST(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS);
	else
		MUST(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return 0;
}

/* A new socketpair, one end passed over the channel with SCM_RIGHTS, and used once received. */
static int keyholder_passes_fd(void)
{
	int pair[2], got;
	char c = 'x', data[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = data,
		.msg_controllen = sizeof(data) };
	struct cmsghdr *cm;

	MUST(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) == 0);
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &pair[0], sizeof(int));
	MUST(sendmsg(chan[0], &msg, 0) == 1);
	MUST(close(pair[0]) == 0);
	memset(data, 0, sizeof(data));
	msg.msg_controllen = sizeof(data);
	MUST(recvmsg(chan[1], &msg, 0) == 1 && (cm = CMSG_FIRSTHDR(&msg)) != NULL &&
	    cm->cmsg_type == SCM_RIGHTS);
	memcpy(&got, CMSG_DATA(cm), sizeof(int));
	MUST(write(got, "k", 1) == 1 && read(pair[1], &c, 1) == 1 && c == 'k');
	MUST(close(got) == 0 && close(pair[1]) == 0);
	return 0;
}

/* Reads the whole (short) file at path into buf; 0, or errno. */
static int read_file(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;
	ssize_t n;

	if (fd < 0)
		return errno;
	n = read(fd, buf, cap - 1);
	e = errno;
	close(fd);
	if (n < 0)
		return e;
	buf[n] = '\0';
	return 0;
}

/*
 * Reload's reads: the key file, a key added beside it, and the key file renamed over by a
 * renewed one after the sandbox was entered (a new inode). Outside the key directory, Landlock
 * refuses to read (EACCES); without Landlock that read goes through.
 */
static int keyholder_reads(void)
{
	char buf[64], c;

	MUST(read_file(key_path, buf, sizeof(buf)) == 0 && strcmp(buf, "old key\n") == 0);
	MUST(read_file(added_path, buf, sizeof(buf)) == 0 && strcmp(buf, "added key\n") == 0);
	MUST(write(sync_up[1], "r", 1) == 1);	/* the test renames the renewed key now */
	MUST(read(sync_down[0], &c, 1) == 1);
	MUST(read_file(key_path, buf, sizeof(buf)) == 0 && strcmp(buf, "renewed key\n") == 0);
	/* A file allowed on its own (an account database) opens; its neighbour does not. */
	MUST(read_file(single_path, buf, sizeof(buf)) == 0 && strcmp(buf, "accounts\n") == 0);
	if (landlock)
		MUST(read_file(outside_path, buf, sizeof(buf)) == EACCES);
	else
		MUST(read_file(outside_path, buf, sizeof(buf)) == 0);
	return 0;
}

/* ---- the parent -------------------------------------------------------------------------- */

/* sd_notify's AF_UNIX datagram to $NOTIFY_SOCKET, a client's SO_PEERCRED, the audit file, a
 * batch of messages with sendmmsg (the journal's records). */
static int parent_work(void)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct iovec iov[2] = { { "a", 1 }, { "b", 1 } };
	struct mmsghdr mm[2] = { { .msg_hdr = { .msg_iov = &iov[0], .msg_iovlen = 1 } },
		{ .msg_hdr = { .msg_iov = &iov[1], .msg_iovlen = 1 } } };
	int fd;
	char got[2];

	MUST((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) >= 0 && close(fd) == 0);
	MUST(sendmmsg(chan[0], mm, 2, MSG_DONTWAIT) == 2 && read(chan[1], got, 2) == 2 &&
	    memcmp(got, "ab", 2) == 0);
	MUST(sd_notify(0, "READY=1") > 0);
	MUST(getsockopt(chan[1], SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 &&
	    cred.pid > 0 && cred.uid == getuid());
	MUST((fd = open(audit_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600)) >= 0);
	MUST(write(fd, "audit\n", 6) == 6 && close(fd) == 0);
	return 0;
}

/*
 * The parent reads beneath /proc only (a client's process name and unit, peer.c), where Landlock
 * confines it; the audit file, like any other file, it may only append to. Without Landlock a
 * read-only open fails with EACCES everywhere (seccomp), and the peer stays unknown.
 */
static int parent_reads(void)
{
	struct peer_identity id;
	char buf[64];

	if (!enforced) {
		MUST(read_file(audit_path, buf, sizeof(buf)) == 0);
		return 0;
	}
	MUST(read_file(audit_path, buf, sizeof(buf)) == EACCES);
	MUST(read_file("/etc/passwd", buf, sizeof(buf)) == EACCES);
	if (!landlock) {
		MUST(read_file("/proc/self/comm", buf, sizeof(buf)) == EACCES);
		MUST(peer_identity_take(test_pid, &id) == -1 && id.comm[0] == '\0');
		return 0;
	}
	MUST(read_file("/proc/self/comm", buf, sizeof(buf)) == 0 &&
	    strcmp(buf, "test-sandbox\n") == 0);
	/* The test's own process, from the child: its name, and its unit lookup is not killed. */
	MUST(peer_identity_take(test_pid, &id) == 0 && strcmp(id.comm, "test-sandbox") == 0);
	return 0;
}

/*
 * With Landlock the parent writes only where its sandbox says: it appends to and creates files
 * beneath the audit file's directory (a new file after a rotation) and removes its socket, and
 * can do neither anywhere else (EACCES). Without Landlock, seccomp alone allows both everywhere.
 */
static int parent_writes(void)
{
	int fd, outside = landlock ? EACCES : 0;

	MUST((fd = open(rotated_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600)) >= 0 &&
	    write(fd, "a\n", 2) == 2 && close(fd) == 0);
	MUST(unlink(socket_path) == 0);
	errno = 0;
	fd = open(outside_path, O_WRONLY | O_APPEND | O_CLOEXEC);
	MUST(fd >= 0 ? outside == 0 && close(fd) == 0 : errno == outside);
	errno = 0;
	MUST(unlink(single_path) == 0 ? outside == 0 : errno == outside);
	return 0;
}

/* Opening the audit file to read and write is a forbidden call. */
static int try_open_audit_rdwr(void)
{
	return open(audit_path, O_RDWR | O_APPEND) >= 0 ? 0 : 1;
}

static void check_notified(int notify_fd)
{
	char buf[64];
	ssize_t n = recv(notify_fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);

	test_case = "parent: sd_notify";
	CHECK(n == 7 && memcmp(buf, "READY=1", 7) == 0);
}

/* ---- /proc/PID/status of a sandboxed child ----------------------------------------------- */

static int wait_for_test(void)
{
	char c;

	MUST(write(sync_up[1], "w", 1) == 1);
	MUST(read(sync_down[0], &c, 1) == 1);
	return 0;
}

/* The value of a "Name:\tvalue" line of /proc/pid/status, or -1. */
static long status_field(pid_t pid, const char *name)
{
	char path[64], buf[4096], *p;
	size_t n = strlen(name);

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (read_file(path, buf, sizeof(buf)) != 0)
		return -1;
	for (p = buf; (p = strstr(p, name)) != NULL; p += n)
		if ((p == buf || p[-1] == '\n') && p[n] == ':')
			return strtol(p + n + 1, NULL, 10);
	return -1;
}

/*
 * Reads the status of a child waiting inside the sandbox: Seccomp 2 (filter mode) and
 * NoNewPrivs 1, both set by sandbox_*; Seccomp 0 under the no-op backend.
 */
static void check_status(const char *name, enter_fn enter)
{
	pid_t pid = spawn(enter, wait_for_test);
	char c;
	int st;

	test_case = name;
	if (read(sync_up[0], &c, 1) == 1) {
		CHECK_INT(status_field(pid, "Seccomp"), enforced ? 2 : 0);
		if (enforced)
			CHECK_INT(status_field(pid, "NoNewPrivs"), 1);
	} else {
		CHECK(!"the child entered its sandbox");
	}
	st = reap(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* ---- the reload test: renames the renewed key over the key while the child waits -------- */

static void keyholder_reload(void)
{
	pid_t pid = spawn(enter_keyholder, keyholder_reads);
	char c;
	int st;

	test_case = "keyholder: reload reads";
	if (read(sync_up[0], &c, 1) == 1)
		CHECK(rename(renewed_path, key_path) == 0);
	st = reap(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		show(st);
}

/* ---- a sanitizer's report from inside a sandbox (sanitizer builds) ----------------------- */

static int overflow_heap(void)
{
	volatile size_t size = 16;	/* unknown to the compiler, which would refuse p[16] */
	volatile char *p = malloc(size);

	MUST(p != NULL);
	p[size] = 1;	/* one past the end: AddressSanitizer reports and stops the process */
	free((void *)p);
	return 0;
}

/* The child's report, written to stderr (a pipe here) under the signer's filter, is whole. */
static void sanitizer_report(void)
{
	static char out[65536];
	size_t len = 0;
	ssize_t n;
	pid_t pid;
	int st, err[2];

	test_case = "signer: AddressSanitizer report";
	if (pipe(err) != 0)
		test_fatal("pipe");
	fflush(NULL);
	if ((pid = fork()) < 0)
		test_fatal("fork");
	if (pid == 0) {
		if (dup2(err[1], STDERR_FILENO) != STDERR_FILENO || sandbox_signer() != 0)
			_exit(ENTER_FAILED);
		exit(overflow_heap());
	}
	close(err[1]);
	while (len < sizeof(out) - 1 && (n = read(err[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	close(err[0]);
	if (waitpid(pid, &st, 0) != pid)
		test_fatal("waitpid");
	CHECK(strstr(out, "ERROR: AddressSanitizer: heap-buffer-overflow") != NULL);
	CHECK(strstr(out, "overflow_heap") != NULL);	/* the stack, symbolized */
	CHECK(strstr(out, "SUMMARY: AddressSanitizer") != NULL);
	CHECK(!(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS));
	CHECK(!(WIFEXITED(st) && WEXITSTATUS(st) == 0));
	if (test_failures != 0)
		fprintf(stderr, "  [%s] child's stderr:\n%s\n", test_case, out);
}

/* ---- fixtures ----------------------------------------------------------------------------- */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f == NULL || fputs(text, f) == EOF || fclose(f) != 0)
		test_fatal("cannot write a fixture file");
}

/* A key directory (key, added key, renewed key), a file outside it, the notify socket. */
static int make_fixtures(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (mkdtemp(tmp) == NULL)
		test_fatal("mkdtemp");
	snprintf(keydir, sizeof(keydir), "%s/keys", tmp);
	snprintf(otherdir, sizeof(otherdir), "%s/other", tmp);
	snprintf(auditdir, sizeof(auditdir), "%s/log", tmp);
	snprintf(sockdir, sizeof(sockdir), "%s/run", tmp);
	if (mkdir(keydir, 0700) != 0 || mkdir(otherdir, 0700) != 0 ||
	    mkdir(auditdir, 0700) != 0 || mkdir(sockdir, 0700) != 0)
		test_fatal("mkdir");
	snprintf(key_path, sizeof(key_path), "%s/key.pem", keydir);
	snprintf(added_path, sizeof(added_path), "%s/added.pem", keydir);
	snprintf(renewed_path, sizeof(renewed_path), "%s/key.pem.new", keydir);
	snprintf(outside_path, sizeof(outside_path), "%s/secret", otherdir);
	snprintf(single_path, sizeof(single_path), "%s/accounts", otherdir);
	snprintf(audit_path, sizeof(audit_path), "%s/audit.log", auditdir);
	snprintf(rotated_path, sizeof(rotated_path), "%s/audit.log.new", auditdir);
	snprintf(socket_path, sizeof(socket_path), "%s/p256signd.sock", sockdir);
	snprintf(notify_path, sizeof(notify_path), "%s/notify", tmp);
	write_file(key_path, "old key\n");
	write_file(added_path, "added key\n");
	write_file(renewed_path, "renewed key\n");
	write_file(outside_path, "not a key\n");
	write_file(single_path, "accounts\n");
	write_file(socket_path, "");
	memcpy(sa.sun_path, notify_path, strlen(notify_path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    setenv("NOTIFY_SOCKET", notify_path, 1) != 0)
		test_fatal("notify socket");
	return fd;
}

static void remove_fixtures(int notify_fd)
{
	close(notify_fd);
	unlink(notify_path);
	unlink(audit_path);
	unlink(rotated_path);
	unlink(socket_path);
	unlink(key_path);
	unlink(added_path);
	unlink(renewed_path);
	unlink(outside_path);
	unlink(single_path);
	rmdir(keydir);
	rmdir(otherdir);
	rmdir(auditdir);
	rmdir(sockdir);
	rmdir(tmp);
}

int main(void)
{
	int notify_fd = make_fixtures();
	struct peer_identity self;

	/* As the daemon does before its sandbox: libsystemd learns the cgroup layout (statfs). */
	test_pid = getpid();
	peer_identity_take(test_pid, &self);

	landlock = enforced && syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION) > 0;
	if (!enforced)
		printf("test-sandbox: sandboxing is disabled in this build (no libseccomp): "
		    "checking that nothing is enforced\n");
	else if (!landlock)
		printf("test-sandbox: no Landlock in this kernel: the key-holder may read any "
		    "file (checked)\n");

	allowed("signer: read, recv, write, getrandom, clock, malloc, yield", enter_signer,
	    signer_work);
	refused("signer: openat", enter_signer, try_openat);
	refused("signer: socket(AF_UNIX)", enter_signer, try_unix_socket);
	refused("signer: execve", enter_signer, try_execve);
	refused("signer: ptrace", enter_signer, try_ptrace);
	check_status("signer: /proc status", enter_signer);

	allowed("keyholder: a signer's calls", enter_keyholder, signer_work);
	allowed("keyholder: fork, then the signer's filter on top", enter_keyholder,
	    keyholder_forks_signer);
	allowed("keyholder: socketpair, SCM_RIGHTS", enter_keyholder, keyholder_passes_fd);
	keyholder_reload();
	refused("keyholder: open for writing", enter_keyholder, try_open_write);
	refused("keyholder: socket(AF_INET)", enter_keyholder, try_inet_socket);
	refused("keyholder: execve", enter_keyholder, try_execve);
	refused("keyholder: clone(CLONE_NEWUSER)", enter_keyholder, try_clone_newuser);
	refused("keyholder: clone3 (threads)", enter_keyholder, try_clone3);
	check_status("keyholder: /proc status", enter_keyholder);

	allowed("parent: AF_UNIX socket, sd_notify, SO_PEERCRED, audit file", enter_parent,
	    parent_work);
	check_notified(notify_fd);
	allowed("parent: reads beneath /proc only", enter_parent, parent_reads);
	allowed("parent: writes beneath the audit directory, removes beneath the socket's",
	    enter_parent, parent_writes);
	refused("parent: open for reading and writing", enter_parent, try_open_audit_rdwr);
	refused("parent: socket(AF_INET)", enter_parent, try_inet_socket);
	refused("parent: socket(AF_INET6)", enter_parent, try_inet6_socket);
	refused("parent: execve", enter_parent, try_execve);
	refused("parent: ptrace", enter_parent, try_ptrace);
	refused("parent: process_vm_readv", enter_parent, try_process_vm_readv);
	refused("parent: ioctl(FIONREAD)", enter_parent, try_fionread);
	check_status("parent: /proc status", enter_parent);

	if (SANDBOX_SANITIZER && enforced)
		sanitizer_report();
	remove_fixtures(notify_fd);
	return test_done("test-sandbox");
}
