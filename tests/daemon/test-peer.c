/* SPDX-License-Identifier: ISC */
/*
 * Unit test of a peer's identity (daemon/peer.c): the process name of this test and of a child
 * that renamed itself (prctl PR_SET_NAME: 15 bytes, spaces and a newline kept as they are), a
 * process that is gone, pid 0 (a peer in another pid namespace: never the caller's own unit),
 * and the systemd unit of a child moved into a cgroup named like a service, and of one in a
 * cgroup that names no unit. The cgroups are made in the cgroup2 hierarchy (root only) and
 * removed again.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "peer.h"

#define CGROUP2_SUPER_MAGIC 0x63677270

static int go[2];

/* A child that renames itself, says so, and waits until the test closes go[1]. */
static pid_t named_child(const char *name)
{
	int ready[2];
	pid_t pid;
	char c;

	if (pipe(ready) != 0 || pipe(go) != 0 || (pid = fork()) < 0)
		test_fatal("pipe/fork");
	if (pid == 0) {
		close(go[1]);
		if (prctl(PR_SET_NAME, name, 0, 0, 0) != 0 || write(ready[1], "r", 1) != 1)
			_exit(1);
		_exit(read(go[0], &c, 1) == 0 ? 0 : 1);
	}
	close(go[0]);
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1)
		test_fatal("child not ready");
	close(ready[0]);
	return pid;
}

static void end_child(pid_t pid)
{
	int st;

	close(go[1]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		test_fatal("child failed");
}

/* The cgroup2 hierarchy: /sys/fs/cgroup itself, or /sys/fs/cgroup/unified (systemd's hybrid). */
static const char *cgroup2_root(void)
{
	static const char *const roots[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	struct statfs st;

	for (size_t i = 0; i < 2; i++)
		if (statfs(roots[i], &st) == 0 && st.f_type == CGROUP2_SUPER_MAGIC)
			return roots[i];
	test_fatal("no cgroup2 hierarchy mounted");
	return NULL;
}

static void move(const char *dir, pid_t pid)
{
	char path[320], text[32];
	int fd, n;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	n = snprintf(text, sizeof(text), "%d", (int)pid);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0 || write(fd, text, (size_t)n) != n)
		test_fatal(path);
	close(fd);
}

/* The unit sd_pid_get_unit finds for a child in the cgroup ROOT/name. */
static void unit_in(const char *name, const char *want)
{
	const char *root = cgroup2_root();
	struct peer_identity id;
	char dir[256];
	pid_t pid = named_child("in-a-cgroup");

	snprintf(dir, sizeof(dir), "%s/%s", root, name);
	if (mkdir(dir, 0755) != 0)
		test_fatal(dir);
	move(dir, pid);
	CHECK_INT(peer_identity_take(pid, &id), 0);
	CHECK(strcmp(id.comm, "in-a-cgroup") == 0);
	if (strcmp(id.unit, want) != 0) {
		fprintf(stderr, "[%s] unit \"%s\", expected \"%s\"\n", test_case, id.unit, want);
		test_failures++;
	}
	end_child(pid);
	/* A cgroup can go once its last process has: waitpid above reaped it. */
	if (rmdir(dir) != 0)
		test_fatal(dir);
}

int main(void)
{
	struct peer_identity id;
	char name[32];
	pid_t pid;

	test_case = "this process";
	CHECK_INT(peer_identity_take(getpid(), &id), 0);
	CHECK(strcmp(id.comm, "test-peer") == 0);

	test_case = "a renamed child, 15 bytes with a space and a newline";
	pid = named_child("a b\nc-567890abc");
	CHECK_INT(peer_identity_take(pid, &id), 0);
	CHECK(strcmp(id.comm, "a b\nc-567890abc") == 0);
	end_child(pid);

	test_case = "a longer name is cut by the kernel at 15 bytes";
	pid = named_child("0123456789abcdefghij");
	CHECK_INT(peer_identity_take(pid, &id), 0);
	CHECK(strcmp(id.comm, "0123456789abcde") == 0);
	end_child(pid);

	test_case = "a process that is gone";
	pid = named_child("gone");
	end_child(pid);
	memset(&id, 'x', sizeof(id));
	CHECK_INT(peer_identity_take(pid, &id), -1);
	CHECK(id.comm[0] == '\0' && id.unit[0] == '\0');

	test_case = "pid 0: another pid namespace";
	memset(&id, 'x', sizeof(id));
	CHECK_INT(peer_identity_take(0, &id), -1);
	CHECK(id.comm[0] == '\0' && id.unit[0] == '\0');

	test_case = "a service's cgroup";
	snprintf(name, sizeof(name), "p256sign-test-%d.service", (int)getpid());
	unit_in(name, name);

	test_case = "a cgroup that names no unit";
	snprintf(name, sizeof(name), "p256sign-test-%d", (int)getpid());
	unit_in(name, "");
	return test_done("peer");
}
