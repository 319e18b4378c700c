/* SPDX-License-Identifier: ISC */
#ifndef P256_TEST_AUDIT_NS_H
#define P256_TEST_AUDIT_NS_H

/*
 * A journal of the audit tests' own: in a private mount namespace (as root, or through a user
 * namespace) a tmpfs hides /run, and the test binds a datagram socket where journald listens.
 * Nothing of it outlives the test process.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define TEST_JOURNAL_SOCKET "/run/systemd/journal/socket"

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r = -1;

	if (fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text))
		r = 0;
	if (fd >= 0)
		close(fd);
	return r;
}

/* A mount namespace of our own (as root, or through a user namespace), /run a private tmpfs. */
static int private_run(void)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWNS) != 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
			return -1;
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
		if (write_file("/proc/self/uid_map", map) != 0 ||
		    write_file("/proc/self/setgroups", "deny") != 0)
			return -1;
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
		if (write_file("/proc/self/gid_map", map) != 0)
			return -1;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("tmpfs", "/run", "tmpfs", 0, "mode=0755") != 0 ||
	    mkdir("/run/systemd", 0755) != 0 || mkdir("/run/systemd/journal", 0755) != 0)
		return -1;
	return 0;
}

/* A datagram socket bound where journald listens: the journal of the test. */
static int journal_bind(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = TEST_JOURNAL_SOCKET };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		perror("journal socket");
		return -1;
	}
	return fd;
}

#endif
